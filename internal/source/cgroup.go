package source

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Bounds of the walk of the cgroup tree: a node with thousands of pods must
// not turn one file into minutes of reading.
const (
	maxCgroupDepth   = 16
	maxCgroups       = 20000
	maxCgroupPids    = 64
	maxCgroupProcsSz = 1 << 20
)

// noCPUThrottling is what cpu_throttling.txt says when no cgroup was
// throttled, as eks-log-collector.sh writes it.
const noCPUThrottling = "No CPU Throttling Found\n"

// cpuStatKeys are the lines of cpu.stat worth showing: cgroup v2 counts the
// throttled time in throttled_usec, v1 in throttled_time (nanoseconds).
var cpuStatKeys = []string{"nr_periods", "nr_throttled", "throttled_usec", "throttled_time"}

// errCgroupWalkLimit stops the walk at maxCgroups folders.
var errCgroupWalkLimit = errors.New("too many cgroups")

// CPUThrottling walks the cgroup tree under cgroupRoot (/sys/fs/cgroup:
// cgroup v2, or the v1 cpu controller folders beneath it) and writes every
// cgroup whose cpu.stat counts throttled periods, with its counters and the
// processes in it (command names read under procRoot), or "No CPU
// Throttling Found".
func CPUThrottling(cgroupRoot, procRoot string) func(context.Context, io.Writer) error {
	return func(ctx context.Context, w io.Writer) error {
		if _, err := os.Stat(cgroupRoot); err != nil {
			return fmt.Errorf("%w: no cgroup tree: %w", ErrSkipped, err)
		}
		found, visited := 0, 0
		err := filepath.WalkDir(cgroupRoot, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil // an unreadable folder holds nothing we can show
			}
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			if visited++; visited > maxCgroups {
				return errCgroupWalkLimit
			}
			if cgroupDepth(cgroupRoot, p) > maxCgroupDepth {
				return fs.SkipDir
			}
			stat, throttled := readCPUStat(filepath.Join(p, "cpu.stat"))
			if !throttled {
				return nil
			}
			found++
			return writeThrottledCgroup(w, p, stat, procRoot)
		})
		if errors.Is(err, errCgroupWalkLimit) {
			_, err = fmt.Fprintf(w, "(walk stopped after %d cgroups)\n", maxCgroups)
		}
		if err != nil {
			return fmt.Errorf("walking %s: %w", cgroupRoot, err)
		}
		if found == 0 {
			_, err = io.WriteString(w, noCPUThrottling)
		}
		return err
	}
}

// cgroupDepth is how many folders p lies below root.
func cgroupDepth(root, p string) int {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." {
		return 0
	}
	return strings.Count(rel, string(filepath.Separator)) + 1
}

// cpuStatLine is one counter of cpu.stat.
type cpuStatLine struct {
	key   string
	value uint64
}

// readCPUStat reads the counters of a cpu.stat file worth showing, and
// whether nr_throttled is above zero.
func readCPUStat(p string) ([]cpuStatLine, bool) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	return parseCPUStat(data)
}

// parseCPUStat reads the "key value" lines of cpu.stat.
func parseCPUStat(data []byte) ([]cpuStatLine, bool) {
	var lines []cpuStatLine
	throttled := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 || !slices.Contains(cpuStatKeys, f[0]) {
			continue
		}
		v, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			continue
		}
		lines = append(lines, cpuStatLine{f[0], v})
		if f[0] == "nr_throttled" && v > 0 {
			throttled = true
		}
	}
	return lines, throttled
}

// writeThrottledCgroup writes one throttled cgroup: the path of its
// cpu.stat, its counters and its processes.
func writeThrottledCgroup(w io.Writer, dir string, stat []cpuStatLine, procRoot string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", filepath.Join(dir, "cpu.stat"))
	for _, l := range stat {
		fmt.Fprintf(&b, "  %s %d\n", l.key, l.value)
	}
	pids, more := cgroupProcs(filepath.Join(dir, "cgroup.procs"))
	if len(pids) > 0 {
		fmt.Fprintf(&b, "  %8s %s\n", "PID", "COMMAND")
	}
	for _, pid := range pids {
		fmt.Fprintf(&b, "  %8s %s\n", pid, processName(procRoot, pid))
	}
	if more > 0 {
		fmt.Fprintf(&b, "  ... and %d more processes\n", more)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// cgroupProcs returns the first maxCgroupPids pids of a cgroup.procs file
// and how many more it lists.
func cgroupProcs(p string) (pids []string, more int) {
	f, err := os.Open(p)
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxCgroupProcsSz))
	for sc.Scan() {
		pid := strings.TrimSpace(sc.Text())
		if _, err := strconv.Atoi(pid); err != nil {
			continue
		}
		if len(pids) < maxCgroupPids {
			pids = append(pids, pid)
		} else {
			more++
		}
	}
	return pids, more
}

// processName is the command name of a process, "?" when it is gone.
func processName(procRoot, pid string) string {
	comm, err := os.ReadFile(filepath.Join(procRoot, pid, "comm"))
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(comm))
}
