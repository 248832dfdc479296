package ahocorasick

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// naiveCounts counts overlapping occurrences of every pattern in text with
// ASCII case folding, the behaviour Scan promises.
func naiveCounts(patterns []string, text string) []int {
	lt := asciiOnlyLower(text)
	counts := make([]int, len(patterns))
	for i, p := range patterns {
		lp := asciiOnlyLower(p)
		for at := 0; at <= len(lt); {
			j := strings.Index(lt[at:], lp)
			if j < 0 {
				break
			}
			counts[i]++
			at += j + 1
		}
	}
	return counts
}

// asciiOnlyLower lowers ASCII letters and leaves every other byte alone
// (strings.ToLower would also touch non-ASCII runes).
func asciiOnlyLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerASCII(c)
	}
	return string(b)
}

func scanCounts(t testing.TB, a *Automaton, text string) []int {
	t.Helper()
	counts := make([]int, a.Len())
	a.Scan([]byte(text), func(p int) { counts[p]++ })
	return counts
}

func TestScan(t *testing.T) {
	tests := []struct {
		name     string
		patterns []string
		text     string
		want     []int
	}{
		{"none", []string{"abc"}, "xyz", []int{0}},
		{"one", []string{"abc"}, "xxabcxx", []int{1}},
		{"overlapping", []string{"aa"}, "aaaa", []int{3}},
		{"nested suffix", []string{"he", "she", "hers", "his"}, "ushers", []int{1, 1, 1, 0}},
		{"case folded", []string{"Unauthorized"}, "err=UNAUTHORIZED and unauthorized", []int{2}},
		{"pattern upper text lower", []string{"NodeConfig"}, "could not find nodeconfig", []int{1}},
		{"duplicates both reported", []string{"x", "x"}, "axa", []int{1, 1}},
		{"non-letters not folded", []string{"[e]"}, "[E] [e] {e}", []int{2}},
		{"non ascii exact", []string{"é"}, "É é", []int{1}},
		{"prefix of another", []string{"no config", "no config in chain"}, "no config in chain", []int{1, 1}},
		{"at start and end", []string{"ab"}, "ab..ab", []int{2}},
		{"empty text", []string{"a"}, "", []int{0}},
		{"no patterns", nil, "anything", []int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Build(tt.patterns)
			if err != nil {
				t.Fatal(err)
			}
			got := scanCounts(t, a, tt.text)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Scan counts = %v, want %v", got, tt.want)
			}
			if naive := naiveCounts(tt.patterns, tt.text); !slices.Equal(naive, tt.want) {
				t.Errorf("naive counts = %v, want %v (test table is wrong)", naive, tt.want)
			}
		})
	}
}

func TestBuildRejectsEmptyPattern(t *testing.T) {
	_, err := Build([]string{"ok", ""})
	if !errors.Is(err, ErrEmptyPattern) {
		t.Fatalf("Build with an empty pattern: err = %v, want ErrEmptyPattern", err)
	}
}

func TestScanAllocatesNothing(t *testing.T) {
	a, err := Build([]string{"unauthorized", "no config in chain", "registered node"})
	if err != nil {
		t.Fatal(err)
	}
	text := []byte(`I0911 10:57:09.520720 9919 topology_manager.go:138] "Creating topology manager with none policy"`)
	hits := 0
	allocs := testing.AllocsPerRun(100, func() {
		a.Scan(text, func(int) { hits++ })
	})
	if allocs != 0 {
		t.Errorf("Scan allocated %v times per run, want 0", allocs)
	}
	if hits != 0 {
		t.Errorf("Scan reported %d hits on a line with none", hits)
	}
}

// FuzzAhoCorasick checks Scan against strings.Index on folded text: every
// pattern is reported exactly as often as it occurs (overlaps included).
func FuzzAhoCorasick(f *testing.F) {
	f.Add("he\nshe\nhis\nhers", "ushers and HIS")
	f.Add("aa\na", "aaaaa")
	f.Add("no config in chain\nUnauthorized", `{"level":"fatal","msg":"Command failed","error":"no config in chain"}`)
	f.Add("é\nÉ", "éÉ")
	f.Add("ab\nb\nbab", "abababab")
	f.Fuzz(func(t *testing.T, patternList string, text string) {
		var patterns []string
		for _, p := range strings.Split(patternList, "\n") {
			if p != "" && len(patterns) < 64 && len(p) <= 64 {
				patterns = append(patterns, p)
			}
		}
		if len(text) > 4096 {
			text = text[:4096]
		}
		a, err := Build(patterns)
		if err != nil {
			t.Fatalf("Build(%q): %v", patterns, err)
		}
		got := scanCounts(t, a, text)
		want := naiveCounts(patterns, text)
		if !slices.Equal(got, want) {
			t.Fatalf("patterns %q text %q: Scan counts %v, naive counts %v", patterns, text, got, want)
		}
	})
}

func BenchmarkScan(b *testing.B) {
	patterns := []string{
		"unauthorized", "no config in chain", "could not find nodeconfig",
		"is missing in cluster configuration", "successfully registered node",
		"insufficientfreeaddressesinsubnet", "cni plugin not initialized",
		"x509: certificate signed by unknown authority", "no space left on device",
	}
	a, err := Build(patterns)
	if err != nil {
		b.Fatal(err)
	}
	line := []byte(`Sep 11 10:57:09 ip-172-31-63-152 kubelet[9919]: I0911 10:57:09.520720    9919 topology_manager.go:138] "Creating topology manager with none policy"`)
	text := []byte(strings.Repeat(string(line)+"\n", 1000))
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		a.Scan(text, func(int) {})
	}
}
