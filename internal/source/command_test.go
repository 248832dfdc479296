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

func TestCommandOnlyIf(t *testing.T) {
	fakeTools(t, map[string]string{"fake-docker": "echo Server Version: 25.0.6\n"})
	present := filepath.Join(t.TempDir(), "docker.sock")
	if err := os.WriteFile(present, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	absent := filepath.Join(t.TempDir(), "docker.sock")
	live := openTree(t, "/")
	tests := []struct {
		name    string
		tree    *Tree
		conds   []Condition
		wantErr error
		wantMsg string
	}{
		{"condition holds", live, []Condition{PathExists(present)}, nil, ""},
		{"condition fails: skipped with its reason", live, []Condition{PathExists(absent)}, ErrSkipped, absent + " does not exist on the node"},
		{"every condition must hold", live, []Condition{PathExists(present), PathExists(absent)}, ErrSkipped, absent},
		{"under --root the condition is not even asked", openTree(t, t.TempDir()), []Condition{func(*Tree) error {
			t.Error("condition evaluated under --root")
			return nil
		}}, ErrSkipped, "describes the running machine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStage(t, StageOptions{})
			cmd := NewCommand("docker/info", tt.tree, "docker/docker-info.txt", "fake-docker", "info")
			for _, c := range tt.conds {
				cmd.OnlyIf(c)
			}
			err := cmd.Collect(context.Background(), s.Sink("docker/info"))
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("Collect = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				if !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("Collect = %v, want it to say %q", err, tt.wantMsg)
				}
				if len(s.Records()) != 0 {
					t.Fatalf("skipped command staged %v", s.Records())
				}
				return
			}
			if got := readStaged(t, s, "docker/docker-info.txt"); got != "Server Version: 25.0.6\n" {
				t.Fatalf("staged %q", got)
			}
		})
	}
}

func TestModuleInIndex(t *testing.T) {
	const release = "6.1.115-126.197.amzn2023.x86_64"
	dir := "usr/lib/modules/" + release + "/"
	root := makeTree(t, map[string]string{
		"lib": "->usr/lib", // AL2023: /lib is a link to usr/lib
		dir + "modules.dep": "kernel/net/netfilter/ipvs/ip_vs.ko.xz: kernel/net/netfilter/nf_conntrack.ko.xz\n" +
			"extra/lustre/net/lnet.ko.zst:\n" +
			"weak-updates/lustre/fs/lustre.ko: extra/lustre/net/lnet.ko.zst\n",
		dir + "modules.builtin": "kernel/fs/xfs/xfs.ko\nkernel/drivers/net/ethernet/amazon/ena/ena.ko\n",
	})
	tree := openTree(t, root)
	tests := []struct {
		release, module string
		wantErr         string
	}{
		{release, "lustre", ""},
		{release, "ip_vs", ""},
		{release, "ip-vs", ""},
		{release, "xfs", ""},
		{release, "lnet", ""},
		{release, "lus", "has no module lus"},
		{release, "nvidia", "has no module nvidia"},
		{"5.10.0-other", "lustre", "no module lustre found for kernel 5.10.0-other"},
		{"", "lustre", "kernel release unknown"},
	}
	for _, tt := range tests {
		err := moduleInIndex(tree, tt.release, tt.module)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("moduleInIndex(%s, %s) = %v, want %q", tt.release, tt.module, err, tt.wantErr)
		}
	}
}
