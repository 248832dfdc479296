//go:build cgo && linux

package journal_test

import (
	"testing"

	"github.com/nodetriage/nodetriage/internal/journal"
)

// In cgo builds every test runs on libsystemd as well as on journalctl.
func init() {
	backends = append(backends,
		backend{"sdjournal", journal.NewSDJournal()},
		// Reopening the handle after every entry or two must not change
		// what is read, forward or in reverse.
		backend{"sdjournal reopened every entry", journal.NewSDJournalReopening(1)},
		backend{"sdjournal reopened every 2 entries", journal.NewSDJournalReopening(2)},
		// A mapped limit of one byte asks for a reopen at every check.
		backend{"sdjournal with a mapped limit", journal.NewSDJournalMappedLimit(1, 3)},
	)
}

func TestDefaultIsSDJournalInCgoBuilds(t *testing.T) {
	// A cgo build compiles against libsystemd's headers, so the library is
	// there to load.
	if got := journal.Backend(journal.Default()); got != "sdjournal" {
		t.Errorf("Default() is %q, want sdjournal", got)
	}
}
