//go:build cgo && linux

package journal

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/coreos/go-systemd/v22/sdjournal"
)

// SDJournal reads journal files through libsystemd (sd-journal), which
// go-systemd loads at run time. It needs a cgo build and, at run time,
// libsystemd.so.0.
type SDJournal struct{}

// NewSDJournal returns the libsystemd reader.
func NewSDJournal() *SDJournal { return &SDJournal{} }

// Backend returns "sdjournal".
func (*SDJournal) Backend() string { return "sdjournal" }

// sdjournalLoads tells whether libsystemd can be loaded on this machine.
func sdjournalLoads() bool {
	j, err := sdjournal.NewJournalFromFiles()
	if err != nil {
		return false
	}
	_ = j.Close()
	return true
}

// Read runs q against the journal files under q.Dir; see Reader and the
// package documentation for skipped files.
func (s *SDJournal) Read(ctx context.Context, q Query, emit func(Entry) error) error {
	files, err := findJournalFiles(q.Dir)
	if err != nil {
		return err
	}
	j, err := openFiles(&files, q.Dir)
	if err != nil {
		return err
	}
	defer j.Close()
	err = readOpened(ctx, j, q, emit)
	return errors.Join(err, files.err())
}

// Boots lists the boots in the journal files under dir, oldest first.
func (s *SDJournal) Boots(ctx context.Context, dir string) ([]Boot, error) {
	files, err := findJournalFiles(dir)
	if err != nil {
		return nil, err
	}
	j, err := openFiles(&files, dir)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	boots, err := listOpenedBoots(ctx, j)
	return boots, errors.Join(err, files.err())
}

// openFiles opens the files together. libsystemd refuses the whole set when
// one file cannot be opened; then each file is tried alone and the ones that
// fail are moved to the problems.
func openFiles(files *journalFiles, dir string) (*sdjournal.Journal, error) {
	j, err := sdjournal.NewJournalFromFiles(files.paths...)
	if err == nil {
		return j, nil
	}
	total := len(files.paths)
	for _, path := range files.paths {
		alone, openErr := sdjournal.NewJournalFromFiles(path)
		if openErr != nil {
			files.skip(path, libsystemdCause(openErr))
			continue
		}
		_ = alone.Close()
	}
	if len(files.paths) == total {
		return nil, fmt.Errorf("sdjournal: %w", err)
	}
	if len(files.paths) == 0 {
		return nil, noJournal(dir, total, files.err())
	}
	j, err = sdjournal.NewJournalFromFiles(files.paths...)
	if err != nil {
		return nil, fmt.Errorf("sdjournal: %w", err)
	}
	return j, nil
}

// libsystemdCause keeps the errno of a go-systemd error, whose text repeats
// the file path that the caller's message already names.
func libsystemdCause(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return fmt.Errorf("libsystemd: %w", errno)
	}
	return err
}

// readOpened reads the entries of q from an open journal.
func readOpened(ctx context.Context, j *sdjournal.Journal, q Query, emit func(Entry) error) error {
	p, err := newPlan(q, j.GetUniqueValues)
	if err != nil || p.noMatch {
		return err
	}
	if err := addMatchGroups(j, p.groups); err != nil {
		return err
	}
	if err := j.SetDataThreshold(uint64(maxFieldNameBytes + 1 + MaxMessageBytes)); err != nil {
		return fmt.Errorf("sdjournal: %w", err)
	}
	if err := seekStart(j, p); err != nil {
		return err
	}
	for {
		if ctx.Err() != nil {
			return canceled(ctx)
		}
		n, err := j.Next()
		if err != nil {
			return fmt.Errorf("sdjournal: next entry: %w", err)
		}
		if n == 0 {
			return nil
		}
		r, ok := currentRecord(j)
		if !ok || !p.accepts(r) {
			continue
		}
		if err := emit(r.Entry); err != nil {
			return emitError(err)
		}
	}
}

// seekStart places the journal before the first entry to read.
func seekStart(j *sdjournal.Journal, p *plan) error {
	var err error
	if micros := p.sinceMicros(); !p.since.IsZero() && micros > 0 {
		err = j.SeekRealtimeUsec(uint64(micros))
	} else {
		err = j.SeekHead()
	}
	if err != nil {
		return fmt.Errorf("sdjournal: seek: %w", err)
	}
	return nil
}

// addMatchGroups installs the plan's match groups, ORed together.
func addMatchGroups(j *sdjournal.Journal, groups [][]match) error {
	for i, group := range groups {
		if i > 0 {
			if err := j.AddDisjunction(); err != nil {
				return fmt.Errorf("sdjournal: %w", err)
			}
		}
		for _, m := range group {
			if err := j.AddMatch(m.String()); err != nil {
				return fmt.Errorf("sdjournal: match %s: %w", m, err)
			}
		}
	}
	return nil
}

// currentRecord reads the entry the journal points at. An entry whose data
// cannot be read is skipped, as journalctl's export output skips it.
func currentRecord(j *sdjournal.Journal) (*record, bool) {
	raw, err := j.GetEntry()
	if err != nil {
		return nil, false
	}
	r := &record{}
	r.setRealtime(raw.RealtimeTimestamp)
	for name, value := range raw.Fields {
		r.setField(name, []byte(value))
	}
	return r.finish(), true
}

// listOpenedBoots finds each boot's first and last entry.
func listOpenedBoots(ctx context.Context, j *sdjournal.Journal) ([]Boot, error) {
	ids, err := j.GetUniqueValues("_BOOT_ID")
	if err != nil {
		return nil, fmt.Errorf("sdjournal: listing boots: %w", err)
	}
	byID := map[string]*Boot{}
	for _, id := range ids {
		if ctx.Err() != nil {
			return nil, canceled(ctx)
		}
		if err := noteBootEdges(j, byID, id); err != nil {
			return nil, err
		}
	}
	return sortedBoots(byID), nil
}

// noteBootEdges records the times of the first and last entry of one boot.
func noteBootEdges(j *sdjournal.Journal, byID map[string]*Boot, id string) error {
	j.FlushMatches()
	if err := j.AddMatch("_BOOT_ID=" + id); err != nil {
		return fmt.Errorf("sdjournal: match boot %s: %w", id, err)
	}
	edges := []struct {
		seek func() error
		step func() (uint64, error)
	}{{j.SeekHead, j.Next}, {j.SeekTail, j.Previous}}
	for _, edge := range edges {
		if err := edge.seek(); err != nil {
			return fmt.Errorf("sdjournal: boot %s: seek: %w", id, err)
		}
		n, err := edge.step()
		if err != nil {
			return fmt.Errorf("sdjournal: boot %s: %w", id, err)
		}
		if n == 0 {
			continue
		}
		micros, err := j.GetRealtimeUsec()
		if err != nil {
			return fmt.Errorf("sdjournal: boot %s: %w", id, err)
		}
		r := record{}
		r.setRealtime(micros)
		noteBootEntry(byID, id, r.Time)
	}
	return nil
}
