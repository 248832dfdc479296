package benchgen

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodetriage/nodetriage/internal/bundle"
)

var bundleLayouts = []bundle.Layout{bundle.LayoutNodetriage, bundle.LayoutLogCollector}

// generate runs Generate into a fresh folder and fails the test on error.
func generate(t testing.TB, opt Options) Manifest {
	t.Helper()
	if opt.Dir == "" {
		opt.Dir = filepath.Join(t.TempDir(), "bundle")
	}
	m, err := Generate(opt)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", opt, err)
	}
	return m
}

// treeHash hashes every regular file's path and content under dir.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h.Write([]byte(rel + "\x00"))
		h.Write(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// treeSize sums the sizes of the regular files under dir.
func treeSize(t *testing.T, dir string) (int64, []string) {
	t.Helper()
	var total int64
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		names = append(names, filepath.ToSlash(rel))
		total += info.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total, names
}

func TestGenerateIsDeterministic(t *testing.T) {
	for _, layout := range append(slices.Clone(bundleLayouts), LayoutNodeRoot) {
		t.Run(string(layout), func(t *testing.T) {
			base := t.TempDir()
			var hashes []string
			for i, seed := range []uint64{7, 7, 8} {
				dir := filepath.Join(base, string(rune('a'+i)))
				generate(t, Options{Dir: dir, Size: 512 << 10, Layout: layout, Seed: seed})
				hashes = append(hashes, treeHash(t, dir))
			}
			if hashes[0] != hashes[1] {
				t.Errorf("same seed wrote different bytes: %s vs %s", hashes[0], hashes[1])
			}
			if hashes[0] == hashes[2] {
				t.Errorf("seeds 7 and 8 wrote the same bytes")
			}
		})
	}
}

func TestGenerateSize(t *testing.T) {
	for _, layout := range bundleLayouts {
		for _, size := range []int64{MinSize, 300 << 10, 1 << 20, 6 << 20} {
			t.Run(string(layout)+"/"+time.Duration(size).String(), func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "b")
				m := generate(t, Options{Dir: dir, Size: size, Layout: layout, Seed: 3})
				got, names := treeSize(t, dir)
				if got != m.Bytes {
					t.Errorf("files hold %d bytes, manifest says %d", got, m.Bytes)
				}
				if len(names) != m.Files {
					t.Errorf("%d files on disk, manifest says %d", len(names), m.Files)
				}
				if diff := float64(got-size) / float64(size); diff > 0.01 || diff < -0.01 {
					t.Errorf("wrote %d bytes for a request of %d (%.2f%% off)", got, size, diff*100)
				}
			})
		}
	}
}

// failureWords is a stable part of each planted failure's key line.
var failureWords = map[string]string{
	"nodeadm-no-config-in-chain":   `Command failed {"error": "no config in chain"}`,
	"kubelet-unauthorized":         `"Unable to register node with API server" err="Unauthorized"`,
	"ipamd-insufficient-addresses": "InsufficientFreeAddressesInSubnet",
	"kernel-oom-kill":              "Out of memory: Killed process 1234 (containerd)",
	"kernel-soft-lockup":           "watchdog: BUG: soft lockup - CPU#1 stuck for 23s! [kworker/1:1:123]",
	"containerd-pull-no-auth":      "no basic auth credentials",
	"conntrack-table-full":         "nf_conntrack: table full, dropping packet",
}

// lineAt returns line n (from 1) of a file.
func lineAt(t *testing.T, name string, n int) string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for i := 1; sc.Scan(); i++ {
		if i == n {
			return sc.Text()
		}
	}
	t.Fatalf("%s has fewer than %d lines", name, n)
	return ""
}

func TestPlantedLinesAreWhereTheManifestSays(t *testing.T) {
	for _, layout := range bundleLayouts {
		for _, size := range []int64{MinSize, 2 << 20} {
			t.Run(string(layout), func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "b")
				m := generate(t, Options{Dir: dir, Size: size, Layout: layout, Seed: 11})
				var ids []string
				for _, p := range m.Planted {
					ids = append(ids, p.ID)
					if got := lineAt(t, relPath(dir, p.File), p.Line); got != p.Text {
						t.Errorf("%s: line %d of %s is\n%q\nwant\n%q", p.ID, p.Line, p.File, got, p.Text)
					}
					if !strings.Contains(p.Text, failureWords[p.ID]) {
						t.Errorf("%s: planted text %q lacks %q", p.ID, p.Text, failureWords[p.ID])
					}
				}
				if !slices.Equal(ids, DefaultPlants) {
					t.Errorf("planted %v, want the default set %v", ids, DefaultPlants)
				}
			})
		}
	}
}

func TestPlantSelection(t *testing.T) {
	tests := []struct {
		name  string
		plant []string
		want  []string
	}{
		{"default", nil, DefaultPlants},
		{"one", []string{"kernel-oom-kill"}, []string{"kernel-oom-kill"}},
		{"order kept", []string{"conntrack-table-full", "kubelet-unauthorized"}, []string{"conntrack-table-full", "kubelet-unauthorized"}},
		{"none", []string{NoPlants}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "b")
			m := generate(t, Options{Dir: dir, Size: 256 << 10, Layout: bundle.LayoutLogCollector, Seed: 1, Plant: tt.plant})
			var got []string
			for _, p := range m.Planted {
				got = append(got, p.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("planted %v, want %v", got, tt.want)
			}
			planted := map[string]bool{}
			for _, id := range got {
				planted[id] = true
			}
			all := readTree(t, dir)
			for id, words := range failureWords {
				if has := bytes.Contains(all, []byte(words)); has != planted[id] {
					t.Errorf("%s: text present = %v, planted = %v", id, has, planted[id])
				}
			}
		})
	}
}

// readTree concatenates every file under dir.
func readTree(t *testing.T, dir string) []byte {
	t.Helper()
	var all []byte
	_, names := treeSize(t, dir)
	for _, n := range names {
		data, err := os.ReadFile(relPath(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, data...)
	}
	return all
}

func TestGenerateRejectsBadOptions(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opt  Options
		want error
	}{
		{"small", Options{Size: MinSize - 1, Layout: bundle.LayoutNodetriage}, ErrSizeTooSmall},
		{"layout", Options{Size: MinSize, Layout: "bottlerocket-logdog"}, ErrUnknownLayout},
		{"plant", Options{Size: MinSize, Layout: bundle.LayoutNodetriage, Plant: []string{"disk-on-fire"}}, ErrUnknownPlant},
		{"not empty", Options{Dir: full, Size: MinSize, Layout: bundle.LayoutNodetriage}, ErrDirNotEmpty},
		{"no dir", Options{Dir: "", Size: MinSize, Layout: bundle.LayoutNodetriage}, ErrDirNotEmpty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.opt.Dir == "" && tt.name != "no dir" {
				tt.opt.Dir = filepath.Join(t.TempDir(), "b")
			}
			if _, err := Generate(tt.opt); !errors.Is(err, tt.want) {
				t.Fatalf("Generate: %v, want %v", err, tt.want)
			}
		})
	}
}

func TestBundleLooksLikeItsLayout(t *testing.T) {
	for _, layout := range bundleLayouts {
		t.Run(string(layout), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "b")
			generate(t, Options{Dir: dir, Size: 256 << 10, Layout: layout, Seed: 2})
			_, names := treeSize(t, dir)
			if got := bundle.DetectLayout(names); got != layout {
				t.Errorf("DetectLayout = %s, want %s", got, layout)
			}
			for _, n := range names {
				first, _, _ := strings.Cut(n, "/")
				if n != bundle.ManifestName && !bundle.IsTopDir(first) {
					t.Errorf("%s is outside the bundle's top folders", n)
				}
			}
		})
	}
}

func TestNodetriageManifestIsValid(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "b")
	generate(t, Options{Dir: dir, Size: 256 << 10, Layout: bundle.LayoutNodetriage, Seed: 5})
	f, err := os.Open(filepath.Join(dir, bundle.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := bundle.DecodeManifest(f)
	if err != nil {
		t.Fatal(err)
	}
	if m.FormatVersion != bundle.FormatVersion || m.Tool != "collect" {
		t.Errorf("format_version %d tool %q", m.FormatVersion, m.Tool)
	}
	if !strings.HasPrefix(m.Host.InstanceID, "i-0") || m.Host.Region != "ap-northeast-1" || m.Host.Hostname == "" {
		t.Errorf("host identity incomplete: %+v", m.Host)
	}
	_, names := treeSize(t, dir)
	if missing := m.Unaccounted(names); len(missing) > 0 {
		t.Errorf("files missing from manifest.json: %v", missing)
	}
	for _, s := range m.Sources {
		for _, file := range s.Files {
			info, err := os.Stat(relPath(dir, file.Path))
			if err != nil || info.Size() != file.Bytes {
				t.Errorf("%s: manifest says %d bytes, file: %v %v", file.Path, file.Bytes, info, err)
			}
		}
	}
}

func TestGenerateTarGz(t *testing.T) {
	base := t.TempDir()
	out := filepath.Join(base, "bundle.tar.gz")
	m, err := GenerateTarGz(Options{Dir: filepath.Join(base, "b"), Size: 512 << 10, Layout: bundle.LayoutNodetriage, Seed: 9}, out)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b, err := bundle.Open(ctx, out, bundle.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if b.Container != "tar.gz" {
		t.Errorf("container %q, want tar.gz", b.Container)
	}
	wanted := map[string][]Planted{}
	for _, p := range m.Planted {
		wanted[p.File] = append(wanted[p.File], p)
	}
	var total int64
	var first string
	err = b.Walk(ctx, func(mem *bundle.Member) error {
		if first == "" {
			first = mem.Name
		}
		data, err := io.ReadAll(mem)
		if err != nil {
			return err
		}
		total += int64(len(data))
		lines := strings.Split(string(data), "\n")
		for _, p := range wanted[mem.Name] {
			if p.Line > len(lines) || lines[p.Line-1] != p.Text {
				t.Errorf("%s: line %d of %s in the archive is not the planted one", p.ID, p.Line, mem.Name)
			}
			delete(wanted, mem.Name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if first != bundle.ManifestName {
		t.Errorf("first member %q, want %s", first, bundle.ManifestName)
	}
	if total != m.Bytes {
		t.Errorf("archive holds %d bytes, manifest says %d", total, m.Bytes)
	}
	if len(wanted) > 0 {
		t.Errorf("planted files missing from the archive: %v", wanted)
	}
}

func TestNodeRoot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "root")
	m := generate(t, Options{Dir: dir, Size: 1 << 20, Layout: LayoutNodeRoot, Seed: 4})
	for _, want := range []string{"var/log/messages", "var/log/aws-routed-eni/ipamd.log", "var/log/cloud-init.log", "etc/os-release", "etc/machine-id"} {
		if _, err := os.Stat(relPath(dir, want)); err != nil {
			t.Errorf("missing %s: %v", want, err)
		}
	}
	links, err := filepath.Glob(filepath.Join(dir, "var/log/containers/*.log"))
	if err != nil || len(links) != 3 {
		t.Fatalf("container links %v (%v), want 3", links, err)
	}
	for _, l := range links {
		target, err := os.Readlink(l)
		if err != nil || !strings.HasPrefix(target, "/var/log/pods/") {
			t.Errorf("%s → %q (%v)", l, target, err)
			continue
		}
		if _, err := os.Stat(relPath(dir, target)); err != nil {
			t.Errorf("%s points at a missing file: %v", l, err)
		}
	}
	if info, err := os.Stat(filepath.Join(dir, "var/log/journal", MachineID(4))); err != nil || !info.IsDir() {
		t.Errorf("journal folder: %v", err)
	}
	var ids []string
	for _, p := range m.Planted {
		ids = append(ids, p.ID)
	}
	want := []string{"ipamd-insufficient-addresses", "conntrack-table-full"}
	if !slices.Equal(ids, want) {
		t.Errorf("planted %v in a node root, want only the file-based %v", ids, want)
	}
}

func TestTimestampsMoveForward(t *testing.T) {
	tests := []struct {
		layout bundle.Layout
		file   string
		stamp  string
		width  int
	}{
		{bundle.LayoutNodetriage, "kubelet/kubelet.log", "2006-01-02T15:04:05.000000Z07:00", 32},
		{bundle.LayoutLogCollector, "kubelet/kubelet.log", "Jan 02 15:04:05", 15},
		{bundle.LayoutLogCollector, "var_log/messages", "Jan _2 15:04:05", 15},
		{bundle.LayoutLogCollector, "var_log/cloud-init.log", "2006-01-02 15:04:05,000", 23},
	}
	for _, tt := range tests {
		t.Run(string(tt.layout)+"/"+tt.file, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "b")
			generate(t, Options{Dir: dir, Size: 1 << 20, Layout: tt.layout, Seed: 6})
			data, err := os.ReadFile(relPath(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			var last time.Time
			for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
				if len(line) < tt.width {
					t.Fatalf("line %d too short: %q", i+1, line)
				}
				ts, err := time.Parse(tt.stamp, line[:tt.width])
				if err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				if i > 0 && ts.Before(last) {
					t.Fatalf("line %d goes back in time: %s after %s", i+1, ts, last)
				}
				last = ts
			}
		})
	}
}
