package journal

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// stderrKeepBytes is how much of journalctl's standard error an error
// message quotes.
const stderrKeepBytes = 4 << 10

// errEnoughRead stops a journalctl run once the caller has what it needs.
var errEnoughRead = errors.New("enough read")

// Journalctl reads the journal by running journalctl on the journal files
// and parsing its export output. It needs no cgo. The journalctl process (and
// anything it starts) is killed when the read's context ends.
type Journalctl struct {
	binary string
}

// NewJournalctl returns a reader that runs the journalctl at path; an empty
// path means "journalctl" looked up in PATH.
func NewJournalctl(path string) *Journalctl {
	if path == "" {
		path = "journalctl"
	}
	return &Journalctl{binary: path}
}

// Backend returns "journalctl".
func (*Journalctl) Backend() string { return "journalctl" }

// Read runs q against the journal files under q.Dir; see Reader and the
// package documentation for skipped files.
func (c *Journalctl) Read(ctx context.Context, q Query, emit func(Entry) error) error {
	files, err := findJournalFiles(q.Dir)
	if err != nil {
		return err
	}
	emitted := 0
	err = c.withOpenableFiles(ctx, &files, q.Dir, func(paths []string) (bool, error) {
		err := c.readFiles(ctx, paths, q, func(e Entry) error {
			emitted++
			return emit(e)
		})
		return emitted > 0, err
	})
	return errors.Join(err, files.err())
}

// Boots lists the boots in the journal files under dir, oldest first.
func (c *Journalctl) Boots(ctx context.Context, dir string) ([]Boot, error) {
	files, err := findJournalFiles(dir)
	if err != nil {
		return nil, err
	}
	var boots []Boot
	err = c.withOpenableFiles(ctx, &files, dir, func(paths []string) (bool, error) {
		var err error
		boots, err = c.listBoots(ctx, paths)
		return false, err
	})
	return boots, errors.Join(err, files.err())
}

// withOpenableFiles runs read on the files. journalctl refuses to start when
// one of its --file arguments cannot be opened; when read fails that way
// before producing anything, each file is tried alone, the ones journalctl
// cannot open are moved to the problems and read runs again on the rest.
func (c *Journalctl) withOpenableFiles(ctx context.Context, files *journalFiles, dir string, read func([]string) (bool, error)) error {
	produced, err := read(files.paths)
	var exitErr *exec.ExitError
	if err == nil || produced || !errors.As(err, &exitErr) {
		return err
	}
	total := len(files.paths)
	for _, path := range files.paths {
		if probeErr := c.run(ctx, fileArgs([]string{path}, "-n", "0"), drain); probeErr != nil {
			if ctx.Err() != nil {
				return canceled(ctx)
			}
			files.skip(path, probeErr)
		}
	}
	if len(files.paths) == total {
		return err
	}
	if len(files.paths) == 0 {
		return noJournal(dir, total, nil)
	}
	_, err = read(files.paths)
	return err
}

// readFiles reads the entries of q from the given files.
func (c *Journalctl) readFiles(ctx context.Context, paths []string, q Query, emit func(Entry) error) error {
	p, err := newPlan(q, func(field string) ([]string, error) {
		return c.uniqueValues(ctx, paths, field)
	})
	if err != nil || p.noMatch {
		return err
	}
	args := fileArgs(paths, "-o", "export")
	if q.Reverse {
		args = append(args, "--reverse")
	}
	if micros := p.sinceMicros(); !p.since.IsZero() && micros > 0 {
		args = append(args, fmt.Sprintf("--since=@%d.%06d", micros/1e6, micros%1e6))
	}
	args = append(args, matchArgs(p.groups)...)
	var emitErr error
	err = c.run(ctx, args, func(out io.Reader) error {
		return parseCompleteExport(out, func(r *record) error {
			if ctx.Err() != nil {
				return canceled(ctx)
			}
			if !p.accepts(r) {
				return nil
			}
			emitErr = emit(r.Entry)
			return emitErr
		})
	})
	if emitErr != nil {
		return emitError(emitErr)
	}
	return err
}

// listBoots finds each boot's first and last entry.
func (c *Journalctl) listBoots(ctx context.Context, paths []string) ([]Boot, error) {
	ids, err := c.uniqueValues(ctx, paths, "_BOOT_ID")
	if err != nil {
		return nil, err
	}
	byID := map[string]*Boot{}
	for _, id := range ids {
		for _, tail := range []bool{false, true} {
			t, found, err := c.bootEdge(ctx, paths, id, tail)
			if err != nil {
				return nil, err
			}
			if found {
				noteBootEntry(byID, id, t)
			}
		}
	}
	return sortedBoots(byID), nil
}

// bootEdge returns the time of the first (or, with tail, the last) entry of
// one boot.
func (c *Journalctl) bootEdge(ctx context.Context, paths []string, bootID string, tail bool) (time.Time, bool, error) {
	args := fileArgs(paths, "-o", "export", "_BOOT_ID="+bootID)
	if tail {
		args = append(args, "-n", "1")
	}
	var at time.Time
	found := false
	err := c.run(ctx, args, func(out io.Reader) error {
		return parseCompleteExport(out, func(r *record) error {
			at, found = r.Time, true
			return errEnoughRead
		})
	})
	if errors.Is(err, errEnoughRead) {
		err = nil
	}
	return at, found, err
}

// uniqueValues lists the values that field takes in the files (journalctl -F).
func (c *Journalctl) uniqueValues(ctx context.Context, paths []string, field string) ([]string, error) {
	var values []string
	err := c.run(ctx, fileArgs(paths, "-F", field), func(out io.Reader) error {
		lines := bufio.NewScanner(out)
		lines.Buffer(make([]byte, 0, 4096), 1<<20)
		for lines.Scan() {
			values = append(values, lines.Text())
		}
		return lines.Err()
	})
	return values, err
}

// run starts journalctl with args, hands its standard output to consume and
// waits for it. When consume returns early the process group is killed. The
// end of ctx is reported first (reading is cut short then), then the error of
// consume, then journalctl's own failure with the start of its standard error.
func (c *Journalctl) run(ctx context.Context, args []string, consume func(io.Reader) error) error {
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	cmd := exec.CommandContext(runCtx, c.binary, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "SYSTEMD_COLORS=0", "SYSTEMD_LOG_COLOR=0")
	stderr := &headBuffer{limit: stderrKeepBytes}
	cmd.Stderr = stderr
	cmd.WaitDelay = 5 * time.Second
	killProcessGroupOnCancel(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("journalctl: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("journalctl: %w", err)
	}
	consumeErr := consume(out)
	if consumeErr != nil {
		stop()
	}
	waitErr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return canceled(ctx)
	case consumeErr != nil:
		return consumeErr
	case waitErr != nil:
		return fmt.Errorf("journalctl %s: %w: %s", describeArgs(args), waitErr, stderr.text())
	}
	return nil
}

// fileArgs starts a journalctl command line: the files, the options every
// run uses, then extra.
func fileArgs(paths []string, extra ...string) []string {
	args := make([]string, 0, len(paths)+len(extra)+2)
	for _, p := range paths {
		args = append(args, "--file="+p)
	}
	args = append(args, "--no-pager", "--quiet")
	return append(args, extra...)
}

// matchArgs writes match groups as journalctl arguments, "+" between groups.
func matchArgs(groups [][]match) []string {
	var args []string
	for i, group := range groups {
		if i > 0 {
			args = append(args, "+")
		}
		for _, m := range group {
			args = append(args, m.String())
		}
	}
	return args
}

// describeArgs summarizes a command line for an error message, leaving out
// the list of files.
func describeArgs(args []string) string {
	var kept []string
	files := 0
	for _, a := range args {
		if strings.HasPrefix(a, "--file=") {
			files++
			continue
		}
		kept = append(kept, a)
	}
	return fmt.Sprintf("(%d files) %s", files, strings.Join(kept, " "))
}

// drain reads and drops everything.
func drain(r io.Reader) error {
	_, err := io.Copy(io.Discard, r)
	return err
}

// headBuffer keeps the first limit bytes written to it and drops the rest.
type headBuffer struct {
	buf   bytes.Buffer
	limit int
}

// Write keeps what fits and reports everything as written.
func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.limit - h.buf.Len(); room > 0 {
		h.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// text returns the kept bytes on one line.
func (h *headBuffer) text() string {
	return strings.Join(strings.Fields(h.buf.String()), " ")
}
