package source

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeTools puts scripts on PATH, in front of the real tools.
func fakeTools(t *testing.T, scripts map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

// alive tells whether pid is a running process (zombies count as gone).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, state, _ := parseProcStat(stat)
	return state != "Z" && state != "X"
}

func TestCommandOutcomes(t *testing.T) {
	dir := fakeTools(t, map[string]string{
		"fake-ok":   "echo hello from the node\n",
		"fake-fail": "echo partial output\necho 'permission denied' >&2\nexit 3\n",
	})
	_ = dir
	live := openTree(t, "/")
	mounted := openTree(t, t.TempDir())
	tests := []struct {
		name     string
		tree     *Tree
		argv     []string
		wantErr  error
		wantText string
	}{
		{"runs and stages stdout", live, []string{"fake-ok"}, nil, "hello from the node\n"},
		{"non-zero exit keeps output", live, []string{"fake-fail"}, ErrCommandFailed, "partial output\n"},
		{"missing tool is skipped", live, []string{"no-such-tool-nodetriage"}, ErrSkipped, ""},
		{"under --root it is skipped", mounted, []string{"fake-ok"}, ErrSkipped, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStage(t, StageOptions{})
			err := NewCommand("test", tt.tree, "out.txt", tt.argv...).Collect(context.Background(), s.Sink("test"))
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("Collect = %v, want %v", err, tt.wantErr)
			}
			if errors.Is(err, ErrCommandFailed) && !strings.Contains(err.Error(), "permission denied") {
				t.Fatalf("error does not quote stderr: %v", err)
			}
			if tt.wantText == "" {
				if len(s.Records()) != 0 {
					t.Fatalf("skipped command staged %v", s.Records())
				}
				return
			}
			if got := readStaged(t, s, "out.txt"); got != tt.wantText {
				t.Fatalf("staged %q, want %q", got, tt.wantText)
			}
		})
	}
}

func TestCommandHungIsKilledWithItsGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	fakeTools(t, map[string]string{
		// The tool starts a child that would outlive it, then hangs.
		"fake-hang": "sleep 300 &\necho $! > " + pidFile + "\necho started\nwait\n",
	})
	s := newTestStage(t, StageOptions{})
	cmd := NewCommand("hang", openTree(t, "/"), "hang.txt", "fake-hang").WithTimeout(300 * time.Millisecond)
	err := cmd.Collect(context.Background(), s.Sink("hang"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Collect = %v, want a deadline error", err)
	}
	data, rerr := os.ReadFile(pidFile)
	if rerr != nil {
		t.Fatalf("the tool did not start its child: %v", rerr)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	for i := 0; i < 100 && alive(child); i++ {
		time.Sleep(20 * time.Millisecond) // the kernel delivers SIGKILL asynchronously
	}
	if alive(child) {
		t.Fatalf("child %d of the hung command survived its deadline", child)
	}
	if got := readStaged(t, s, "hang.txt"); got != "started\n" {
		t.Fatalf("output before the kill = %q", got)
	}
}

func TestCommandFallbackWhenToolMissing(t *testing.T) {
	s := newTestStage(t, StageOptions{})
	cmd := NewCommand("ps", openTree(t, "/"), "system/ps.txt", "no-such-ps-nodetriage").WithFallback(liveFallback(Processes))
	if err := cmd.Collect(context.Background(), s.Sink("ps")); err != nil {
		t.Fatal(err)
	}
	got := readStaged(t, s, "system/ps.txt")
	if !strings.Contains(got, "PID") || !strings.Contains(got, strconv.Itoa(os.Getpid())) {
		t.Fatalf("fallback ps output lacks this process:\n%.500s", got)
	}
}
