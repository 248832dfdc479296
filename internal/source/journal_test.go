package source

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodetriage/nodetriage/internal/collect/testroot"
	"github.com/nodetriage/nodetriage/internal/journal"
	"github.com/nodetriage/nodetriage/internal/journal/journaltest"
)

// materialize builds a fake node root of testdata/nodes with its journal.
func materialize(t *testing.T, name string) string {
	t.Helper()
	dest := filepath.Join(t.TempDir(), name)
	err := testroot.Materialize(name, dest, func(dir string, export []byte) error {
		journaltest.Write(t, dir, export)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dest
}

// journalSources are the journal sources of the catalog for j.
func journalSources(j *Journal) []Source {
	env := Env{Journal: j}
	sources := append(otherUnitSources(env), NewJournalBoots(j), NewKernelJournal(j, "kernel/dmesg.current"),
		NewJournalUnit("kubelet", j, "kubelet/kubelet.log", "kubelet"),
		NewJournalUnit("containerd", j, "containerd/containerd-log.txt", "containerd"),
		NewJournalUnit("sandbox-image", j, "sandbox-image/sandbox-image-log.txt", "sandbox-image"),
	)
	for _, s := range nodeadmSources(Env{Journal: j, Tree: nil}) {
		if _, ok := s.(*JournalUnit); ok {
			sources = append(sources, s)
		}
	}
	for _, s := range cloudInitSources(Env{Journal: j}) {
		if _, ok := s.(*JournalUnit); ok {
			sources = append(sources, s)
		}
	}
	return sources
}

// stageJournal runs the journal sources with reader and returns the staged
// files by path and the errors by source.
func stageJournal(t *testing.T, root string, reader journal.Reader) (map[string]string, map[string]error) {
	t.Helper()
	tree := openTree(t, root)
	j := PrepareJournal(tree, reader, t.TempDir(), time.Date(2026, 11, 18, 0, 0, 0, 0, time.UTC))
	s := newTestStage(t, StageOptions{})
	errs := map[string]error{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, src := range journalSources(j) {
		wg.Go(func() {
			if err := src.Collect(context.Background(), s.Sink(src.Name())); err != nil {
				mu.Lock()
				errs[src.Name()] = err
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	files := map[string]string{}
	for _, r := range s.Records() {
		files[r.Path] = readStaged(t, s, r.Path)
	}
	return files, errs
}

func TestJournalBackendsWriteTheSameFiles(t *testing.T) {
	readers := testReaders()
	for _, node := range testroot.Names {
		t.Run(node, func(t *testing.T) {
			root := materialize(t, node)
			var first string
			var want map[string]string
			for name, reader := range readers {
				files, errs := stageJournal(t, root, reader)
				for src, err := range errs {
					if !errors.Is(err, ErrSkipped) {
						t.Errorf("%s: source %s failed: %v", name, src, err)
					}
				}
				if want == nil {
					first, want = name, files
					continue
				}
				if keys(files) != keys(want) {
					t.Fatalf("%s wrote %s, %s wrote %s", name, keys(files), first, keys(want))
				}
				for p := range want {
					if files[p] != want[p] {
						t.Errorf("%s differs between %s and %s:\n%s\n---\n%s", p, name, first, files[p], want[p])
					}
				}
			}
		})
	}
}

func keys(m map[string]string) string {
	var k []string
	for p := range m {
		k = append(k, p)
	}
	sort.Strings(k)
	return strings.Join(k, ",")
}

func TestJournalUnitFilesHoldWhatJournalctlShows(t *testing.T) {
	root := materialize(t, "al2023-nodeadm-failure")
	files, _ := stageJournal(t, root, journal.NewJournalctl(""))
	tests := []struct {
		path string
		want []string
	}{
		{"nodeadm/nodeadm-config.log", []string{
			`2026-11-28T03:14:14.610000+00:00 ip-10-23-233-47 nodeadm[1840]: fatal cli/main.go:35 Command failed {"error": "no config in chain"}`,
			"systemd[1]: Failed to start nodeadm-config.service - EKS Nodeadm Config.",
			`Encountered error in config provider {"error": "could not find NodeConfig within UserData"}`,
		}},
		{"nodeadm/nodeadm-run.log", []string{"Dependency failed for nodeadm-run.service"}},
		{"nodeadm/udev-net-manager_eth0.log", []string{"resolved net manager"}},
		{"cloud-init/cloud-init-journal.log", []string{"Failed to start cloud-final.service", "user-data[1990]: fatal cli/main.go:35 Command failed"}},
		{"kernel/dmesg.current", []string{"kernel: Linux version 6.1.115-126.197.amzn2023.x86_64"}},
		{"journal/boot-current.log", []string{"sshd[3011]: Accepted publickey"}},
	}
	for _, tt := range tests {
		got, ok := files[tt.path]
		if !ok {
			t.Errorf("%s not written; have %s", tt.path, keys(files))
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q:\n%s", tt.path, w, got)
			}
		}
	}
	if _, ok := files["kubelet/kubelet.log"]; ok {
		t.Error("kubelet never ran on this node, yet kubelet/kubelet.log was written")
	}
}

func TestJournalPreviousBootAndDamagedFiles(t *testing.T) {
	root := materialize(t, "al2023-healthy")
	jdir := filepath.Join(root, "var", "log", "journal", testroot.MachineID)
	// A damaged journal file next to the good one, and a link that points
	// at a journal file of the machine collect runs on.
	if err := os.WriteFile(filepath.Join(jdir, "system@0001-damaged.journal"), []byte("LPKSHHRH this is not a journal"), 0o640); err != nil {
		t.Fatal(err)
	}
	hostJournal := journaltest.Write(t, t.TempDir(), journaltest.Export([]string{
		"__REALTIME_TIMESTAMP=1795748100000000", "_BOOT_ID=9e8d7c6b5a4f43e2a1b0c9d8e7f6a5b4",
		"_SYSTEMD_UNIT=kubelet.service", "SYSLOG_IDENTIFIER=kubelet", "MESSAGE=HOST-ONLY-JOURNAL-ENTRY",
	}))
	if err := os.Symlink(hostJournal, filepath.Join(jdir, "host-link.journal")); err != nil {
		t.Fatal(err)
	}
	for name, reader := range testReaders() {
		t.Run(name, func(t *testing.T) {
			files, errs := stageJournal(t, root, reader)
			if !strings.Contains(files["journal/boot-previous.log"], "Journal stopped") {
				t.Errorf("previous boot not written: %q", files["journal/boot-previous.log"])
			}
			if !strings.Contains(files["kubelet/kubelet.log"], "Successfully registered node") {
				t.Errorf("kubelet log incomplete: %q", files["kubelet/kubelet.log"])
			}
			for p, text := range files {
				if strings.Contains(text, "HOST-ONLY-JOURNAL-ENTRY") {
					t.Errorf("%s holds an entry of a journal outside the root", p)
				}
			}
			err := errs["kubelet"]
			if err == nil || !errors.Is(err, journal.ErrUnreadableFile) || !strings.Contains(err.Error(), "damaged") {
				t.Errorf("the damaged file is not reported: %v", err)
			}
		})
	}
}

func TestNoJournalIsSkipped(t *testing.T) {
	tree := openTree(t, t.TempDir())
	j := PrepareJournal(tree, journal.NewJournalctl(""), t.TempDir(), time.Time{})
	s := newTestStage(t, StageOptions{})
	err := NewJournalUnit("kubelet", j, "kubelet/kubelet.log", "kubelet").Collect(context.Background(), s.Sink("k"))
	if !errors.Is(err, ErrSkipped) {
		t.Fatalf("Collect = %v, want ErrSkipped", err)
	}
}
