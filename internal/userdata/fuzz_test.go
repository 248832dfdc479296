package userdata

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzLimits are small so that the size caps are exercised by short inputs.
var fuzzLimits = Limits{PartBytes: 4 << 10, TotalBytes: 16 << 10}

// addFixtures seeds a fuzz target with every text fixture.
func addFixtures(f *testing.F, patterns ...string) {
	f.Helper()
	for _, pattern := range patterns {
		files, err := filepath.Glob(filepath.Join("testdata", pattern))
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
}

// delimiterLines counts lines that open or close a part for boundary,
// ignoring indentation (Parse may recover from indented messages).
func delimiterLines(data []byte, boundary string) int {
	n := 0
	for _, line := range bytes.Split(data, []byte("\n")) {
		t := strings.Trim(string(line), " \t\r")
		if t == "--"+boundary || t == "--"+boundary+"--" {
			n++
		}
	}
	return n
}

func FuzzParse(f *testing.F) {
	addFixtures(f, "*.txt", "*.mime", "*.yaml", "*.json", "*.sh")
	f.Add([]byte("Content-Type: multipart/mixed; boundary=\"B\"\n\n--B\n\n--B\n--B--"))
	f.Add([]byte("MIME-Version: 1.0Content-Type: multipart/mixed\n\n--x\nContent-Type: application/node.eks.aws\nkind: NodeConfig\n"))
	f.Add(gzipBytes(f, []byte("#!/bin/sh\nnodeadm init\n")))
	f.Fuzz(func(t *testing.T, raw []byte) {
		u, err := ParseLimited(raw, fuzzLimits)
		if len(raw) == 0 {
			if err == nil {
				t.Fatal("empty input must give ErrNoUserData")
			}
			return
		}
		if err != nil || u == nil {
			t.Fatalf("Parse failed on non-empty input: %v", err)
		}
		if len(u.Decoded) > fuzzLimits.TotalBytes {
			t.Fatalf("Decoded is %d bytes, over the total cap", len(u.Decoded))
		}
		spent := len(u.Decoded)
		for i, p := range u.Parts {
			if p.Index != i+1 {
				t.Fatalf("part %d has Index %d", i+1, p.Index)
			}
			if len(p.Body) > fuzzLimits.PartBytes {
				t.Fatalf("part %d body is %d bytes, over the part cap", p.Index, len(p.Body))
			}
			if p.Encoding != "" {
				spent += len(p.Body)
			}
			if p.SeenByNodeadm && p.Kind != KindNodeConfig && p.MediaType != NodeConfigMediaType {
				t.Fatalf("part %d seen by nodeadm but neither NodeConfig nor %s", p.Index, NodeConfigMediaType)
			}
			_ = p.FileName()
		}
		if spent > fuzzLimits.TotalBytes {
			t.Fatalf("decoded %d bytes in total, over the cap", spent)
		}
		if u.MIME && u.Boundary != "" {
			if n := delimiterLines(u.Decoded, u.Boundary); len(u.Parts) > n {
				t.Fatalf("%d parts but only %d delimiter lines for %q", len(u.Parts), n, u.Boundary)
			}
		}
		if !u.MIME && len(u.Parts) != 1 {
			t.Fatalf("non-MIME user data gave %d parts", len(u.Parts))
		}
		for _, p := range u.Check(testNow) {
			if p.Code == "" || p.Message == "" || p.Line < 0 || p.Part < 0 || p.Part > len(u.Parts) {
				t.Fatalf("malformed problem %+v", p)
			}
		}
		_, _ = u.NodeConfig()
	})
}

// yamlLineBreaks bounds the number of line breaks a YAML parser may see:
// it counts \r and \n separately, and the Unicode breaks YAML 1.1 knows.
func yamlLineBreaks(b []byte) int {
	n := bytes.Count(b, []byte("\n")) + bytes.Count(b, []byte("\r"))
	for _, r := range []string{"\u0085", "\u2028", "\u2029"} {
		n += bytes.Count(b, []byte(r))
	}
	return n
}

func FuzzParseNodeConfig(f *testing.F) {
	addFixtures(f, "nodeconfig-*", "invalid/*.yaml")
	f.Add([]byte("{\"apiVersion\":\"node.eks.aws/v1alpha1\",\"spec\":{\"kubelet\":{\"config\":{\"maxPods\":1e3}}}}"))
	f.Add([]byte("a: &x [*x, *x]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		nc, probs, err := ParseNodeConfig(b)
		lines := yamlLineBreaks(b) + 1
		for _, p := range probs {
			if p.Line < 0 || p.Line > lines+1 {
				t.Fatalf("problem line %d outside 1..%d: %+v", p.Line, lines, p)
			}
		}
		if err == nil && nc == nil {
			t.Fatal("no error and no NodeConfig")
		}
		if err != nil && len(probs) == 0 {
			t.Fatal("an error without any Problem to explain it")
		}
		for _, p := range nc.Validate(testNow) {
			if p.Code == "" || p.Message == "" {
				t.Fatalf("malformed problem %+v", p)
			}
		}
		_ = nc.Labels()
		_, _ = nc.MaxPods()
		_, _ = nc.CAExpiry()
		_ = MergeNodeConfigs(nc, nc)
	})
}

func FuzzParseShell(f *testing.F) {
	addFixtures(f, "*.sh", "*.mime")
	f.Add([]byte("cat <<A <<'B'\na\nA\nb\nB\nnodeadm init -c file://x/y"))
	f.Add([]byte("X=\"$(echo \"(\")\" ; /etc/eks/bootstrap.sh c --kubelet-extra-args '--node-labels=a=$X'"))
	f.Add([]byte("f() { nodeadm init -c=imds://user-data; }\n$(( (1+2) ))\n`echo \\`x\\``"))
	f.Fuzz(func(t *testing.T, script []byte) {
		sh := ParseShell(script)
		lines := bytes.Count(script, []byte("\n")) + 1
		inRange := func(what string, n int) {
			if n < 1 || n > lines {
				t.Fatalf("%s line %d outside 1..%d", what, n, lines)
			}
		}
		for _, in := range sh.NodeadmInits {
			inRange("nodeadm init", in.Line)
		}
		for _, w := range sh.WrittenFiles {
			inRange("written file", w.Line)
		}
		if sh.Bootstrap != nil {
			inRange("bootstrap", sh.Bootstrap.Line)
		}
		if p, ok := sh.MissingFileSource(); ok {
			found := false
			for _, nc := range sh.NodeConfigFiles {
				found = found || nc == p
			}
			if !found {
				t.Fatalf("missing source %q is not a NodeConfig file", p)
			}
		}
		for _, p := range append(sh.AllProblems(), sh.Validate(testNow)...) {
			if p.Code == "" || p.Message == "" || p.Line < 0 {
				t.Fatalf("malformed problem %+v", p)
			}
		}
	})
}
