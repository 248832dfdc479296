package bundle

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

func TestCleanName(t *testing.T) {
	tests := []struct {
		in     string
		want   string
		wantOK bool
	}{
		{"./kernel/dmesg.current", "kernel/dmesg.current", true},
		{"kernel/dmesg.current", "kernel/dmesg.current", true},
		{"eks_i-0abc_2025-03-06_1822-UTC_0.7.8/kubelet/kubelet.log", "kubelet/kubelet.log", true},
		{"bundle/manifest.json", "manifest.json", true},
		{"../../etc/passwd", "etc/passwd", false},
		{"/etc/shadow", "etc/shadow", false},
		{"kubelet/../../x", "x", false},
		{"./", "", true},
		{"a\\b\\c", "a/b/c", true},
		{"some/deep/file.txt", "some/deep/file.txt", true},
	}
	for _, tt := range tests {
		got, ok := CleanName(tt.in)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("CleanName(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestDetectLayout(t *testing.T) {
	tests := []struct {
		names []string
		want  Layout
	}{
		{[]string{"manifest.json", "kubelet/kubelet.log"}, LayoutNodetriage},
		{[]string{"system/script-params.txt", "kubelet/kubelet.log"}, LayoutLogCollector},
		{[]string{"journalctl.log", "settings.json"}, LayoutBottlerocket},
		{[]string{"console.txt"}, LayoutSingleFile},
		{[]string{"a/b"}, LayoutUnknown},
	}
	for _, tt := range tests {
		if got := DetectLayout(tt.names); got != tt.want {
			t.Errorf("DetectLayout(%v) = %s, want %s", tt.names, got, tt.want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"tar.gz": FormatTarGz, "tgz": FormatTarGz, ".zip": FormatZip, "tar.zst": FormatTarZst} {
		got, err := ParseFormat(in)
		if err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseFormat("rar"); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("ParseFormat(rar) error = %v, want ErrUnknownFormat", err)
	}
}

// readAll walks a bundle and returns its members' contents by name.
func readAll(t *testing.T, p string, limits Limits) (map[string]string, *Bundle, error) {
	t.Helper()
	b, err := Open(context.Background(), p, limits)
	if err != nil {
		t.Fatalf("Open(%s): %v", p, err)
	}
	got := make(map[string]string)
	err = b.Walk(context.Background(), func(m *Member) error {
		data, err := io.ReadAll(m)
		if err != nil {
			return err
		}
		got[m.Name] = string(data)
		return nil
	})
	return got, b, err
}

func TestWriteDirRoundTrip(t *testing.T) {
	src := t.TempDir()
	want := map[string]string{
		"manifest.json":              `{"format_version":1}`,
		"kubelet/kubelet.log":        "line one\nline two\n",
		"nodeadm/nodeadm-config.log": "fatal cli/main.go:35 Command failed {\"error\": \"no config in chain\"}\n",
		"userdata/part-1.sh":         "#!/bin/bash\necho hi\n",
	}
	for name, body := range want {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, format := range []Format{FormatTarGz, FormatTarZst, FormatZip} {
		t.Run(string(format), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "b."+string(format))
			f, err := os.Create(out)
			if err != nil {
				t.Fatal(err)
			}
			if err := WriteDir(context.Background(), f, format, src); err != nil {
				t.Fatalf("WriteDir: %v", err)
			}
			f.Close()
			got, b, err := readAll(t, out, DefaultLimits())
			if err != nil {
				t.Fatalf("Walk: %v", err)
			}
			if b.Container != string(format) {
				t.Errorf("container = %q, want %q", b.Container, format)
			}
			for name, body := range want {
				if got[name] != body {
					t.Errorf("%s = %q, want %q", name, got[name], body)
				}
			}
			if len(got) != len(want) {
				t.Errorf("got %d members, want %d", len(got), len(want))
			}
		})
	}
}

func TestWriteDirPutsManifestFirst(t *testing.T) {
	src := t.TempDir()
	for _, n := range []string{"a.txt", "manifest.json", "z/z.txt"} {
		p := filepath.Join(src, n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(n), 0o600)
	}
	out := filepath.Join(t.TempDir(), "b.tar.gz")
	f, _ := os.Create(out)
	if err := WriteDir(context.Background(), f, FormatTarGz, src); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, err := Open(context.Background(), out, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	b.Walk(context.Background(), func(m *Member) error { order = append(order, m.Name); return nil })
	if len(order) == 0 || order[0] != ManifestName {
		t.Errorf("member order %v, want manifest.json first", order)
	}
}

type tarEntry struct {
	hdr  tar.Header
	body string
}

func writeTarGz(t *testing.T, entries []tarEntry) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := e.hdr
		if h.Typeflag == tar.TypeReg || h.Typeflag == 0 {
			h.Size = int64(len(e.body))
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg || h.Typeflag == 0 {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	gz.Close()
	p := filepath.Join(t.TempDir(), "hostile.tar.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWalkHostileTar(t *testing.T) {
	p := writeTarGz(t, []tarEntry{
		{tar.Header{Name: "./kubelet/kubelet.log", Typeflag: tar.TypeReg}, "ok\n"},
		{tar.Header{Name: "../../etc/evil", Typeflag: tar.TypeReg}, "evil\n"},
		{tar.Header{Name: "/abs/path", Typeflag: tar.TypeReg}, "abs\n"},
		{tar.Header{Name: "link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}, ""},
		{tar.Header{Name: "hard", Typeflag: tar.TypeLink, Linkname: "/etc/shadow"}, ""},
		{tar.Header{Name: "dev", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3}, ""},
		{tar.Header{Name: "fifo", Typeflag: tar.TypeFifo}, ""},
	})
	got, b, err := readAll(t, p, DefaultLimits())
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	names := make([]string, 0, len(got))
	for n := range got {
		names = append(names, n)
	}
	sort.Strings(names)
	want := []string{"abs/path", "etc/evil", "kubelet/kubelet.log"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("members = %v, want %v", names, want)
	}
	notes := strings.Join(b.Notes(), "\n")
	for _, frag := range []string{"leaves the bundle", "symbolic link skipped", "device skipped", "named pipe skipped", "hard"} {
		if !strings.Contains(notes, frag) {
			t.Errorf("notes lack %q:\n%s", frag, notes)
		}
	}
}

func TestWalkLimits(t *testing.T) {
	big := strings.Repeat("0", 1<<20)
	p := writeTarGz(t, []tarEntry{
		{tar.Header{Name: "a.log", Typeflag: tar.TypeReg}, big},
		{tar.Header{Name: "b.log", Typeflag: tar.TypeReg}, big},
		{tar.Header{Name: "c.log", Typeflag: tar.TypeReg}, big},
	})
	tests := []struct {
		name     string
		limits   Limits
		wantSize map[string]int
		wantNote string
	}{
		{"per file", Limits{MaxFileBytes: 1000, MaxTotalBytes: 1 << 30, MaxMembers: 10}, map[string]int{"a.log": 1000, "b.log": 1000, "c.log": 1000}, "only the first 1000"},
		{"total", Limits{MaxFileBytes: 1 << 30, MaxTotalBytes: 1<<20 + 10, MaxMembers: 10}, map[string]int{"a.log": 1 << 20, "b.log": 10}, "read limit"},
		{"members", Limits{MaxFileBytes: 1 << 30, MaxTotalBytes: 1 << 30, MaxMembers: 2}, map[string]int{"a.log": 1 << 20, "b.log": 1 << 20}, "more than 2 members"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, b, err := readAll(t, p, tt.limits)
			if err != nil {
				t.Fatalf("Walk: %v", err)
			}
			if len(got) != len(tt.wantSize) {
				t.Errorf("read %d members, want %d", len(got), len(tt.wantSize))
			}
			for n, size := range tt.wantSize {
				if len(got[n]) != size {
					t.Errorf("%s: read %d bytes, want %d", n, len(got[n]), size)
				}
			}
			if !strings.Contains(strings.Join(b.Notes(), "\n"), tt.wantNote) {
				t.Errorf("notes %v lack %q", b.Notes(), tt.wantNote)
			}
		})
	}
}

func TestWalkCorruptGzip(t *testing.T) {
	p := writeTarGz(t, []tarEntry{
		{tar.Header{Name: "kubelet/kubelet.log", Typeflag: tar.TypeReg}, strings.Repeat("kubelet line\n", 5000)},
		{tar.Header{Name: "nodeadm/nodeadm-config.log", Typeflag: tar.TypeReg}, strings.Repeat("nodeadm line\n", 50000)},
	})
	data, _ := os.ReadFile(p)
	if err := os.WriteFile(p, data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	got, _, err := readAll(t, p, DefaultLimits())
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Walk error = %v, want ErrCorrupt", err)
	}
	if !strings.Contains(err.Error(), p) {
		t.Errorf("error %q does not name the file", err)
	}
	if _, ok := got["kubelet/kubelet.log"]; !ok {
		t.Errorf("the member before the cut was lost: %v", got)
	}
}

func TestWalkZipDuplicates(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, body := range []string{"first\n", "second\n"} {
		w, _ := zw.Create("kubelet/kubelet.log")
		w.Write([]byte(body))
	}
	zw.Close()
	p := filepath.Join(t.TempDir(), "dup.zip")
	os.WriteFile(p, buf.Bytes(), 0o600)
	got, b, err := readAll(t, p, DefaultLimits())
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	if got["kubelet/kubelet.log"] != "first\n" {
		t.Errorf("kubelet.log = %q, want the first copy", got["kubelet/kubelet.log"])
	}
	if !strings.Contains(strings.Join(b.Notes(), "\n"), "duplicate") {
		t.Errorf("notes %v lack the duplicate", b.Notes())
	}
}

func TestWalkFolderDoesNotFollowLinksOut(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("host file"), 0o600)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "kubelet"), 0o755)
	os.WriteFile(filepath.Join(dir, "kubelet", "kubelet.log"), []byte("ok\n"), 0o600)
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "kubelet", "leak")); err != nil {
		t.Fatal(err)
	}
	got, b, err := readAll(t, dir, DefaultLimits())
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	if _, ok := got["kubelet/leak"]; ok {
		t.Errorf("symlink out of the folder was followed")
	}
	if got["kubelet/kubelet.log"] != "ok\n" {
		t.Errorf("kubelet.log = %q", got["kubelet/kubelet.log"])
	}
	if b.Container != "folder" || len(b.Notes()) == 0 {
		t.Errorf("container %q notes %v", b.Container, b.Notes())
	}
}

func TestWalkSingleFiles(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "console.txt")
	os.WriteFile(plain, []byte("[   12.3] cloud-init[1]: hello\n"), 0o600)
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	gz.Write([]byte("kubelet line\n"))
	gz.Close()
	zipped := filepath.Join(dir, "kubelet.log.gz")
	os.WriteFile(zipped, buf.Bytes(), 0o600)

	tests := []struct {
		path, name, body, container string
	}{
		{plain, "console.txt", "[   12.3] cloud-init[1]: hello\n", "file"},
		{zipped, "kubelet.log", "kubelet line\n", "gz"},
	}
	for _, tt := range tests {
		got, b, err := readAll(t, tt.path, DefaultLimits())
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		if got[tt.name] != tt.body || b.Container != tt.container {
			t.Errorf("%s: got %v container %q", tt.path, got, b.Container)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	_, err := Open(context.Background(), filepath.Join(t.TempDir(), "nope.tar.gz"), DefaultLimits())
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "nope.tar.gz") {
		t.Errorf("Open(missing) = %v", err)
	}
}

func TestManifestRoundTrip(t *testing.T) {
	m := &Manifest{FormatVersion: FormatVersion, Tool: "collect", Start: time.Unix(0, 0).UTC(),
		Sources: []Source{{Name: "kubelet", Status: StatusOK, Files: []File{{Path: "kubelet/kubelet.log", Bytes: 3}}}}}
	var buf bytes.Buffer
	if err := m.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := DecodeManifest(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.Sources[0].Files[0].Path != "kubelet/kubelet.log" {
		t.Errorf("round trip lost files: %+v", got)
	}
	if miss := got.Unaccounted([]string{"manifest.json", "kubelet/kubelet.log", "extra.txt"}); len(miss) != 1 || miss[0] != "extra.txt" {
		t.Errorf("Unaccounted = %v", miss)
	}
	if _, err := DecodeManifest(strings.NewReader("{")); !errors.Is(err, ErrBadManifest) {
		t.Errorf("DecodeManifest(bad) = %v", err)
	}
}
