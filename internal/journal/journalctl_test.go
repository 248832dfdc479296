package journal_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nodetriage/nodetriage/internal/journal"
)

// minimalJournalDir makes a directory with one file whose header passes the
// checks made before journalctl runs; the file holds no entries.
func minimalJournalDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	header := make([]byte, 104)
	copy(header, "LPKSHHRH")
	binary.LittleEndian.PutUint64(header[88:], 104)
	writeFile(t, filepath.Join(dir, "system.journal"), header)
	return dir
}

// fakeJournalctl writes a shell script that stands in for journalctl.
func fakeJournalctl(t *testing.T, body string) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the fake journalctl is a Linux shell script")
	}
	path := filepath.Join(t.TempDir(), "journalctl")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestJournalctlKillsItsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	script := fakeJournalctl(t, "sleep 300 &\necho $! > "+pidFile+"\nprintf 'MESSAGE=one\\n\\n'\nwait\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := journal.NewJournalctl(script).Read(ctx, journal.Query{Dir: minimalJournalDir(t)}, func(e journal.Entry) error {
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if !waitUntilGone(pid) {
		t.Errorf("process %d started by journalctl outlived the read", pid)
	}
}

// waitUntilGone waits up to ten seconds for a process to exit (or become a
// zombie) and tells whether it did.
func waitUntilGone(pid int) bool {
	for range 200 {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			return true
		}
		// The state follows the command name in parentheses.
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func TestJournalctlFailureIsReported(t *testing.T) {
	script := fakeJournalctl(t, "echo 'Failed to open files: Bad message' >&2\nexit 1\n")
	dir := minimalJournalDir(t)
	_, err := readAll(t, journal.NewJournalctl(script), journal.Query{Dir: dir})
	// Every file fails alone too, so each one is reported as unreadable.
	if !errors.Is(err, journal.ErrNoJournal) || !errors.Is(err, journal.ErrUnreadableFile) {
		t.Fatalf("got %v, want ErrNoJournal and ErrUnreadableFile", err)
	}
	for _, want := range []string{"Bad message", filepath.Join(dir, "system.journal")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q: %v", want, err)
		}
	}
}

func TestJournalctlCutOffOutput(t *testing.T) {
	script := fakeJournalctl(t, "printf 'MESSAGE=whole\\n\\nMESSAGE=cut'\nexit 0\n")
	got, err := readAll(t, journal.NewJournalctl(script), journal.Query{Dir: minimalJournalDir(t)})
	if !errors.Is(err, journal.ErrBadExport) || len(got) != 1 || got[0].Message != "whole" {
		t.Errorf("got %v and %v, want the whole entry and ErrBadExport", got, err)
	}
}

func TestJournalctlMissingBinary(t *testing.T) {
	_, err := readAll(t, journal.NewJournalctl(filepath.Join(t.TempDir(), "journalctl")), journal.Query{Dir: minimalJournalDir(t)})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got %v, want an error wrapping fs.ErrNotExist", err)
	}
}
