package benchgen

import (
	"io"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/nodetriage/nodetriage/internal/bundle"
)

// BenchmarkGenerate measures how fast a bundle is written (MB/s), disk
// included.
func BenchmarkGenerate(b *testing.B) {
	const size = 32 << 20
	base := b.TempDir()
	b.SetBytes(size)
	for i := 0; b.Loop(); i++ {
		dir := filepath.Join(base, strconv.Itoa(i))
		if _, err := Generate(Options{Dir: dir, Size: size, Layout: bundle.LayoutNodetriage, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteJournalExport measures line making alone, without a disk.
func BenchmarkWriteJournalExport(b *testing.B) {
	const size = 32 << 20
	b.SetBytes(size)
	for b.Loop() {
		if _, err := WriteJournalExport(io.Discard, ExportOptions{Size: size, Seed: 1, End: time.Unix(1795861591, 0)}); err != nil {
			b.Fatal(err)
		}
	}
}
