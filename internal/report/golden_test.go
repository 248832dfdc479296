package report_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nodetriage/nodetriage/internal/analyze"
	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/nodetriage/nodetriage/internal/report"
	"github.com/nodetriage/nodetriage/internal/signature"
	"github.com/nodetriage/nodetriage/patterns"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata/golden")

const repoRoot = "../.."

func newAnalyzer(t *testing.T) *analyze.Analyzer {
	t.Helper()
	cat, err := signature.Load(patterns.FS)
	if err != nil {
		t.Fatal(err)
	}
	a, err := analyze.New(analyze.Options{Catalog: cat, Jobs: 2,
		Now: func() time.Time { return time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// normalize removes what changes from run to run or machine to machine.
func normalize(br *analyze.BundleReport, name string) {
	br.Path = name
	br.Format = "normalized"
	br.Stats.DurationMS = 0
}

// TestGoldenReports analyzes every fixture bundle under testdata/bundles as
// a folder and as a tar.gz written at test time, checks that both give the
// same report, and compares the three renderings with testdata/golden.
func TestGoldenReports(t *testing.T) {
	a := newAnalyzer(t)
	dirs, _ := filepath.Glob(filepath.Join(repoRoot, "testdata", "bundles", "*"))
	if len(dirs) == 0 {
		t.Fatal("no fixture bundles")
	}
	for _, dir := range dirs {
		name := strings.TrimSuffix(filepath.Base(dir), ".txt")
		t.Run(name, func(t *testing.T) {
			folder := a.Bundle(context.Background(), dir)
			if folder.Error != "" {
				t.Fatalf("folder: %s", folder.Error)
			}
			archive := a.Bundle(context.Background(), packTarGz(t, dir))
			if archive.Error != "" {
				t.Fatalf("tar.gz: %s", archive.Error)
			}
			normalize(&folder, name)
			normalize(&archive, name)
			for _, f := range []report.Format{report.FormatJSON, report.FormatText, report.FormatMarkdown} {
				got := render(t, folder, f)
				if fromArchive := render(t, archive, f); !bytes.Equal(got, fromArchive) {
					t.Errorf("%s: the tar.gz gives another report than the folder:\n%s\n---\n%s", f, fromArchive, got)
				}
				compareGolden(t, filepath.Join(repoRoot, "testdata", "golden", name+"."+string(f)), got)
			}
		})
	}
}

func render(t *testing.T, br analyze.BundleReport, f report.Format) []byte {
	t.Helper()
	var buf bytes.Buffer
	r := &analyze.Report{Schema: analyze.SchemaVersion, Bundles: []analyze.BundleReport{br}}
	if err := report.Write(&buf, r, f, report.Options{}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// packTarGz packs a fixture folder as a tar.gz, or gzips a single-file
// fixture, the way it would reach a support engineer.
func packTarGz(t *testing.T, dir string) string {
	t.Helper()
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return gzipFile(t, dir)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(dir)+".tar.gz")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := bundle.WriteDir(context.Background(), f, bundle.FormatTarGz, dir); err != nil {
		t.Fatal(err)
	}
	return out
}

func gzipFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(p)+".gz")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	if err := os.WriteFile(out, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("missing golden file (run go test ./internal/report -update): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; run `go test ./internal/report -update` and review the diff.\ngot:\n%s", path, got)
	}
}
