package signature

import (
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

func TestDeriveLiterals(t *testing.T) {
	tests := []struct {
		regex string
		want  []string // nil: nothing usable
	}{
		{`no config in chain`, []string{"no config in chain"}},
		{`could not find NodeConfig within (?P<where>UserData)`, []string{"could not find nodeconfig within userdata"}},
		{`(ip|nf)_conntrack: table full, dropping packet`, []string{"ip_conntrack: table full, dropping packet", "nf_conntrack: table full, dropping packet"}},
		{`watchdog: BUG: soft lockup - .* stuck for (.*)! \[(.*?).*\]`, []string{"watchdog: bug: soft lockup - "}},
		{`\s(.*?)\[\d+]: segfault at.*`, []string{"]: segfault at"}},
		{`task (.*?):\d+ blocked for more than`, []string{" blocked for more than"}},
		{`foo|barbaz`, []string{"barbaz", "foo"}},
		{`[Ee]rror: \d+`, []string{"error: "}},
		{`colou?r mismatch`, []string{"color mismatch", "colour mismatch"}},
		{`abc(?:def)*ghi`, []string{"abc"}}, // both are required; one suffices
		{`(?:abcdef)+`, []string{"abcdef"}},
		{`x{3}yz`, []string{"xxxyz"}},
		{`^Started kubelet$`, []string{"started kubelet"}},
		// case folding: k and s fold to non-ASCII runes, é is not ASCII
		{`(?i)kubelet unhealthy`, []string{"ubelet unhealthy"}},
		{`(?i)ks`, nil},
		{`(?i)éclair`, []string{"clair"}},
		{`(?i)[k]ubelet`, []string{"kubelet", "\u212aubelet"}},
		// U+FFFD matches invalid UTF-8 and is never used
		{"ab\ufffdcdef", []string{"cdef"}},
		{`\d+\s+\w+`, nil},
		{`\d+ms`, nil},
		{`a.b.c.d`, nil},
		{`(?:foo|\d+)bar`, []string{"bar"}},
		{`(?:foobar|\w+)`, nil},
		{``, nil},
	}
	for _, tt := range tests {
		t.Run(tt.regex, func(t *testing.T) {
			re, err := syntax.Parse(tt.regex, syntax.Perl)
			if err != nil {
				t.Fatal(err)
			}
			got := deriveLiterals(re)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("deriveLiterals(%q) = %q, want %q", tt.regex, got, tt.want)
			}
		})
	}
}

func TestMinimizeSet(t *testing.T) {
	got := minimizeSet([]string{"abc", "xabcx", "def", "def"})
	if !slices.Equal(got, []string{"abc", "def"}) {
		t.Errorf("minimizeSet = %q, want [abc def]", got)
	}
}

func TestLiteralRuns(t *testing.T) {
	re, err := syntax.Parse(`Failed to (?:pull|fetch) image "(?P<x>[^"]+)"`, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(literalRuns(re), "|")
	for _, want := range []string{"failed to ", "pull", "fetch", ` image "`} {
		if !strings.Contains(got, want) {
			t.Errorf("literalRuns = %q, lacks %q", got, want)
		}
	}
}
