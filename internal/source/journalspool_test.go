package source

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nodetriage/nodetriage/internal/journal"
)

// TestBudgetedJournalKeepsTheNewestLines writes the whole-boot journal with
// and without a byte allowance: under an allowance the file must be the
// newest whole lines of the full file, in the same order, within the
// allowance, and recorded as cut with an estimated original size.
func TestBudgetedJournalKeepsTheNewestLines(t *testing.T) {
	root := materialize(t, "al2023-nodeadm-failure")
	for name, reader := range testReaders() {
		t.Run(name, func(t *testing.T) {
			full, fullRec := writeBootJournal(t, root, reader, 0)
			if fullRec.Truncated || fullRec.OriginalEstimated {
				t.Fatalf("unlimited write recorded as cut: %+v", fullRec)
			}
			cases := []struct {
				name      string
				allowance int64
				cut       bool
			}{
				{"half", int64(len(full)) / 2, true},
				{"one line", 1, true},
				{"exactly all", int64(len(full)), false},
				{"more than all", int64(len(full)) * 2, false},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					got, rec := writeBootJournal(t, root, reader, tc.allowance)
					if !strings.HasSuffix(full, got) || (got != full && !strings.HasSuffix(full, "\n"+got)) {
						t.Fatalf("not the newest whole lines of the full file:\n%s", got)
					}
					if rec.Truncated != tc.cut || rec.OriginalEstimated != tc.cut {
						t.Errorf("record %+v, want truncated and estimated = %v", rec, tc.cut)
					}
					if !tc.cut {
						if got != full {
							t.Errorf("kept %d of %d bytes without a cut", len(got), len(full))
						}
						return
					}
					lines := strings.Count(got, "\n")
					if lines == 0 || (int64(len(got)) > tc.allowance && lines > 1) {
						t.Errorf("kept %d bytes in %d lines for an allowance of %d", len(got), lines, tc.allowance)
					}
					if rec.OriginalBytes <= rec.Bytes {
						t.Errorf("original bytes %d not above kept bytes %d", rec.OriginalBytes, rec.Bytes)
					}
				})
			}
		})
	}
}

// writeBootJournal stages journal/boot-current.log with the given
// allowance and returns its text and record.
func writeBootJournal(t *testing.T, root string, reader journal.Reader, allowance int64) (string, Record) {
	t.Helper()
	j := PrepareJournal(openTree(t, root), reader, t.TempDir(), time.Time{})
	j.TailBytes = allowance
	s := newTestStage(t, StageOptions{})
	if err := NewJournalBoots(j).Collect(context.Background(), s.Sink("journal/boots")); err != nil {
		t.Fatalf("journal/boots: %v", err)
	}
	for _, r := range s.Records() {
		if r.Path == "journal/boot-current.log" {
			return readStaged(t, s, r.Path), r
		}
	}
	t.Fatal("journal/boot-current.log was not written")
	return "", Record{}
}
