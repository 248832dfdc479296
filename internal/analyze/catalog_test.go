package analyze

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/nodetriage/nodetriage/internal/facts"
	"github.com/nodetriage/nodetriage/internal/signature"
	"github.com/nodetriage/nodetriage/patterns"
)

// repoRoot is where testdata/ lives, seen from this package.
const repoRoot = "../.."

// fixedNow keeps certificate-expiry checks stable in fixtures.
func fixedNow() time.Time { return time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC) }

func embeddedAnalyzer(t testing.TB) (*Analyzer, *signature.Catalog) {
	t.Helper()
	cat, err := signature.Load(patterns.FS)
	if err != nil {
		t.Fatalf("loading the embedded catalog: %v", err)
	}
	a, err := New(Options{Catalog: cat, Jobs: 2, KeepFacts: true, Now: fixedNow})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return a, cat
}

// TestEverySignatureHasAFiringFixture is the catalog's quality bar: each
// signature has a bundle-shaped fixture under testdata/logs/<id>/ and fires
// on it (a milestone shows as reached).
func TestEverySignatureHasAFiringFixture(t *testing.T) {
	a, cat := embeddedAnalyzer(t)
	for _, sig := range cat.Signatures() {
		t.Run(sig.ID, func(t *testing.T) {
			dir := filepath.Join(repoRoot, "testdata", "logs", sig.ID)
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("no fixture for %s (%s:%d): want a bundle-shaped folder at %s", sig.ID, sig.File, sig.Line, dir)
			}
			br := a.Bundle(context.Background(), dir)
			if br.Error != "" {
				t.Fatalf("fixture unreadable: %s", br.Error)
			}
			if sig.Milestone != "" {
				if !slices.ContainsFunc(br.Timeline, func(m Milestone) bool { return m.ID == sig.Milestone && m.Reached }) {
					t.Errorf("milestone %s not reached; timeline %+v", sig.Milestone, br.Timeline)
				}
				return
			}
			if !slices.ContainsFunc(br.Findings, func(f Finding) bool { return f.ID == sig.ID }) {
				var got []string
				for _, f := range br.Findings {
					got = append(got, f.ID)
				}
				t.Errorf("signature did not fire on its fixture; findings %v", got)
			}
		})
	}
}

// TestHealthyBundlesAreQuiet runs the whole catalog on healthy nodes: no
// finding at warning or above may come out.
func TestHealthyBundlesAreQuiet(t *testing.T) {
	a, _ := embeddedAnalyzer(t)
	dirs, _ := filepath.Glob(filepath.Join(repoRoot, "testdata", "healthy", "*"))
	if len(dirs) == 0 {
		t.Fatal("no healthy fixtures under testdata/healthy")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			br := a.Bundle(context.Background(), dir)
			if br.Error != "" {
				t.Fatalf("unreadable: %s", br.Error)
			}
			for _, f := range br.Findings {
				if f.Serious() {
					t.Errorf("false positive %s (%s): %+v", f.ID, f.Severity, f.Evidence)
				}
			}
		})
	}
}

// TestCatalogFactsAreComputed checks that every fact the catalog reads is
// one the facts package can produce, so a typo in a fact name cannot
// silently disable a check.
func TestCatalogFactsAreComputed(t *testing.T) {
	_, cat := embeddedAnalyzer(t)
	for _, name := range cat.FactNames() {
		if !knownFact(name) {
			t.Errorf("catalog reads fact %q, which nothing computes (see patterns/README.md)", name)
		}
	}
}

func knownFact(name string) bool { return facts.Known(name) }
