package collect

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestBigRoot runs a whole collection on the node root named by
// NODETRIAGE_BENCH_ROOT (such as bench/work/noderoot), so that
// `go test -run TestBigRoot -cpuprofile` profiles collect on a big node. It
// is skipped when the variable is unset. NODETRIAGE_BENCH_MAX_SIZE sets the
// budget in bytes (default: the command's default) and
// NODETRIAGE_BENCH_WORKERS how many sources run at once.
func TestBigRoot(t *testing.T) {
	root := os.Getenv("NODETRIAGE_BENCH_ROOT")
	if root == "" {
		t.Skip("NODETRIAGE_BENCH_ROOT is not set")
	}
	maxSize := int64(DefaultMaxSize)
	if v := os.Getenv("NODETRIAGE_BENCH_MAX_SIZE"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("NODETRIAGE_BENCH_MAX_SIZE: %v", err)
		}
		maxSize = n
	}
	workers := 0
	if v := os.Getenv("NODETRIAGE_BENCH_WORKERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("NODETRIAGE_BENCH_WORKERS: %v", err)
		}
		workers = n
	}
	out := filepath.Join(t.TempDir(), "bundle.tar.gz")
	res, err := Run(context.Background(), Options{
		Root: root, Output: out, NoIMDS: true, NoProbes: true, MaxSize: maxSize,
		Progress: os.Stderr, skipRootCheck: true, Workers: workers,
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Bytes == 0 {
		t.Fatalf("empty bundle at %s", res.Path)
	}
	t.Logf("bundle %s: %d bytes", res.Path, res.Bytes)
}
