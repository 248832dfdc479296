package source

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nodetriage/nodetriage/internal/journal"
)

// journalDirs are where systemd keeps the journal: persistent, then volatile.
var journalDirs = []string{"/var/log/journal", "/run/log/journal"}

// Journal is the node's systemd journal as the sources read it. The journal
// files of both journal folders are resolved inside the root and linked
// from one scratch folder, so that a reader sees every file at once and never
// follows a link of the node to the files of this machine.
type Journal struct {
	Reader journal.Reader
	Since  time.Time
	// TailBytes, when above zero, is how many bytes of text one journal file
	// of the bundle may take: only the newest entries that fit are read,
	// found by reading the journal newest first, so that the older part of
	// a big journal is never read nor formatted. Zero writes everything.
	// With a TailBytes, at most budgetReads journal files are written at
	// once, since every open journal handle maps part of the journal files
	// into memory.
	TailBytes int64

	readSlots chan struct{}

	dir      string
	err      error
	problems error

	bootsOnce sync.Once
	boots     []journal.Boot
	bootsErr  error
}

// PrepareJournal links the node's journal files into scratch (an empty
// folder outside the staging folder). When there are none, every journal
// source is skipped with the reason.
func PrepareJournal(tree *Tree, reader journal.Reader, scratch string, since time.Time) *Journal {
	j := &Journal{Reader: reader, Since: since, dir: scratch, readSlots: make(chan struct{}, budgetReads)}
	var problems []error
	n := 0
	for _, dir := range journalDirs {
		if !tree.Exists(dir) {
			continue
		}
		_ = tree.WalkFiles(dir, journal.MaxDirDepth, func(rel string, err error) error {
			if err != nil {
				problems = append(problems, fmt.Errorf("journal folder %s: %w", path.Join(dir, rel), err))
				return nil
			}
			if !isJournalFile(rel) {
				return nil
			}
			host, err := tree.HostPath(path.Join(dir, rel))
			if err == nil {
				n++
				link := filepath.Join(scratch, fmt.Sprintf("%03d-%s", n, strings.ReplaceAll(rel, "/", "_")))
				err = os.Symlink(host, link)
			}
			if err != nil {
				problems = append(problems, fmt.Errorf("journal file %s: %w", path.Join(dir, rel), err))
			}
			return nil
		})
	}
	j.problems = errors.Join(problems...)
	if n == 0 {
		j.err = fmt.Errorf("%w: no journal files under %s in %s", ErrSkipped, strings.Join(journalDirs, " or "), tree.Dir())
		if j.problems != nil {
			j.err = fmt.Errorf("%w: %w", j.err, j.problems)
		}
	}
	return j
}

func isJournalFile(name string) bool {
	return strings.HasSuffix(name, ".journal") || strings.HasSuffix(name, ".journal~")
}

// Available reports whether there are journal files to read.
func (j *Journal) Available() bool { return j.err == nil }

// Boots lists the boots in the journal, oldest first; the last one is the
// current (or, under --root, the last) boot.
func (j *Journal) Boots(ctx context.Context) ([]journal.Boot, error) {
	j.bootsOnce.Do(func() {
		if j.err != nil {
			j.bootsErr = j.err
			return
		}
		j.boots, j.bootsErr = journal.ListBoots(ctx, j.Reader, j.dir)
	})
	return j.boots, j.bootsErr
}

// write renders the entries q selects into the bundle file to, one
// short-iso-precise line each, creating the file at the first entry. The
// entries of the last boot written are marked as the part to keep when the
// size budget cuts. It reports how many entries it wrote.
func (j *Journal) write(ctx context.Context, out Sink, to string, q journal.Query) (int, error) {
	q.Dir = j.dir
	if j.TailBytes > 0 {
		release, err := j.takeReadSlot(ctx)
		if err != nil {
			return 0, err
		}
		defer release()
		return j.writeNewest(ctx, out, to, q)
	}
	count, written, err := j.writeForward(ctx, out, to, q)
	if written != nil {
		err = errors.Join(err, written.Close())
	}
	return count, skippedWhenNoJournal(err)
}

// budgetReads is how many journal files are written at once under a size
// budget: enough to keep two cores busy, few enough that the journal
// mappings of the readers do not add up.
const budgetReads = 2

// takeReadSlot waits for one of the budgetReads slots and returns the
// function that gives it back.
func (j *Journal) takeReadSlot(ctx context.Context) (func(), error) {
	if j.readSlots == nil {
		return func() {}, nil
	}
	select {
	case j.readSlots <- struct{}{}:
		return func() { <-j.readSlots }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting to read the journal: %w", context.Cause(ctx))
	}
}

// writeNewest writes the newest entries of q that fit TailBytes. It reads
// the journal newest first into a spool, stops as soon as the allowance is
// met, and writes the spooled lines oldest first. When entries were left
// out, their size is estimated (see olderBytes).
func (j *Journal) writeNewest(ctx context.Context, out Sink, to string, q journal.Query) (int, error) {
	sp, err := newSpool(filepath.Dir(j.dir))
	if err != nil {
		return 0, err
	}
	defer sp.remove()
	tail, err := j.spoolNewest(ctx, q, sp)
	if sp.count() == 0 {
		return 0, skippedWhenNoJournal(err)
	}
	f, cerr := out.Create(to)
	if cerr != nil {
		return 0, errors.Join(err, cerr)
	}
	w := bufio.NewWriterSize(f, 64<<10)
	boot := ""
	werr := sp.replay(func(bootID, line string) error {
		if bootID != boot {
			if err := w.Flush(); err != nil {
				return err
			}
			f.Protect()
			boot = bootID
		}
		if _, err := w.WriteString(line); err != nil {
			return err
		}
		return w.WriteByte('\n')
	})
	werr = errors.Join(werr, w.Flush())
	if tail.cut {
		f.EstimateHead(tail.olderBytes(ctx, j.Reader, q, f.Written()))
	}
	return sp.count(), skippedWhenNoJournal(errors.Join(err, werr, f.Close()))
}

// spoolNewest reads q newest first into sp until TailBytes is met. The
// first entry is always kept, however long.
func (j *Journal) spoolNewest(ctx context.Context, q journal.Query, sp *spool) (newestTail, error) {
	var tail newestTail
	var total int64
	q.Reverse = true
	err := j.Reader.Read(ctx, q, func(e journal.Entry) error {
		line := journal.FormatShortISOPrecise(e)
		size := int64(len(line)) + 1
		if total+size > j.TailBytes && sp.count() > 0 {
			tail.cut = true
			return errAllowanceMet
		}
		total += size
		if sp.count() == 0 {
			tail.newest = e.Time
		}
		tail.from = e.Time
		return sp.add(e.BootID, line)
	})
	if tail.cut && errors.Is(err, errAllowanceMet) {
		err = nil
	}
	return tail, err
}

// skippedWhenNoJournal marks a read that found no journal as skipped.
func skippedWhenNoJournal(err error) error {
	if errors.Is(err, journal.ErrNoJournal) {
		return fmt.Errorf("%w: %w", ErrSkipped, err)
	}
	return err
}

// writeForward writes the entries q selects in journal order and returns
// the file, still open, when it created one. The file is written from
// another goroutine (see pipedFile).
func (j *Journal) writeForward(ctx context.Context, out Sink, to string, q journal.Query) (int, *File, error) {
	var f *File
	var pipe *pipedFile
	var w *bufio.Writer
	boot := ""
	count := 0
	err := j.Reader.Read(ctx, q, func(e journal.Entry) error {
		if f == nil {
			var err error
			if f, err = out.Create(to); err != nil {
				return err
			}
			pipe = newPipedFile(f)
			w = bufio.NewWriterSize(pipe, 64<<10)
		}
		if e.BootID != boot {
			if err := w.Flush(); err != nil {
				return err
			}
			pipe.Protect()
			boot = e.BootID
		}
		count++
		if _, err := w.WriteString(journal.FormatShortISOPrecise(e)); err != nil {
			return err
		}
		return w.WriteByte('\n')
	})
	if f != nil {
		err = errors.Join(err, w.Flush(), pipe.wait())
	}
	return count, f, err
}

// errAllowanceMet stops the newest-first read once the allowance is full.
var errAllowanceMet = errors.New("byte allowance met")

// newestTail is what a newest-first read found out about a selection.
type newestTail struct {
	cut    bool      // the selection holds more than the allowance
	from   time.Time // time of the oldest entry kept
	newest time.Time // time of the newest entry
}

// olderBytes estimates the text that the entries left out would have
// taken, from the time they span: the kept part's bytes per second times
// the span from the oldest entry of the whole selection to the first one
// kept. It is only an estimate: the manifest says so.
func (t newestTail) olderBytes(ctx context.Context, r journal.Reader, q journal.Query, kept int64) int64 {
	oldest := t.from
	q.Reverse = false
	_ = r.Read(ctx, q, func(e journal.Entry) error {
		oldest = e.Time
		return errAllowanceMet
	})
	keptSpan := t.newest.Sub(t.from)
	older := t.from.Sub(oldest)
	if older <= 0 {
		return 1
	}
	if keptSpan <= 0 {
		return max(kept, 1)
	}
	return max(int64(float64(kept)*float64(older)/float64(keptSpan)), 1)
}

// JournalUnit writes the journal of some units as text, as `journalctl -u`
// shows it: the units' own lines and what systemd logged about them.
type JournalUnit struct {
	name  string
	j     *Journal
	units []string
	to    string
	// perUnit, when set, writes one file per unit matching the patterns,
	// named by perUnit(unit name).
	perUnit func(unit string) string
}

// NewJournalUnit writes the entries of units (names or shell patterns) since
// the journal's Since into the bundle file to.
func NewJournalUnit(name string, j *Journal, to string, units ...string) *JournalUnit {
	return &JournalUnit{name: name, j: j, units: units, to: to}
}

// NewJournalUnitEach writes one file per unit matching patterns, named by
// to(unit) (for example udev-net-manager@eth0.service →
// nodeadm/udev-net-manager_eth0.log).
func NewJournalUnitEach(name string, j *Journal, to func(unit string) string, patterns ...string) *JournalUnit {
	return &JournalUnit{name: name, j: j, units: patterns, perUnit: to}
}

// Name is the source name.
func (s *JournalUnit) Name() string { return s.name }

// Deadline bounds the journal read.
func (s *JournalUnit) Deadline() time.Duration { return 45 * time.Second }

// Collect writes the unit's entries; a unit with no entries is skipped.
func (s *JournalUnit) Collect(ctx context.Context, out Sink) error {
	if s.j.err != nil {
		return s.j.err
	}
	if s.perUnit == nil {
		n, err := s.j.write(ctx, out, s.to, journal.Query{Units: s.units, Since: s.j.Since})
		if err == nil && n == 0 {
			return s.noEntries()
		}
		return err
	}
	units, err := s.matchingUnits(ctx)
	if err != nil {
		return err
	}
	if len(units) == 0 {
		return s.noEntries()
	}
	var errs []error
	for _, u := range units {
		if _, err := s.j.write(ctx, out, s.perUnit(u), journal.Query{Units: []string{u}, Since: s.j.Since}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (s *JournalUnit) noEntries() error {
	return fmt.Errorf("%w: no journal entries for %s since %s", ErrSkipped,
		strings.Join(s.units, ", "), s.j.Since.UTC().Format(time.RFC3339))
}

// matchingUnits lists the units of the journal that match the patterns.
func (s *JournalUnit) matchingUnits(ctx context.Context) ([]string, error) {
	seen := map[string]bool{}
	err := s.j.Reader.Read(ctx, journal.Query{Dir: s.j.dir, Units: s.units, Since: s.j.Since}, func(e journal.Entry) error {
		if e.Unit != "" && unitMatches(s.units, e.Unit) {
			seen[e.Unit] = true
		}
		return nil
	})
	units := make([]string, 0, len(seen))
	for u := range seen {
		units = append(units, u)
	}
	slices.Sort(units)
	if errors.Is(err, journal.ErrNoJournal) {
		err = fmt.Errorf("%w: %w", ErrSkipped, err)
	}
	return units, err
}

// unitMatches tells whether unit fits one of the patterns, a pattern
// without a unit suffix meaning a service.
func unitMatches(patterns []string, unit string) bool {
	for _, p := range patterns {
		if !strings.Contains(path.Base(p), ".") {
			p += ".service"
		}
		if ok, _ := path.Match(p, unit); ok {
			return true
		}
	}
	return false
}

// InstanceName returns the instance of a template unit: "eth0" for
// "udev-net-manager@eth0.service".
func InstanceName(unit string) string {
	_, inst, ok := strings.Cut(unit, "@")
	if !ok {
		return strings.TrimSuffix(unit, path.Ext(unit))
	}
	return strings.TrimSuffix(inst, path.Ext(inst))
}

// JournalBoots writes the whole journal of the current and the previous
// boot into journal/.
type JournalBoots struct {
	j *Journal
}

// NewJournalBoots returns the whole-journal source.
func NewJournalBoots(j *Journal) *JournalBoots { return &JournalBoots{j: j} }

// Name is the source name.
func (s *JournalBoots) Name() string { return "journal/boots" }

// Deadline bounds the journal reads.
func (s *JournalBoots) Deadline() time.Duration { return 60 * time.Second }

// Collect writes journal/boot-current.log and journal/boot-previous.log.
func (s *JournalBoots) Collect(ctx context.Context, out Sink) error {
	boots, err := s.j.Boots(ctx)
	if err != nil && len(boots) == 0 {
		return err
	}
	errs := []error{err, s.j.problems}
	names := []string{"journal/boot-current.log", "journal/boot-previous.log"}
	for i, name := range names {
		if i >= len(boots) {
			break
		}
		b := boots[len(boots)-1-i]
		if _, err := s.j.write(ctx, out, name, journal.Query{Boot: b.ID}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// KernelJournal writes the kernel messages of the last boot from the
// journal, for nodes read under --root where no dmesg can be run.
type KernelJournal struct {
	j  *Journal
	to string
}

// NewKernelJournal returns the source that writes the kernel log from the
// journal into the bundle file to.
func NewKernelJournal(j *Journal, to string) *KernelJournal { return &KernelJournal{j: j, to: to} }

// Name is the source name.
func (s *KernelJournal) Name() string { return "kernel/journal" }

// Deadline bounds the journal read.
func (s *KernelJournal) Deadline() time.Duration { return 45 * time.Second }

// Collect writes the kernel entries of the last boot.
func (s *KernelJournal) Collect(ctx context.Context, out Sink) error {
	boots, err := s.j.Boots(ctx)
	if len(boots) == 0 {
		if err == nil {
			err = fmt.Errorf("%w: the journal records no boot", ErrSkipped)
		}
		return err
	}
	n, err := s.j.write(ctx, out, s.to, journal.Query{Kernel: true, Boot: boots[len(boots)-1].ID})
	if err == nil && n == 0 {
		return fmt.Errorf("%w: no kernel messages in the journal of the last boot", ErrSkipped)
	}
	return err
}
