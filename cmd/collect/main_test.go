package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodetriage/nodetriage/internal/collect/testroot"
	"github.com/nodetriage/nodetriage/internal/journal/journaltest"
)

func runCollect(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"collect"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func fakeNode(t *testing.T) string {
	t.Helper()
	dest := filepath.Join(t.TempDir(), "node")
	err := testroot.Materialize("al2023-nodeadm-failure", dest, func(dir string, export []byte) error {
		journaltest.Write(t, dir, export)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dest
}

func TestUsageErrorsExitTwo(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--frobnicate"}, "unknown flag"},
		{"bad format", []string{"--format", "rar"}, "unknown bundle format"},
		{"bad size", []string{"--max-size", "big"}, "--max-size"},
		{"bad since", []string{"--since", "yesterday"}, "--since"},
		{"bad backend", []string{"--journal-backend", "syslog"}, "--journal-backend"},
		{"stray argument", []string{"extra"}, "unexpected argument"},
		{"output folder missing", []string{"--root", t.TempDir(), "--no-imds", "--no-probes", "-o", "/nonexistent/dir/x.tar.gz"}, "no bundle written"},
		{"redact without bundle", []string{"redact"}, "exactly one BUNDLE"},
		{"redact missing bundle", []string{"redact", "/nonexistent.tar.gz"}, "cannot read the bundle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCollect(t, tt.args...)
			if code != exitNoBundle || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, exitNoBundle, tt.want)
			}
		})
	}
}

func TestVersionAndHelp(t *testing.T) {
	code, out, _ := runCollect(t, "--version")
	if code != exitOK || !strings.HasPrefix(out, "collect dev (commit unknown, journal backend ") {
		t.Fatalf("--version: %d %q", code, out)
	}
	code, _, errOut := runCollect(t, "--help")
	if code != exitOK || !strings.Contains(errOut, "--max-size") || !strings.Contains(errOut, "Exit codes") {
		t.Fatalf("--help: %d %q", code, errOut)
	}
}

func TestCollectThenRedact(t *testing.T) {
	root := fakeNode(t)
	out := t.TempDir()
	code, stdout, stderr := runCollect(t, "--root", root, "--no-imds", "--no-probes", "--output", out, "--max-size", "2MiB", "--journal-backend", "journalctl")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	path := strings.TrimSpace(stdout)
	if filepath.Dir(path) != out || !strings.Contains(stderr, "bundle: "+path) {
		t.Fatalf("stdout %q, stderr %q", stdout, stderr)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCollect(t, "redact", "-q", path)
	if code != exitOK || !strings.HasSuffix(strings.TrimSpace(stdout), "_redacted.tar.gz") || stderr != "" {
		t.Fatalf("redact: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
