package userdata

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// testNow is the fixed "now" of every test: the fixture CA (2025-2035) is
// valid then, the expired one (2014-2024) is not.
var testNow = time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	return b
}

// codes returns the sorted, de-duplicated problem codes.
func codes(ps []Problem) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.Code)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func findProblem(ps []Problem, code string) (Problem, bool) {
	for _, p := range ps {
		if p.Code == code {
			return p, true
		}
	}
	return Problem{}, false
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
