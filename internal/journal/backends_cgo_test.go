//go:build cgo && linux

package journal_test

import (
	"testing"

	"github.com/nodetriage/nodetriage/internal/journal"
)

// In cgo builds every test runs on libsystemd as well as on journalctl.
func init() {
	backends = append(backends, backend{"sdjournal", journal.NewSDJournal()})
}

func TestDefaultIsSDJournalInCgoBuilds(t *testing.T) {
	// A cgo build compiles against libsystemd's headers, so the library is
	// there to load.
	if got := journal.Backend(journal.Default()); got != "sdjournal" {
		t.Errorf("Default() is %q, want sdjournal", got)
	}
}
