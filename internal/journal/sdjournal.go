//go:build cgo && linux

package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"github.com/coreos/go-systemd/v22/sdjournal"
)

// SDJournal reads journal files through libsystemd (sd-journal), which
// go-systemd loads at run time. It needs a cgo build and, at run time,
// libsystemd.so.0.
type SDJournal struct {
	// mappedLimit, when above zero, bounds the file-backed memory of the
	// process while reading (see WithMappedLimit).
	mappedLimit int64
	// reopenEvery, when above zero, reopens the handle every so many
	// entries whatever the memory use; tests set it to cover reopening.
	reopenEvery int
}

// WithMappedLimit returns a reader that keeps the journal files it maps
// near limit bytes of resident memory (counted over the whole process, as
// RssFile), by reopening its journal handle at the same entry whenever
// the process is above the limit. Reopening costs time (the new handle maps
// and faults its pages again), so a reader without a limit never does it.
func (s *SDJournal) WithMappedLimit(limit int64) Reader {
	return &SDJournal{mappedLimit: limit, reopenEvery: s.reopenEvery}
}

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
	h := &handle{j: j, paths: files.paths, reopenEvery: s.reopenEvery, mappedLimit: s.mappedLimit}
	defer h.close()
	err = readOpened(ctx, h, q, emit)
	return errors.Join(err, files.err())
}

// libsystemd keeps the windows it mapped of the journal files until the
// handle is closed, so a long read, or one whose entries are spread over a
// big journal, would hold most of the journal in resident memory. A reader
// with a mapped limit therefore looks at the process's file-backed resident
// memory every checkMappedEvery entries and, above the limit, closes its
// handle and opens a fresh one at the same entry, at most once per
// minReopenGap entries so that concurrent reads, which all see the same
// total, do not spend their time reopening.
const (
	checkMappedEvery = 256
	minReopenGap     = 512
)

// handle is an open journal that a read may replace by a fresh one.
type handle struct {
	j           *sdjournal.Journal
	paths       []string
	reopenEvery int
	mappedLimit int64
	lastReopen  int // entries visited at the last reopen
}

func (h *handle) close() { _ = h.j.Close() }

// dueForReopen tells whether the handle should be reopened before the
// visited-th entry.
func (h *handle) dueForReopen(visited int) bool {
	if h.reopenEvery > 0 && visited%h.reopenEvery == 0 {
		return true
	}
	if h.mappedLimit <= 0 || visited%checkMappedEvery != 0 || visited-h.lastReopen < minReopenGap {
		return false
	}
	if residentFileBytes() <= h.mappedLimit {
		return false
	}
	h.lastReopen = visited
	return true
}

// residentFileBytes is the file-backed resident memory of this process
// (RssFile in /proc/self/status), or 0 when it cannot be read.
func residentFileBytes() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	_, rest, found := bytes.Cut(status, []byte("\nRssFile:"))
	if !found {
		return 0
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	kib, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(line), []byte("kB")))), 10, 64)
	if err != nil {
		return 0
	}
	return kib << 10
}

// step moves to the next entry, or the previous one in reverse.
func (h *handle) step(reverse bool) (uint64, error) {
	if reverse {
		return h.j.Previous()
	}
	return h.j.Next()
}

// reopen replaces the journal by a fresh handle placed on the same entry,
// with the same matches, which drops the mappings the old one held. When
// anything fails, the old handle is kept and reading goes on with it.
func (h *handle) reopen(groups [][]match, reverse bool) {
	cursor, err := h.j.GetCursor()
	if err != nil {
		return
	}
	fresh, err := sdjournal.NewJournalFromFiles(h.paths...)
	if err != nil {
		return
	}
	old := h.j
	h.j = fresh
	err = prepareHandle(fresh, groups)
	if err == nil {
		err = fresh.SeekCursor(cursor)
	}
	if err == nil {
		err = h.onCursor(cursor, reverse)
	}
	if err != nil {
		h.j = old
		_ = fresh.Close()
		return
	}
	_ = old.Close()
}

// onCursor steps onto the entry at cursor after a seek to it.
func (h *handle) onCursor(cursor string, reverse bool) error {
	n, err := h.step(reverse)
	if err != nil {
		return err
	}
	if n == 0 {
		return errors.New("sdjournal: entry at cursor is gone")
	}
	return h.j.TestCursor(cursor)
}

// prepareHandle installs the match groups and the data size limit.
func prepareHandle(j *sdjournal.Journal, groups [][]match) error {
	if err := addMatchGroups(j, groups); err != nil {
		return err
	}
	if err := j.SetDataThreshold(uint64(maxFieldNameBytes + 1 + MaxMessageBytes)); err != nil {
		return fmt.Errorf("sdjournal: %w", err)
	}
	return nil
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
func readOpened(ctx context.Context, h *handle, q Query, emit func(Entry) error) error {
	p, err := newPlan(q, h.j.GetUniqueValues)
	if err != nil || p.noMatch {
		return err
	}
	if err := prepareHandle(h.j, p.groups); err != nil {
		return err
	}
	if err := seekStart(h.j, p, q.Reverse); err != nil {
		return err
	}
	for visited := 1; ; visited++ {
		if ctx.Err() != nil {
			return canceled(ctx)
		}
		if h.dueForReopen(visited) {
			h.reopen(p.groups, q.Reverse)
		}
		n, err := h.step(q.Reverse)
		if err != nil {
			return fmt.Errorf("sdjournal: next entry: %w", err)
		}
		if n == 0 {
			return nil
		}
		r, ok := currentRecord(h.j)
		if !ok || !p.accepts(r) {
			continue
		}
		if err := emit(r.Entry); err != nil {
			return emitError(err)
		}
	}
}

// seekStart places the journal before the first entry to read: the oldest
// one the plan may keep, or, in reverse, the newest one.
func seekStart(j *sdjournal.Journal, p *plan, reverse bool) error {
	var err error
	if reverse {
		err = j.SeekTail()
	} else if micros := p.sinceMicros(); !p.since.IsZero() && micros > 0 {
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
		setRecordField(r, name, value)
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
