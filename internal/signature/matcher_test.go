package signature

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// matcherCatalog exercises every matching feature; its signatures read
// every file so one FileMatcher sees them all.
const matcherCatalog = `signatures:
  - id: any-literal
    title: t
    severity: error
    summary: s
    match:
      any:
        - literal: no config in chain
        - literal: could not find NodeConfig

  - id: case-sensitive
    title: t
    severity: error
    summary: s
    match:
      any:
        - literal: Unauthorized

  - id: ignore-case-literal
    title: t
    severity: error
    summary: s
    match:
      any:
        - literal: x509
          ignore_case: true
        - literal: Certificate Signed By Unknown Authority
          ignore_case: true

  - id: regex-captures
    title: t
    severity: error
    summary: s
    match:
      any:
        - regex: '(?P<field>Name|CIDR) is missing in cluster configuration'

  - id: ignore-case-regex
    title: t
    severity: error
    summary: s
    match:
      any:
        - regex: 'no space left on (?P<what>device|disk)'
          ignore_case: true

  - id: with-not
    title: t
    severity: warning
    summary: s
    match:
      any:
        - literal: i/o timeout
      not:
        - literal: 169.254.169.254
        - regex: 'timeout.*(?:retrying|will retry)'

  - id: all-items
    title: t
    severity: warning
    summary: s
    match:
      all:
        - literal: Starting L-IPAMD
        - regex: 'Unable to reach API Server(?: at (?P<host>\S+))?'

  - id: declared-literals
    title: t
    severity: warning
    summary: s
    match:
      any:
        - regex: 'Failed to (?:pull|fetch) image "(?P<image>[^"]+)"'
          literals: [Failed to, 'image "']
`

type wantHit struct {
	id       string
	item     int
	captures map[string]string
}

func TestMatch(t *testing.T) {
	m := compileTest(t, matcherCatalog)
	fm := m.ForAll()
	tests := []struct {
		name string
		line string
		want []wantHit
	}{
		{"nothing", `I0911 10:57:09.520720 9919 topology_manager.go:138] "Creating topology manager with none policy"`, nil},
		{"literal", `fatal cli/main.go:35 Command failed {"error": "no config in chain"}`, []wantHit{{"any-literal", 0, nil}}},
		{"any reports the first matching item once",
			`could not find NodeConfig within UserData; no config in chain`, []wantHit{{"any-literal", 0, nil}}},
		{"second item", `warn Encountered error in config provider {"error": "could not find NodeConfig within UserData"}`, []wantHit{{"any-literal", 1, nil}}},
		{"case-sensitive literal", `"Unable to register node with API server" err="Unauthorized"`, []wantHit{{"case-sensitive", 0, nil}}},
		{"case-sensitive literal in other case", `HTTP 401 UNAUTHORIZED`, nil},
		{"ignore_case literal", `tls: X509: certificate signed by unknown authority`, []wantHit{{"ignore-case-literal", 0, nil}}},
		{"ignore_case second item", `CERTIFICATE SIGNED BY UNKNOWN AUTHORITY`, []wantHit{{"ignore-case-literal", 1, nil}}},
		{"regex captures", `fatal cli/main.go:35 Command failed {"error": "CIDR is missing in cluster configuration"}`,
			[]wantHit{{"regex-captures", 0, map[string]string{"field": "CIDR"}}}},
		{"regex prefiltered but not matching", `Apiserver endpoint is missing in cluster configuration`, nil},
		{"ignore_case regex", `write /var/lib/x: No Space Left On Device`,
			[]wantHit{{"ignore-case-regex", 0, map[string]string{"what": "Device"}}}},
		{"not absent", `dial tcp 10.0.0.1:443: i/o timeout`, []wantHit{{"with-not", 0, nil}}},
		{"not literal present", `dial tcp 169.254.169.254:80: i/o timeout`, nil},
		{"not regex present", `dial tcp 10.0.0.1:443: i/o timeout, will retry`, nil},
		{"all first item", `Starting L-IPAMD 1.18.0`, []wantHit{{"all-items", 0, nil}}},
		{"all second item with capture", `Unable to reach API Server at 10.100.0.1:443`,
			[]wantHit{{"all-items", 1, map[string]string{"host": "10.100.0.1:443"}}}},
		{"all second item optional capture absent", `Unable to reach API Server`,
			[]wantHit{{"all-items", 1, map[string]string{}}}},
		{"all reports every item on one line", `Starting L-IPAMD; Unable to reach API Server`,
			[]wantHit{{"all-items", 0, nil}, {"all-items", 1, map[string]string{}}}},
		{"declared literals", `Failed to fetch image "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/pause:3.5"`,
			[]wantHit{{"declared-literals", 0, map[string]string{"image": "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/pause:3.5"}}}},
		{"several signatures on one line", `no config in chain: Unauthorized`,
			[]wantHit{{"any-literal", 0, nil}, {"case-sensitive", 0, nil}}},
		{"empty line", ``, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fm.Match([]byte(tt.line), nil)
			if len(got) != len(tt.want) {
				t.Fatalf("Match = %s, want %v", describeHits(m, got), tt.want)
			}
			for i, h := range got {
				w := tt.want[i]
				if m.Signature(h.Sig).ID != w.id || h.Item != w.item || !maps.Equal(h.Captures, w.captures) ||
					(h.Captures == nil) != (w.captures == nil) {
					t.Errorf("hit %d = %s, want %+v", i, describeHits(m, got[i:i+1]), w)
				}
			}
		})
	}
}

func describeHits(m *Matcher, hits []Hit) string {
	var parts []string
	for _, h := range hits {
		parts = append(parts, fmt.Sprintf("%s[%d]%v", m.Signature(h.Sig).ID, h.Item, h.Captures))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func TestMatchAppendsToDst(t *testing.T) {
	m := compileTest(t, matcherCatalog)
	fm := m.ForAll()
	dst := fm.Match([]byte("no config in chain"), nil)
	dst = fm.Match([]byte("nothing here"), dst)
	dst = fm.Match([]byte("Unauthorized"), dst)
	if len(dst) != 2 || m.Signature(dst[1].Sig).ID != "case-sensitive" {
		t.Errorf("hits after three lines = %s, want any-literal then case-sensitive", describeHits(m, dst))
	}
}

func TestMatchNoMatchAllocatesNothing(t *testing.T) {
	m := compileTest(t, matcherCatalog)
	fm := m.ForAll()
	lines := [][]byte{
		[]byte(`Sep 11 10:57:09 ip-172-31-63-152 kubelet[9919]: I0911 10:57:09.533017    9919 volume_manager.go:291] "Starting Kubelet Volume Manager"`),
		// passes the prefilter (holds "Name is missing") but no regex matches
		[]byte(`Apiserver endpoint Name  is missing in cluster configuration`),
		// passes the prefilter, fails the case-sensitive confirmation
		[]byte(`UNAUTHORIZED`),
	}
	dst := make([]Hit, 0, 4)
	for _, line := range lines {
		allocs := testing.AllocsPerRun(200, func() {
			dst = fm.Match(line, dst[:0])
		})
		if allocs != 0 || len(dst) != 0 {
			t.Errorf("Match(%q): %v allocations, %d hits; want 0 and 0", line, allocs, len(dst))
		}
	}
}

func TestMatchEpochWrap(t *testing.T) {
	m := compileTest(t, matcherCatalog)
	fm := m.ForAll()
	fm.epoch = ^uint32(0) - 1
	for i := 0; i < 4; i++ {
		if got := fm.Match([]byte("no config in chain"), nil); len(got) != 1 {
			t.Fatalf("after %d calls near the epoch wrap: %d hits, want 1", i, len(got))
		}
	}
}

// tallyAdd is one hit given to a Tally in TestTally.
type tallyAdd struct {
	id   string
	item int
	at   time.Duration // offset from t0; negative means no time
}

func TestTally(t *testing.T) {
	m := compileTest(t, `signatures:
  - id: once
    title: t
    severity: error
    summary: s
    match: {any: [{literal: aaa}, {literal: bbb}]}
  - id: thrice-in-window
    title: t
    severity: error
    summary: s
    match:
      any: [{literal: ccc}]
      min_count: 3
      window: 5m
  - id: both
    title: t
    severity: error
    summary: s
    match:
      all: [{literal: ddd}, {literal: eee}]
      min_count: 2
  - id: fact-check
    title: t
    severity: error
    summary: s
    facts: [{fact: a.b, exists: true}]
`)
	idx := map[string]int{}
	for i := range m.Len() {
		idx[m.Signature(i).ID] = i
	}
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		adds []tallyAdd
		sig  string
		want bool
	}{
		{"no hits", nil, "once", false},
		{"one hit of any item", []tallyAdd{{"once", 1, 0}}, "once", true},
		{"count below min", []tallyAdd{{"thrice-in-window", 0, 0}, {"thrice-in-window", 0, time.Minute}}, "thrice-in-window", false},
		{"three within window", []tallyAdd{{"thrice-in-window", 0, 0}, {"thrice-in-window", 0, 9 * time.Minute}, {"thrice-in-window", 0, 10 * time.Minute}, {"thrice-in-window", 0, 12 * time.Minute}}, "thrice-in-window", true},
		{"three spread too far", []tallyAdd{{"thrice-in-window", 0, 0}, {"thrice-in-window", 0, 6 * time.Minute}, {"thrice-in-window", 0, 12 * time.Minute}}, "thrice-in-window", false},
		{"out of order times", []tallyAdd{{"thrice-in-window", 0, 20 * time.Minute}, {"thrice-in-window", 0, 0}, {"thrice-in-window", 0, 21 * time.Minute}, {"thrice-in-window", 0, 22 * time.Minute}}, "thrice-in-window", true},
		{"untimed hits only: count decides", []tallyAdd{{"thrice-in-window", 0, -1}, {"thrice-in-window", 0, -1}, {"thrice-in-window", 0, -1}}, "thrice-in-window", true},
		{"all needs every item", []tallyAdd{{"both", 0, 0}, {"both", 0, 0}}, "both", false},
		{"all items min count each", []tallyAdd{{"both", 0, 0}, {"both", 0, 0}, {"both", 1, 0}}, "both", false},
		{"all satisfied", []tallyAdd{{"both", 0, 0}, {"both", 1, 0}, {"both", 0, 0}, {"both", 1, 0}}, "both", true},
		{"pure fact check", nil, "fact-check", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tally := m.NewTally()
			for _, a := range tt.adds {
				at := time.Time{}
				if a.at >= 0 {
					at = t0.Add(a.at)
				}
				tally.Add(Hit{Sig: idx[a.id], Item: a.item}, at)
			}
			if got := tally.Satisfied(idx[tt.sig]); got != tt.want {
				t.Errorf("Satisfied(%s) = %v, want %v", tt.sig, got, tt.want)
			}
			if got := tally.Count(idx[tt.sig]); got != countFor(tt.adds, tt.sig) {
				t.Errorf("Count(%s) = %d, want %d", tt.sig, got, countFor(tt.adds, tt.sig))
			}
		})
	}
}

func countFor(adds []tallyAdd, id string) int {
	n := 0
	for _, a := range adds {
		if a.id == id {
			n++
		}
	}
	return n
}

// naiveMatch is the reference for Match: every item of every signature is
// tried on the line without any prefilter.
func naiveMatch(m *Matcher, fm *FileMatcher, line []byte) []Hit {
	var hits []Hit
	for _, si := range fm.Signatures() {
		match := m.Signature(si).Match
		var sigHits []Hit
		for ii := range match.Items {
			it := &match.Items[ii]
			if !naiveItem(it, line) {
				continue
			}
			h := Hit{Sig: si, Item: ii}
			if it.hasCapture {
				h.Captures = map[string]string{}
				loc := it.Regex.FindSubmatchIndex(line)
				for gi, name := range it.Regex.SubexpNames() {
					if name != "" && loc[2*gi] >= 0 {
						h.Captures[name] = string(line[loc[2*gi]:loc[2*gi+1]])
					}
				}
			}
			sigHits = append(sigHits, h)
			if match.Mode == Any {
				break
			}
		}
		excluded := slices.ContainsFunc(match.Not, func(it Item) bool { return naiveItem(&it, line) })
		if !excluded {
			hits = append(hits, sigHits...)
		}
	}
	return hits
}

func naiveItem(it *Item, line []byte) bool {
	switch {
	case it.Regex != nil:
		return it.Regex.Match(line)
	case it.IgnoreCase:
		return bytes.Contains(bytes.ToLower(asciiLower(line)), asciiLower([]byte(it.Literal)))
	default:
		return bytes.Contains(line, []byte(it.Literal))
	}
}

func asciiLower(b []byte) []byte {
	out := slices.Clone(b)
	for i, c := range out {
		out[i] = lowerByte(c)
	}
	return out
}

// fuzzMatcher compiles the embedded catalog, the benchmark catalog and
// fuzzCatalog together: every kind of pattern the matcher has to handle.
func fuzzMatcher(t testing.TB) *Matcher {
	c, err := benchCatalog(t).Overlay(fstest.MapFS{"fuzz.yaml": {Data: []byte(fuzzCatalog)}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.Compile()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fuzzCatalog adds regexes that stress the literal derivation (case
// folding with k and s, alternations, classes, optional parts, U+FFFD) to
// the matcher catalog.
const fuzzCatalog = matcherCatalog + `
  - id: fold-tricky
    title: t
    severity: info
    summary: s
    match:
      any:
        - regex: '(?i)kubelet (?:is )?unhealthy'
        - regex: '(?i)status: (?:ok|fail(?:ed)?) [x-z]{2}'
        - regex: 'a\x{fffd}bcd|[Éé]tat critique'
        - regex: 'e[a-c]rr(?:or|no)=\d+'
        - regex: '(?:^|\s)panic: '
        - regex: 'ﬀ(?i)straße'
        - literal: 'Straße'
          ignore_case: true
`

func FuzzMatch(f *testing.F) {
	seeds := []string{
		"no config in chain", "KUBELET unhealthy", "kubelet is unhealthy", "\u212aubelet unhealthy",
		"status: FAILED xy", "a\xffbcd", "a\ufffdbcd", "État critique", "ebrrno=12", "panic: x", "xpanic: ",
		"Unable to reach API Server at 1.2.3.4", "dial tcp 169.254.169.254:80: i/o timeout", "STRASSE",
		"ﬀSTRASSE", "ﬀstraße", "straße", "STRAßE", "CIDR is missing in cluster configuration",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	for _, s := range slices.Concat(kubeletHits, ipamdHits) {
		f.Add([]byte(s))
	}
	m := fuzzMatcher(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		fm := m.ForAll()
		got := fm.Match(line, nil)
		want := naiveMatch(m, fm, line)
		if len(got) != len(want) {
			t.Fatalf("line %q: Match %s, naive %s", line, describeHits(m, got), describeHits(m, want))
		}
		for i := range got {
			if got[i].Sig != want[i].Sig || got[i].Item != want[i].Item || !maps.Equal(got[i].Captures, want[i].Captures) {
				t.Fatalf("line %q: Match %s, naive %s", line, describeHits(m, got), describeHits(m, want))
			}
		}
	})
}

// TestMatcherAgreesWithNaive compares Match with the unfiltered reference
// on generated log lines, the hit lines and the tricky seeds, for every
// routing of the fuzz catalog.
func TestMatcherAgreesWithNaive(t *testing.T) {
	m := fuzzMatcher(t)
	rng := rand.New(rand.NewPCG(3, 4))
	files := []benchFile{
		generateFile("kubelet/kubelet.log", 1<<20, rng, kubeletLine, kubeletHits),
		generateFile("var_log/aws-routed-eni/ipamd.log", 1<<19, rng, ipamdLine, ipamdHits),
	}
	extra := [][]byte{[]byte(healthyKubelet), []byte(healthyNodeadm)}
	for _, s := range slices.Concat(kubeletHits, ipamdHits) {
		extra = append(extra, []byte(s))
	}
	for _, f := range files {
		lines := slices.Concat(f.lines, extra)
		for _, fm := range []*FileMatcher{m.ForPath(f.path), m.ForAll()} {
			for _, line := range lines {
				got, want := fm.Match(line, nil), naiveMatch(m, fm, line)
				if describe := describeHits(m, got); describe != describeHits(m, want) {
					t.Fatalf("%s: line %q: Match %s, naive %s", f.path, line, describe, describeHits(m, want))
				}
			}
		}
	}
}
