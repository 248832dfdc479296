//go:build cgo && linux

package source

import "github.com/nodetriage/nodetriage/internal/journal"

// testReaders are the journal backends of this build.
func testReaders() map[string]journal.Reader {
	return map[string]journal.Reader{"sdjournal": journal.NewSDJournal(), "journalctl": journal.NewJournalctl("")}
}
