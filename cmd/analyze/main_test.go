package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

const bundles = "../../testdata/bundles/"

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	quiet := filepath.Join(dir, "quiet.log")
	os.WriteFile(quiet, []byte("nothing to see here\n"), 0o600)
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"findings", []string{bundles + "seed2-al2023-kubelet-unauthorized"}, exitFindings},
		{"nothing serious", []string{quiet}, exitClean},
		{"missing bundle", []string{filepath.Join(dir, "nope.tar.gz")}, exitUsage},
		{"no argument", []string{}, exitUsage},
		{"bad format", []string{"--format", "yaml", quiet}, exitUsage},
		{"unknown flag", []string{"--frobnicate", quiet}, exitUsage},
		{"help", []string{"--help"}, exitClean},
		{"list", []string{"--list"}, exitClean},
		{"explain unknown", []string{"--explain", "no-such-id"}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != tt.want {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.want, stderr)
			}
		})
	}
}

func TestMissingBundleErrorNamesFile(t *testing.T) {
	_, _, stderr := runCLI(t, "/no/such/bundle.tar.gz")
	if !strings.Contains(stderr, "/no/such/bundle.tar.gz") {
		t.Errorf("stderr %q does not name the file", stderr)
	}
}

func TestBadPatternsNameFileAndLine(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"bad yaml", "signatures:\n  - id: x\n    title: [unclosed\n", "bad.yaml:3"},
		{"bad regex", "signatures:\n  - id: x-bad\n    title: t\n    severity: error\n    match:\n      any:\n        - regex: 'abc(def'\n", "bad.yaml:7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte(tt.yaml), 0o600)
			code, _, stderr := runCLI(t, "--patterns", dir, "--list")
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 naming %s", code, stderr, tt.want)
			}
		})
	}
}

func TestPatternsOverride(t *testing.T) {
	dir := t.TempDir()
	extra := "signatures:\n  - id: demo-extra\n    title: Quiet words\n    severity: warning\n    match:\n      any:\n        - literal: nothing to see\n    summary: a test signature\n"
	os.WriteFile(filepath.Join(dir, "extra.yaml"), []byte(extra), 0o600)
	log := filepath.Join(dir, "console.log")
	os.WriteFile(log, []byte("nothing to see here\n"), 0o600)
	code, out, stderr := runCLI(t, "--patterns", dir, "--format", "json", log)
	if code != exitFindings {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if !strings.Contains(out, `"demo-extra"`) {
		t.Errorf("the added signature did not fire:\n%s", out)
	}
}

func TestJSONSchema(t *testing.T) {
	_, out, _ := runCLI(t, "--format", "json", bundles+"seed1-al2023-nodeconfig-not-passed", bundles+"seed2-al2023-kubelet-unauthorized")
	var r struct {
		Schema  int `json:"schema"`
		Bundles []struct {
			Path     string `json:"path"`
			Findings []struct {
				ID        string   `json:"id"`
				RootCause bool     `json:"root_cause"`
				Fix       []string `json:"fix"`
				Evidence  []struct {
					File string `json:"file"`
				} `json:"evidence"`
			} `json:"findings"`
		} `json:"bundles"`
		Fleet *struct {
			Causes []struct {
				ID    string `json:"id"`
				Nodes []any  `json:"nodes"`
			} `json:"causes"`
		} `json:"fleet"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if r.Schema != 1 || len(r.Bundles) != 2 || r.Fleet == nil || len(r.Fleet.Causes) == 0 {
		t.Fatalf("unexpected report shape: %+v", r)
	}
	for _, b := range r.Bundles {
		if len(b.Findings) == 0 || !b.Findings[0].RootCause {
			t.Errorf("%s: first finding is not a root cause: %+v", b.Path, b.Findings)
		}
	}
}

func TestExportAndDumpPatterns(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "patterns.txt")
	if code, _, stderr := runCLI(t, "--export-patterns", file); code != exitClean {
		t.Fatalf("export: %d %s", code, stderr)
	}
	data, _ := os.ReadFile(file)
	if !strings.Contains(string(data), `no config in chain`) {
		t.Errorf("exported patterns lack a known literal:\n%s", data)
	}
	dump := filepath.Join(dir, "dump")
	if code, _, stderr := runCLI(t, "--dump-patterns", dump); code != exitClean {
		t.Fatalf("dump: %d %s", code, stderr)
	}
	if code, out, stderr := runCLI(t, "--patterns", dump, "--list"); code != exitClean || !strings.Contains(out, "signatures") {
		t.Errorf("dumped catalog does not load back: %d %s", code, stderr)
	}
}

func TestExpandInputs(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.tar.gz", "b.zip", "notes.txt"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600)
	}
	os.MkdirAll(filepath.Join(dir, "c", "kubelet"), 0o755)
	os.MkdirAll(filepath.Join(dir, "i-0abc"), 0o755)
	os.WriteFile(filepath.Join(dir, "i-0abc", "eks_i-0abc.tar.gz"), []byte("x"), 0o600)
	got, _ := expandInputs([]string{dir})
	want := []string{filepath.Join(dir, "a.tar.gz"), filepath.Join(dir, "b.zip"), filepath.Join(dir, "c"), filepath.Join(dir, "i-0abc", "eks_i-0abc.tar.gz")}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("expandInputs = %v, want %v", got, want)
	}
	bundleDir := filepath.Join(dir, "c")
	if got, _ := expandInputs([]string{bundleDir}); len(got) != 1 || got[0] != bundleDir {
		t.Errorf("a bundle folder must stand for itself: %v", got)
	}
}
