package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func FuzzCleanName(f *testing.F) {
	for _, s := range []string{"./kernel/dmesg", "../../x", "/abs", "a/../../b", "eks_i-1/kubelet/kubelet.log", "", "\\..\\x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		clean, _ := CleanName(name)
		if strings.HasPrefix(clean, "/") || clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(clean, "/../") {
			t.Errorf("CleanName(%q) = %q escapes the bundle", name, clean)
		}
	})
}

// FuzzWalk feeds arbitrary bytes to the bundle reader under several names, so
// that every container format's reader sees them.
func FuzzWalk(f *testing.F) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "./kubelet/kubelet.log", Size: 3, Mode: 0o644})
	tw.Write([]byte("ok\n"))
	tw.Close()
	gz.Close()
	f.Add(buf.Bytes(), uint8(0))
	f.Add([]byte("PK\x03\x04garbage"), uint8(1))
	f.Add([]byte("\x28\xb5\x2f\xfdgarbage"), uint8(2))
	f.Add([]byte("plain text\n"), uint8(3))
	names := []string{"b.tar.gz", "b.zip", "b.tar.zst", "b.txt"}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		p := filepath.Join(t.TempDir(), names[int(which)%len(names)])
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		b, err := Open(ctx, p, Limits{MaxFileBytes: 1 << 20, MaxTotalBytes: 4 << 20, MaxMembers: 1000})
		if err != nil {
			return
		}
		_ = b.Walk(ctx, func(m *Member) error {
			_, err := io.Copy(io.Discard, m)
			return err
		})
	})
}
