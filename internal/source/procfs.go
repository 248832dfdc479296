package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// Readers of the per-process files of /proc. Each takes the /proc folder as
// a parameter ("/proc" on the node) so that tests can point it at a tree of
// their own. A process that exits while it is read is left out.

// largeEnvironment is the number of environment entries above which a
// process is listed by LargeEnvironments, as eks-log-collector.sh does.
const largeEnvironment = 1000

// maxEnvironBytes bounds how much of one /proc/<pid>/environ is scanned.
const maxEnvironBytes = 64 << 20

// procStatBlockIODelay is delayacct_blkio_ticks in proc(5): the time the process
// waited for block I/O, in clock ticks (centiseconds).
const procStatBlockIODelay = 42

// processIDs lists the process folders of procRoot in numeric order.
func processIDs(procRoot string) ([]int, error) {
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", procRoot, err)
	}
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	return out, nil
}

// forEachPid calls fn for every process of procRoot, stopping when ctx ends
// or fn fails.
func forEachPid(ctx context.Context, procRoot string, fn func(pid int, dir string) error) error {
	list, err := processIDs(procRoot)
	if err != nil {
		return err
	}
	for _, pid := range list {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(pid, filepath.Join(procRoot, strconv.Itoa(pid))); err != nil {
			return err
		}
	}
	return nil
}

// AllProcStat writes the stat line of every process, like
// `cat /proc/[0-9]*/stat`.
func AllProcStat(procRoot string) func(context.Context, io.Writer) error {
	return func(ctx context.Context, w io.Writer) error {
		return forEachPid(ctx, procRoot, func(_ int, dir string) error {
			stat, err := os.ReadFile(filepath.Join(dir, "stat"))
			if err != nil || len(stat) == 0 {
				return nil
			}
			if stat[len(stat)-1] != '\n' {
				stat = append(stat, '\n')
			}
			_, err = w.Write(stat)
			return err
		})
	}
}

// LargeEnvironments writes "PID\tCount" and then the processes whose
// environment holds more than 1000 entries, with the count. Only entries
// are counted; no value is ever read into the output.
func LargeEnvironments(procRoot string) func(context.Context, io.Writer) error {
	return func(ctx context.Context, w io.Writer) error {
		if _, err := io.WriteString(w, "PID\tCount\n"); err != nil {
			return err
		}
		return forEachPid(ctx, procRoot, func(pid int, dir string) error {
			n, err := countEnvironEntries(filepath.Join(dir, "environ"))
			if err != nil || n <= largeEnvironment {
				return nil
			}
			_, err = fmt.Fprintf(w, "%d\t%d\n", pid, n)
			return err
		})
	}
}

// countEnvironEntries counts the NUL-separated entries of an environ file
// without keeping them.
func countEnvironEntries(p string) (int, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	var n, read int
	last := byte(0)
	for read < maxEnvironBytes {
		k, err := f.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{0})
			last = buf[k-1]
			read += k
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if last != 0 {
		n++ // the last entry has no terminating NUL
	}
	return n, nil
}

// IOThrottling writes, for every process that waited for block I/O, its
// pid, command name (in parentheses, as in the stat line, since it may hold
// spaces) and the wait in centiseconds (field 42 of its stat line), under the header eks-log-collector.sh uses (its spelling kept, so
// that tools reading its file read this one).
func IOThrottling(procRoot string) func(context.Context, io.Writer) error {
	return func(ctx context.Context, w io.Writer) error {
		if _, err := io.WriteString(w, "PID Name Block IO Delay (centisconds)\n"); err != nil {
			return err
		}
		return forEachPid(ctx, procRoot, func(pid int, dir string) error {
			stat, err := os.ReadFile(filepath.Join(dir, "stat"))
			if err != nil {
				return nil
			}
			comm, ticks, ok := blockIODelay(stat)
			if !ok || ticks == 0 {
				return nil
			}
			_, err = fmt.Fprintf(w, "%d (%s) %d\n", pid, comm, ticks)
			return err
		})
	}
}

// blockIODelay reads the command name and delayacct_blkio_ticks of a
// /proc/<pid>/stat line.
func blockIODelay(stat []byte) (comm string, ticks uint64, ok bool) {
	comm, rest, ok := procStatFields(stat)
	if !ok {
		return "", 0, false
	}
	field, ok := procStatField(rest, procStatBlockIODelay)
	if !ok {
		return "", 0, false
	}
	ticks, err := strconv.ParseUint(field, 10, 64)
	if err != nil {
		return "", 0, false
	}
	return comm, ticks, true
}
