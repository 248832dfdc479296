package analyze

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// peakHeap runs f while sampling the Go heap, and returns the largest heap
// seen. It is a memory measurement, not a timing one.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	return peak.Load()
}

type entry struct {
	hdr  tar.Header
	body io.Reader
}

func writeTarGz(t *testing.T, name string, entries func(tw *tar.Writer)) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	gz, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	tw := tar.NewWriter(gz)
	entries(tw)
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	f.Close()
	return p
}

func addFile(t *testing.T, tw *tar.Writer, name string, size int64, body io.Reader) {
	t.Helper()
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: size, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(tw, body, size); err != nil {
		t.Fatal(err)
	}
}

// repeatReader yields one byte forever.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

const failingLine = "2026-11-29T14:20:03.215001+00:00 ip-10-0-1-2 nodeadm[1893]: fatal cli/main.go:35 Command failed {\"error\": \"no config in chain\"}\n"

// TestHostileBundles feeds broken and hostile bundles to the analyzer: each
// must end in a report (with notes) or a clean error, never a panic, and the
// heap must stay under 256 MiB.
func TestHostileBundles(t *testing.T) {
	if testing.Short() {
		t.Skip("writes GiB-sized streams")
	}
	a, _ := embeddedAnalyzer(t)
	const gib = 1 << 30
	tests := []struct {
		name      string
		make      func(t *testing.T) string
		wantError bool   // the bundle cannot be read at all
		wantNote  string // a note the report must carry
		wantFind  bool   // the planted failure must still be found
	}{
		{"decompression bomb", func(t *testing.T) string {
			return writeTarGz(t, "bomb.tar.gz", func(tw *tar.Writer) {
				addFile(t, tw, "nodeadm/nodeadm-config.log", int64(len(failingLine)), strings.NewReader(failingLine))
				addFile(t, tw, "var_log/messages", gib, repeatReader(0))
			})
		}, false, "", true},
		{"one line of a GiB", func(t *testing.T) string {
			return writeTarGz(t, "longline.tar.gz", func(tw *tar.Writer) {
				addFile(t, tw, "kubelet/kubelet.log", gib, repeatReader('a'))
				addFile(t, tw, "nodeadm/nodeadm-config.log", int64(len(failingLine)), strings.NewReader(failingLine))
			})
		}, false, "", true},
		{"names that leave the bundle, links and devices", func(t *testing.T) string {
			return writeTarGz(t, "escape.tar.gz", func(tw *tar.Writer) {
				addFile(t, tw, "../../nodeadm/nodeadm-config.log", int64(len(failingLine)), strings.NewReader(failingLine))
				tw.WriteHeader(&tar.Header{Name: "kubelet/kubelet.log", Typeflag: tar.TypeSymlink, Linkname: "/etc/shadow"})
				tw.WriteHeader(&tar.Header{Name: "kubelet/hard", Typeflag: tar.TypeLink, Linkname: "/etc/passwd"})
				tw.WriteHeader(&tar.Header{Name: "dev/null", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3})
				addFile(t, tw, "/abs/nodeadm/x.log", 3, strings.NewReader("ok\n"))
			})
		}, false, "leaves the bundle", true},
		{"binary and invalid UTF-8", func(t *testing.T) string {
			return writeTarGz(t, "binary.tar.gz", func(tw *tar.Writer) {
				bin := bytes.Repeat([]byte{0, 0xff, 0xfe, 0x80, '\n', 0xc3}, 100000)
				addFile(t, tw, "kubelet/kubelet.log", int64(len(bin)), bytes.NewReader(bin))
				bad := "\xff\xfe" + failingLine
				addFile(t, tw, "nodeadm/nodeadm-config.log", int64(len(bad)), strings.NewReader(bad))
			})
		}, false, "", true},
		{"truncated gzip", func(t *testing.T) string {
			p := writeTarGz(t, "cut.tar.gz", func(tw *tar.Writer) {
				addFile(t, tw, "nodeadm/nodeadm-config.log", int64(len(failingLine)), strings.NewReader(failingLine))
				addFile(t, tw, "var_log/messages", 8<<20, repeatReader('m'))
			})
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:len(data)*2/3], 0o600)
			return p
		}, false, "could not be read to the end", true},
		{"corrupt zstd", func(t *testing.T) string {
			var buf bytes.Buffer
			zw, _ := zstd.NewWriter(&buf)
			tw := tar.NewWriter(zw)
			addFile(t, tw, "nodeadm/nodeadm-config.log", int64(len(failingLine)), strings.NewReader(failingLine))
			addFile(t, tw, "var_log/messages", 4<<20, repeatReader('z'))
			tw.Close()
			zw.Close()
			data := buf.Bytes()
			for i := len(data) / 2; i < len(data)/2+64 && i < len(data); i++ {
				data[i] ^= 0x5a
			}
			p := filepath.Join(t.TempDir(), "corrupt.tar.zst")
			os.WriteFile(p, data, 0o600)
			return p
		}, false, "could not be read to the end", true},
		{"zip with duplicate names", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "dup.zip")
			f, _ := os.Create(p)
			zw := zip.NewWriter(f)
			for range 2 {
				w, _ := zw.Create("nodeadm/nodeadm-config.log")
				w.Write([]byte(failingLine))
			}
			zw.Close()
			f.Close()
			return p
		}, false, "duplicate", true},
		{"200,000 tiny members", func(t *testing.T) string {
			return writeTarGz(t, "many.tar.gz", func(tw *tar.Writer) {
				addFile(t, tw, "nodeadm/nodeadm-config.log", int64(len(failingLine)), strings.NewReader(failingLine))
				for i := range 200_000 {
					addFile(t, tw, "var_log/pods/f"+itoa(i)+".log", 1, strings.NewReader("x"))
				}
			})
		}, false, "more than 100000 members", true},
		{"deeply nested folders", func(t *testing.T) string {
			deep := strings.Repeat("d/", 2000) + "x.log"
			return writeTarGz(t, "deep.tar.gz", func(tw *tar.Writer) {
				addFile(t, tw, deep, 3, strings.NewReader("ok\n"))
				addFile(t, tw, "nodeadm/nodeadm-config.log", int64(len(failingLine)), strings.NewReader(failingLine))
			})
		}, false, "", true},
		{"not an archive at all but named like one", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "fake.tar.gz")
			os.WriteFile(p, []byte("this is not gzip"), 0o600)
			return p
		}, true, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.make(t)
			var br BundleReport
			peak := peakHeap(func() { br = a.Bundle(context.Background(), p) })
			t.Logf("peak heap %.1f MiB", float64(peak)/(1<<20))
			if peak > 256<<20 {
				t.Errorf("peak heap %d MiB, over 256 MiB", peak>>20)
			}
			if tt.wantError {
				if br.Error == "" || !strings.Contains(br.Error, filepath.Base(p)) {
					t.Errorf("want an error naming the file, got %q", br.Error)
				}
				return
			}
			if br.Error != "" {
				t.Fatalf("unexpected error: %s", br.Error)
			}
			if tt.wantNote != "" && !strings.Contains(strings.Join(br.Notes, "\n"), tt.wantNote) {
				t.Errorf("notes lack %q: %v", tt.wantNote, br.Notes)
			}
			if tt.wantFind && !hasFinding(br, "nodeadm-no-config-in-chain") {
				t.Errorf("the planted failure was lost; findings %v", ids(br))
			}
		})
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{digits[i%10]}, b...)
	}
	return string(b)
}

func hasFinding(br BundleReport, id string) bool {
	for _, f := range br.Findings {
		if f.ID == id {
			return true
		}
	}
	return false
}

func ids(br BundleReport) []string {
	var out []string
	for _, f := range br.Findings {
		out = append(out, f.ID)
	}
	return out
}
