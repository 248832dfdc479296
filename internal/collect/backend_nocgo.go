//go:build !(cgo && linux)

package collect

import (
	"fmt"

	"github.com/nodetriage/nodetriage/internal/journal"
)

// JournalBackend returns the journal reader for --journal-backend. This
// build has no cgo, so only journalctl is available.
func JournalBackend(name string) (journal.Reader, error) {
	switch name {
	case "", "auto", "journalctl":
		return journal.NewJournalctl(""), nil
	case "sdjournal":
		return nil, fmt.Errorf("%w: --journal-backend sdjournal: this collect was built without cgo; use journalctl", ErrInvalidUsage)
	}
	return nil, fmt.Errorf("%w: --journal-backend %q (want auto, sdjournal or journalctl)", ErrInvalidUsage, name)
}
