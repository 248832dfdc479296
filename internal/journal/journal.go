// Package journal reads the systemd journal of a node, live or from a disk
// mounted elsewhere, and turns its entries into one small Entry type.
//
// Two readers share one behaviour:
//
//   - SDJournal (cgo builds only) reads journal files through libsystemd,
//     loaded at run time by github.com/coreos/go-systemd/v22/sdjournal.
//   - Journalctl runs `journalctl --file=... -o export` and parses the export
//     format in Go, so that a static CGO_ENABLED=0 binary can still read the
//     journal.
//
// Both readers find the journal files themselves (see Query.Dir), check each
// file's header before opening it, select entries with the same matches and
// apply the same final filter in Go, so for the same files they emit the same
// entries in the same order.
//
// # Damaged files
//
// A journal file that cannot be opened (bad header, truncated, unreadable) is
// skipped and the others are read. Read then emits every entry it could read
// and returns, after the last entry, an error that wraps ErrUnreadableFile
// once per skipped file and names that file. Callers that want a partial
// result keep what they received and record the error. Damage inside a file
// whose header is sound is handled by libsystemd, which stops reading that file
// at the damaged object without telling; such entries are lost silently.
package journal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Errors reported by this package; check them with errors.Is.
var (
	// ErrNoJournal means that a directory holds no journal file that could be
	// opened, or does not exist.
	ErrNoJournal = errors.New("no readable journal files")
	// ErrUnreadableFile means that one journal file was skipped. The error
	// that wraps it names the file and the reason.
	ErrUnreadableFile = errors.New("unreadable journal file")
	// ErrInvalidQuery means that a Query cannot be run as given.
	ErrInvalidQuery = errors.New("invalid journal query")
	// ErrBadExport means that journal export data is malformed.
	ErrBadExport = errors.New("malformed journal export data")
)

// MaxMessageBytes caps the MESSAGE of an Entry. Longer messages are cut to
// this many bytes, so that one huge entry cannot exhaust memory.
const MaxMessageBytes = 1 << 20

// Entry is one journal entry, reduced to the fields that triage needs.
type Entry struct {
	Time       time.Time // __REALTIME_TIMESTAMP, in UTC
	BootID     string    // _BOOT_ID
	Hostname   string    // _HOSTNAME
	Identifier string    // SYSLOG_IDENTIFIER, else _COMM
	PID        string    // _PID, else SYSLOG_PID
	Unit       string    // _SYSTEMD_UNIT
	Priority   int       // PRIORITY (0 emerg .. 7 debug), -1 when absent
	Transport  string    // _TRANSPORT ("kernel" for kernel messages)
	Message    string    // MESSAGE, at most MaxMessageBytes
}

// Query says which entries to read. Its filters are combined with AND.
type Query struct {
	// Dir is a journal directory (such as /var/log/journal or
	// <root>/run/log/journal) or any directory tree holding *.journal files;
	// files up to MaxDirDepth levels below it are read together.
	Dir string
	// Units selects entries the way `journalctl -u` does: the unit's own lines
	// (_SYSTEMD_UNIT), what systemd (PID 1) logged about it (UNIT=), what other
	// root daemons logged about it (OBJECT_SYSTEMD_UNIT=), its core dumps
	// (COREDUMP_UNIT=) and, for a slice, the lines of the units in it. A name
	// without a unit suffix means ".service"; shell patterns such as
	// "udev-net-manager@*" or "cloud-*" are matched against the unit names
	// that occur in the journal.
	Units []string
	// Kernel keeps only kernel messages (_TRANSPORT=kernel).
	Kernel bool
	// Boot keeps only one boot, given by its 32-hex-digit id (dashes allowed);
	// empty means every boot.
	Boot string
	// Since drops entries older than this instant; zero means no lower bound.
	Since time.Time
	// Reverse emits the entries newest first. A caller that wants only the
	// newest part of a big selection reads in reverse and stops early, so
	// that the older entries are never read.
	Reverse bool
}

// Reader reads journal entries. Read calls emit once per selected entry, in
// journal order (time order within a boot), or in the opposite order when
// Query.Reverse is set. It stops early when ctx is done or
// emit returns an error, and then returns that error wrapped.
type Reader interface {
	Read(ctx context.Context, q Query, emit func(Entry) error) error
}

// BootLister is a Reader that can list boots without reading every entry.
type BootLister interface {
	Boots(ctx context.Context, dir string) ([]Boot, error)
}

// MappedLimiter is a Reader that can keep the journal files it maps in
// memory near a limit, at some cost in speed; SDJournal is one.
type MappedLimiter interface {
	WithMappedLimit(limit int64) Reader
}

// Boot is one boot recorded in a journal, with its first and last entry time.
type Boot struct {
	ID    string
	First time.Time
	Last  time.Time
}

// Backend names the implementation behind r: "sdjournal", "journalctl", or
// "unknown" for readers of other packages.
func Backend(r Reader) string {
	if named, ok := r.(interface{ Backend() string }); ok {
		return named.Backend()
	}
	return "unknown"
}

// ListBoots lists the boots recorded under dir, oldest first; on a live node
// the last one is the current boot. It uses r's own boot listing when r has
// one and otherwise reads every entry once.
func ListBoots(ctx context.Context, r Reader, dir string) ([]Boot, error) {
	if lister, ok := r.(BootLister); ok {
		return lister.Boots(ctx, dir)
	}
	byID := map[string]*Boot{}
	err := r.Read(ctx, Query{Dir: dir}, func(e Entry) error {
		noteBootEntry(byID, e.BootID, e.Time)
		return nil
	})
	return sortedBoots(byID), err
}

// noteBootEntry widens the time span of boot id to include t.
func noteBootEntry(byID map[string]*Boot, id string, t time.Time) {
	if id == "" {
		return
	}
	b, ok := byID[id]
	if !ok {
		byID[id] = &Boot{ID: id, First: t, Last: t}
		return
	}
	if t.Before(b.First) {
		b.First = t
	}
	if t.After(b.Last) {
		b.Last = t
	}
}

// sortedBoots returns the boots oldest first (by first entry, then id).
func sortedBoots(byID map[string]*Boot) []Boot {
	boots := make([]Boot, 0, len(byID))
	for _, b := range byID {
		boots = append(boots, *b)
	}
	slices.SortFunc(boots, func(a, b Boot) int {
		if c := a.First.Compare(b.First); c != 0 {
			return c
		}
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
	return boots
}

// emitError wraps an error returned by an emit callback.
func emitError(err error) error {
	return fmt.Errorf("journal: reading stopped by caller: %w", err)
}

// canceled wraps the error of a context that ended a read.
func canceled(ctx context.Context) error {
	return fmt.Errorf("journal: read interrupted: %w", context.Cause(ctx))
}
