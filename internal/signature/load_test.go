package signature

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

const testSources = `sources:
  - name: kubelet
    paths: [kubelet/kubelet.log]
  - name: ipamd
    paths: ["var_log/aws-routed-eni/*.log", "var_log/kube-system_aws-node*/**"]
  - name: journal
    read_by_all: true
    paths: ["journal/**"]
`

// catalogFS builds a catalog directory from file name → content, adding
// the test sources.yaml unless one is given.
func catalogFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, content := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(content)}
	}
	if _, ok := files[SourcesFile]; !ok {
		fsys[SourcesFile] = &fstest.MapFile{Data: []byte(testSources)}
	}
	return fsys
}

func mustLoad(t testing.TB, files map[string]string) *Catalog {
	t.Helper()
	c, err := Load(catalogFS(files))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

// validHead is a valid signature; tests append lines to break it.
const validHead = `signatures:
  - id: sig-a
    title: A
    severity: error
    summary: s
    match:
      any:
        - literal: foo bar
`

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		kind  error
		want  string // substring of the error message
	}{
		{
			name:  "yaml syntax error names the line",
			files: map[string]string{"t.yaml": "signatures:\n  - id: a\n    title: [unclosed\n"},
			kind:  ErrSyntax,
			want:  "t.yaml:3: did not find expected ',' or ']'",
		},
		{
			name:  "unknown field in signature, with suggestion",
			files: map[string]string{"t.yaml": validHead + "    titel: x\n"},
			kind:  ErrUnknownField,
			want:  `t.yaml:9: signature "sig-a": unknown field "titel" (did you mean "title"?)`,
		},
		{
			name:  "unknown field in an item",
			files: map[string]string{"t.yaml": validHead + "          ignorecase: true\n"},
			kind:  ErrUnknownField,
			want:  `t.yaml:9: signature "sig-a": unknown field "ignorecase" (did you mean "ignore_case"?)`,
		},
		{
			name:  "unknown top-level key",
			files: map[string]string{"t.yaml": "signature: []\n"},
			kind:  ErrUnknownField,
			want:  `t.yaml:1: unknown field "signature" (did you mean "signatures"?)`,
		},
		{
			name:  "unknown field in sources.yaml",
			files: map[string]string{SourcesFile: "sources:\n  - name: x\n    path: [a]\n", "t.yaml": "signatures: []\n"},
			kind:  ErrUnknownField,
			want:  `sources.yaml:3: unknown field "path" (did you mean "paths"?)`,
		},
		{
			name:  "bad regex names file, line, id and field",
			files: map[string]string{"t.yaml": validHead + "        - regex: 'foo(bar'\n"},
			kind:  ErrBadRegex,
			want:  "t.yaml:9: signature \"sig-a\": regex: error parsing regexp: missing closing ): `foo(bar`",
		},
		{
			name:  "regex without derivable literal",
			files: map[string]string{"t.yaml": validHead + "        - regex: '\\d+\\s+\\w+'\n"},
			kind:  ErrNoLiteral,
			want:  `t.yaml:9: signature "sig-a": regex: no literal of 3 or more bytes`,
		},
		{
			name:  "regex whose only literal is too short",
			files: map[string]string{"t.yaml": validHead + "        - regex: '\\d+ms'\n"},
			kind:  ErrNoLiteral,
			want:  `t.yaml:9:`,
		},
		{
			name:  "declared literal not in the regex",
			files: map[string]string{"t.yaml": validHead + "        - regex: 'foo (bar|baz)'\n          literals: [qux]\n"},
			kind:  ErrNoLiteral,
			want:  `t.yaml:10: signature "sig-a": match.any[1].literals: "qux" does not occur literally`,
		},
		{
			name:  "literals on a literal item",
			files: map[string]string{"t.yaml": validHead + "        - literal: x\n          literals: [x]\n"},
			kind:  ErrInvalid,
			want:  `match.any[1].literals: only regex items take literals`,
		},
		{
			name:  "duplicate id in one file",
			files: map[string]string{"t.yaml": validHead + "  - id: sig-a\n    title: B\n    severity: info\n    summary: s\n    match: {any: [{literal: x}]}\n"},
			kind:  ErrDuplicate,
			want:  `t.yaml:9: signature "sig-a": id: already defined at t.yaml:2`,
		},
		{
			name: "duplicate id across files",
			files: map[string]string{
				"a.yaml": validHead,
				"b.yaml": validHead,
			},
			kind: ErrDuplicate,
			want: `b.yaml:2: signature "sig-a": id: already defined at a.yaml:2`,
		},
		{
			name:  "explains an unknown id",
			files: map[string]string{"t.yaml": validHead + "    explains: [nope]\n"},
			kind:  ErrUnknownReference,
			want:  `t.yaml:2: signature "sig-a": explains: no other signature has id "nope"`,
		},
		{
			name:  "explains itself",
			files: map[string]string{"t.yaml": validHead + "    explains: [sig-a]\n"},
			kind:  ErrUnknownReference,
			want:  `explains: no other signature has id "sig-a"`,
		},
		{
			name: "explains cycle",
			files: map[string]string{"t.yaml": validHead + "    explains: [sig-b]\n" +
				"  - id: sig-b\n    title: B\n    severity: info\n    summary: s\n    explains: [sig-a]\n    match: {any: [{literal: x}]}\n"},
			kind: ErrUnknownReference,
			want: `explains forms a cycle: sig-a -> sig-b -> sig-a`,
		},
		{
			name:  "unknown source",
			files: map[string]string{"t.yaml": validHead + "    sources: [kublet]\n"},
			kind:  ErrUnknownReference,
			want:  `sources: no source named "kublet"`,
		},
		{
			name:  "bad severity",
			files: map[string]string{"t.yaml": strings.Replace(validHead, "severity: error", "severity: fatal", 1)},
			kind:  ErrInvalid,
			want:  `t.yaml:4: signature "sig-a": severity: "fatal" is not critical, error, warning or info`,
		},
		{
			name:  "missing title",
			files: map[string]string{"t.yaml": strings.Replace(validHead, "    title: A\n", "", 1)},
			kind:  ErrInvalid,
			want:  `signature "sig-a": title: missing`,
		},
		{
			name:  "bad id",
			files: map[string]string{"t.yaml": strings.Replace(validHead, "sig-a", "Sig_A", 1)},
			kind:  ErrInvalid,
			want:  `t.yaml:2: signature "Sig_A": id: "Sig_A" must match`,
		},
		{
			name:  "any and all together",
			files: map[string]string{"t.yaml": validHead + "      all:\n        - literal: x\n"},
			kind:  ErrInvalid,
			want:  `match: use either any or all, not both`,
		},
		{
			name:  "neither match nor facts",
			files: map[string]string{"t.yaml": "signatures:\n  - id: a\n    title: A\n    severity: info\n    summary: s\n"},
			kind:  ErrInvalid,
			want:  `match: a signature needs a match, facts, or both`,
		},
		{
			name:  "wrong value type",
			files: map[string]string{"t.yaml": validHead + "      min_count: abc\n"},
			kind:  ErrSyntax,
			want:  "t.yaml:9: signature \"sig-a\": cannot unmarshal !!str `abc` into int",
		},
		{
			name:  "min_count below one",
			files: map[string]string{"t.yaml": validHead + "      min_count: 0\n"},
			kind:  ErrInvalid,
			want:  `t.yaml:9: signature "sig-a": match.min_count: must be at least 1`,
		},
		{
			name:  "bad window",
			files: map[string]string{"t.yaml": validHead + "      window: ten minutes\n"},
			kind:  ErrInvalid,
			want:  `t.yaml:9: signature "sig-a": match.window:`,
		},
		{
			name:  "condition with two operators",
			files: map[string]string{"t.yaml": validHead + "    facts:\n      - fact: userdata.kind\n        equals: shell\n        exists: true\n"},
			kind:  ErrInvalid,
			want:  `t.yaml:10: signature "sig-a": facts[0]: needs exactly one of`,
		},
		{
			name:  "condition with bad regex",
			files: map[string]string{"t.yaml": validHead + "    facts:\n      - fact: node.ami\n        matches: '('\n"},
			kind:  ErrBadRegex,
			want:  `t.yaml:11: signature "sig-a": facts[0].matches: error parsing regexp`,
		},
		{
			name:  "condition on a malformed fact name",
			files: map[string]string{"t.yaml": validHead + "    facts:\n      - fact: Cluster Name\n        exists: true\n"},
			kind:  ErrInvalid,
			want:  `facts[0].fact: "Cluster Name" is not a fact name`,
		},
		{
			name:  "unterminated template",
			files: map[string]string{"t.yaml": strings.Replace(validHead, "summary: s", "summary: 'cluster ${cluster.name'", 1)},
			kind:  ErrBadTemplate,
			want:  `t.yaml:5: signature "sig-a": summary: unterminated ${`,
		},
		{
			name:  "template names an undefined capture",
			files: map[string]string{"t.yaml": validHead + "    fix: ['look at ${capture.where}']\n"},
			kind:  ErrBadTemplate,
			want:  `fix[0]: ${capture.where}: no regex of this signature has a group named "where"`,
		},
		{
			name:  "milestone with a severity",
			files: map[string]string{"t.yaml": validHead + "    milestone: booted\n"},
			kind:  ErrInvalid,
			want:  `severity: a milestone is always info`,
		},
		{
			name:  "reference that is not a URL",
			files: map[string]string{"t.yaml": validHead + "    references: [see the docs]\n"},
			kind:  ErrInvalid,
			want:  `references: "see the docs" is not an http(s) URL`,
		},
		{
			name:  "bad glob in sources.yaml",
			files: map[string]string{SourcesFile: "sources:\n  - name: x\n    paths: ['kubelet/[x']\n", "t.yaml": "signatures: []\n"},
			kind:  ErrInvalid,
			want:  `sources.yaml:3: paths: source "x": path pattern "kubelet/[x": syntax error in pattern`,
		},
		{
			name:  "duplicate source",
			files: map[string]string{SourcesFile: "sources:\n  - name: x\n    paths: [a]\n  - name: x\n    paths: [b]\n", "t.yaml": "signatures: []\n"},
			kind:  ErrDuplicate,
			want:  `sources.yaml:4: name: source "x" already defined at sources.yaml:2`,
		},
		{
			name:  "repeated key",
			files: map[string]string{"t.yaml": validHead + "    title: again\n"},
			kind:  ErrSyntax,
			want:  `t.yaml:9: signature "sig-a": title: key repeated (first at line 3)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(catalogFS(tt.files))
			if err == nil {
				t.Fatalf("Load succeeded with %d signatures, want an error", len(c.Signatures()))
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("error %q is not %v", err, tt.kind)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q\ndoes not contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadReportsEveryBrokenSignature(t *testing.T) {
	files := map[string]string{"t.yaml": `signatures:
  - id: one
    title: One
    severity: bogus
    summary: s
    match: {any: [{literal: x}]}
  - id: two
    title: Two
    severity: info
    summary: s
    match: {any: [{regex: '(x'}]}
  - id: three
    title: Three
    severity: info
    summary: s
    match: {any: [{literal: fine}]}
`}
	_, err := Load(catalogFS(files))
	if err == nil {
		t.Fatal("Load succeeded, want errors")
	}
	for _, want := range []string{`t.yaml:4: signature "one": severity`, `t.yaml:11: signature "two": regex`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	var le *LoadError
	if !errors.As(err, &le) {
		t.Errorf("errors.As(*LoadError) failed on %v", err)
	}
}

func TestLoadNoFiles(t *testing.T) {
	if _, err := Load(fstest.MapFS{"README.md": {Data: []byte("x")}}); !errors.Is(err, ErrNoFiles) {
		t.Fatalf("Load of a folder without YAML: err = %v, want ErrNoFiles", err)
	}
}

func TestLoadFullSignature(t *testing.T) {
	c := mustLoad(t, map[string]string{"ipamd.yaml": `signatures:
  - id: ipamd-no-ips
    title: Subnet out of IPs
    severity: critical
    root_cause: true
    sources: [ipamd]
    match:
      all:
        - literal: InsufficientFreeAddressesInSubnet
        - regex: 'failed to allocate (?P<what>IP|prefix)'
          ignore_case: true
      not:
        - literal: retrying
      min_count: 3
      window: 10m
    facts:
      - fact: cni.prefix_delegation
        equals: "false"
      - fact: node.max_pods
        gt: 20
    explains: [pods-stuck]
    confidence: medium
    summary: The subnet ran out of addresses (${capture.what}).
    fix:
      - Add a CIDR to ${cluster.name}.
    references: [https://example.com/ips]
  - id: pods-stuck
    title: Pods stuck
    severity: warning
    summary: pods stuck
    match:
      any:
        - literal: ContainerCreating
`})
	s := c.Lookup("ipamd-no-ips")
	if s == nil {
		t.Fatal("Lookup(ipamd-no-ips) = nil")
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"severity", s.Severity, Critical},
		{"component defaults to the file name", s.Component, "ipamd"},
		{"root cause", s.RootCause, true},
		{"mode", s.Match.Mode, All},
		{"items", len(s.Match.Items), 2},
		{"not items", len(s.Match.Not), 1},
		{"min count", s.Match.MinCount, 3},
		{"window", s.Match.Window, 10 * time.Minute},
		{"regex carries (?i)", s.Match.Items[1].Regex.String(), "(?i)failed to allocate (?P<what>IP|prefix)"},
		{"derived literals", strings.Join(s.Match.Items[1].Literals, "|"), "failed to allocate ip|failed to allocate prefix"},
		{"conditions", len(s.Facts), 2},
		{"second condition op", s.Facts[1].Op, OpGreater},
		{"confidence", s.Confidence, Medium},
		{"file", s.File, "ipamd.yaml"},
		{"line", s.Line, 2},
		{"item line", s.Match.Items[1].Line, 10},
		{"default confidence", c.Lookup("pods-stuck").Confidence, High},
		{"default min count", c.Lookup("pods-stuck").Match.MinCount, 1},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

func TestOverlay(t *testing.T) {
	base := mustLoad(t, map[string]string{"k.yaml": validHead + `  - id: sig-b
    title: B
    severity: warning
    summary: s
    match: {any: [{literal: bbb}]}
`})
	extra := catalogFS(map[string]string{"x.yaml": `signatures:
  - id: sig-a
    title: A replaced
    severity: critical
    sources: [kubelet]
    summary: s
    match: {any: [{literal: aaa}]}
  - id: sig-c
    title: C
    severity: critical
    sources: [kubelet]
    explains: [sig-b]
    summary: s
    match: {any: [{literal: ccc}]}
`})
	delete(extra, SourcesFile) // the overlay relies on the base's sources
	merged, err := base.Overlay(extra)
	if err != nil {
		t.Fatalf("Overlay: %v", err)
	}
	var ids []string
	for _, s := range merged.Signatures() {
		ids = append(ids, s.ID)
	}
	if got := strings.Join(ids, ","); got != "sig-a,sig-b,sig-c" {
		t.Errorf("merged order = %s, want sig-a,sig-b,sig-c", got)
	}
	if got := merged.Lookup("sig-a").Title; got != "A replaced" {
		t.Errorf("sig-a title = %q, want the overlay's", got)
	}
	if got := base.Lookup("sig-a").Title; got != "A" {
		t.Errorf("Overlay modified the base catalog: title %q", got)
	}
	if _, err := Load(extra); !errors.Is(err, ErrUnknownReference) {
		t.Errorf("loading the overlay alone: err = %v, want ErrUnknownReference (it needs the base)", err)
	}
}

func TestMerge(t *testing.T) {
	base := mustLoad(t, map[string]string{"k.yaml": validHead})
	extra := mustLoad(t, map[string]string{
		"k.yaml":    strings.Replace(validHead, "title: A", "title: A2", 1),
		SourcesFile: "sources:\n  - name: kubelet\n    paths: [other/kubelet.log]\n  - name: extra\n    paths: [x/*]\n",
	})
	merged := base.Merge(extra)
	if got := merged.Lookup("sig-a").Title; got != "A2" {
		t.Errorf("merged title = %q, want A2", got)
	}
	var names []string
	for _, s := range merged.Sources() {
		names = append(names, s.Name+"="+strings.Join(s.Paths, ";"))
	}
	want := "kubelet=other/kubelet.log,ipamd=var_log/aws-routed-eni/*.log;var_log/kube-system_aws-node*/**,journal=journal/**,extra=x/*"
	if got := strings.Join(names, ","); got != want {
		t.Errorf("merged sources = %s\nwant %s", got, want)
	}
}

func TestLoadDir(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"k.yaml": validHead, SourcesFile: testSources, "notes.txt": "ignored"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c, err := LoadDir(dir)
	if err != nil {
		t.Fatalf("LoadDir: %v", err)
	}
	if len(c.Signatures()) != 1 || len(c.Sources()) != 3 {
		t.Errorf("LoadDir found %d signatures and %d sources, want 1 and 3", len(c.Signatures()), len(c.Sources()))
	}
	if _, err := LoadDir(filepath.Join(dir, "missing")); err == nil {
		t.Error("LoadDir of a missing folder succeeded")
	}
}

// FuzzLoad feeds arbitrary bytes as a catalog file: Load must not panic,
// and must either fail or return signatures that passed validation.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(validHead))
	f.Add([]byte("signatures:\n  - id: a\n    title: [unclosed\n"))
	f.Add([]byte("signatures:\n  - &x {id: a}\n  - *x\n"))
	f.Add([]byte("signatures:\n  - id: a\n    title: A\n    severity: info\n    summary: s\n    match: {all: [{regex: '(?i)k+s'}]}\n    facts: [{fact: a.b, in: [x]}]\n"))
	f.Add([]byte("signatures: 3\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Load(catalogFS(map[string]string{"f.yaml": string(data)}))
		if err != nil {
			return
		}
		for _, s := range c.Signatures() {
			if !idPattern.MatchString(s.ID) || s.Title == "" || s.Severity < Info || s.Severity > Critical {
				t.Fatalf("Load accepted an invalid signature: %+v", s)
			}
			if s.Match != nil {
				for _, it := range s.Match.Items {
					if len(it.Literals) == 0 {
						t.Fatalf("signature %s has an item without prefilter literals", s.ID)
					}
				}
			}
		}
		if _, err := c.Compile(); err != nil {
			t.Fatalf("Compile of a loaded catalog failed: %v", err)
		}
	})
}
