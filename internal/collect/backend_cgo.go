//go:build cgo && linux

package collect

import (
	"fmt"

	"github.com/nodetriage/nodetriage/internal/journal"
)

// JournalBackend returns the journal reader for --journal-backend: "auto",
// "sdjournal" (libsystemd, cgo builds only) or "journalctl".
func JournalBackend(name string) (journal.Reader, error) {
	switch name {
	case "", "auto":
		return journal.Default(), nil
	case "sdjournal":
		return journal.NewSDJournal(), nil
	case "journalctl":
		return journal.NewJournalctl(""), nil
	}
	return nil, fmt.Errorf("%w: --journal-backend %q (want auto, sdjournal or journalctl)", ErrInvalidUsage, name)
}
