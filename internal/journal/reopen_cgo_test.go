//go:build cgo && linux

package journal

// NewSDJournalReopening returns a libsystemd reader that reopens its journal
// handle every n entries, so that tests cover reads that cross many reopens.
func NewSDJournalReopening(n int) *SDJournal { return &SDJournal{reopenEvery: n} }

// NewSDJournalMappedLimit returns a libsystemd reader with a mapped limit
// and a forced reopen every n entries.
func NewSDJournalMappedLimit(limit int64, n int) Reader {
	return (&SDJournal{reopenEvery: n}).WithMappedLimit(limit)
}
