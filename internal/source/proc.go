package source

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Live is a source computed in Go from the running machine (/proc, /sys,
// system calls), or from several runs of one of its tools (ethtool per
// interface, see steps.go). Under --root it is skipped: it would describe
// the machine collect runs on, not the node whose volume is mounted.
type Live struct {
	name     string
	tree     *Tree
	to       string
	fn       func(ctx context.Context, w io.Writer) error
	deadline time.Duration
}

// defaultLiveDeadline bounds a live reader unless it says otherwise.
const defaultLiveDeadline = 15 * time.Second

// NewLive returns a source that stages what fn writes at to.
func NewLive(name string, tree *Tree, to string, fn func(ctx context.Context, w io.Writer) error) *Live {
	return &Live{name: name, tree: tree, to: to, fn: fn, deadline: defaultLiveDeadline}
}

// WithDeadline sets the source's own time limit, for readers that run a
// tool several times (once per interface, per file system).
func (s *Live) WithDeadline(d time.Duration) *Live {
	s.deadline = d
	return s
}

// Name is the source name.
func (s *Live) Name() string { return s.name }

// Deadline bounds the reading.
func (s *Live) Deadline() time.Duration { return s.deadline }

// Collect runs fn on the live machine.
func (s *Live) Collect(ctx context.Context, out Sink) error {
	if !s.tree.Live() {
		return fmt.Errorf("%w: describes the running machine, not --root %s", ErrSkipped, s.tree.Dir())
	}
	f, err := out.Create(s.to)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	err = s.fn(ctx, w)
	if errors.Is(err, ErrSkipped) && w.Buffered() == 0 && f.written == 0 {
		return errors.Join(err, f.Discard())
	}
	return errors.Join(err, w.Flush(), f.Close())
}

// Uname writes what `uname -a` shows.
func Uname(_ context.Context, w io.Writer) error {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return fmt.Errorf("uname: %w", err)
	}
	_, err := fmt.Fprintf(w, "%s %s %s %s %s GNU/Linux\n",
		utsString(u.Sysname[:]), utsString(u.Nodename[:]), utsString(u.Release[:]), utsString(u.Version[:]), utsString(u.Machine[:]))
	return err
}

// KernelRelease is the running kernel's release ("6.1.112-122.189.amzn2023.x86_64").
func KernelRelease() string {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return ""
	}
	return utsString(u.Release[:])
}

func utsString(field []int8) string {
	b := make([]byte, 0, len(field))
	for _, c := range field {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return string(b)
}

// Uptime writes the time since boot and the load averages.
func Uptime(_ context.Context, w io.Writer) error {
	up, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return fmt.Errorf("reading /proc/uptime: %w", err)
	}
	fields := strings.Fields(string(up))
	if len(fields) == 0 {
		return fmt.Errorf("/proc/uptime: empty")
	}
	seconds, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return fmt.Errorf("/proc/uptime: %w", err)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	since := time.Now().Add(-time.Duration(seconds * float64(time.Second))).UTC()
	_, err = fmt.Fprintf(w, "up %s (since %s)\nload average: %s\n",
		time.Duration(seconds)*time.Second, since.Format(time.RFC3339), strings.TrimSpace(string(load)))
	return err
}

// mount is one line of /proc/self/mounts.
type mount struct {
	device, point, fstype string
}

func readMounts() ([]mount, []byte, error) {
	return readMountsFrom("/proc/self/mounts")
}

// readMountsFrom reads a mount table in the /proc/mounts format.
func readMountsFrom(table string) ([]mount, []byte, error) {
	data, err := os.ReadFile(table)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", table, err)
	}
	var mounts []mount
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 {
			mounts = append(mounts, mount{device: unescapeMount(f[0]), point: unescapeMount(f[1]), fstype: f[2]})
		}
	}
	return mounts, data, nil
}

// unescapeMount undoes the octal escapes (\040 for a space) of mount tables.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// pseudoFS are file systems without disk usage worth showing.
var pseudoFS = map[string]bool{
	"proc": true, "sysfs": true, "cgroup": true, "cgroup2": true, "devpts": true, "mqueue": true,
	"debugfs": true, "tracefs": true, "securityfs": true, "pstore": true, "bpf": true,
	"configfs": true, "fusectl": true, "hugetlbfs": true, "autofs": true, "binfmt_misc": true,
	"rpc_pipefs": true, "nsfs": true, "selinuxfs": true,
}

// statfsTimeout bounds one statfs: a hung network mount (EFS, NFS) must not
// hold the whole source.
const statfsTimeout = 2 * time.Second

// Mounts writes the mount table, a blank line and the disk usage of every
// mounted file system, like `mount; df -h`.
func Mounts(ctx context.Context, w io.Writer) error {
	mounts, raw, err := readMounts()
	if err != nil {
		return err
	}
	if _, err := w.Write(raw); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%-40s %-10s %12s %12s %12s %5s %s\n", "Filesystem", "Type", "Size", "Used", "Avail", "Use%", "Mounted on")
	return usage(ctx, w, mounts, func(st *syscall.Statfs_t) (total, used, free uint64) {
		bs := uint64(st.Bsize)
		return st.Blocks * bs, (st.Blocks - st.Bfree) * bs, st.Bavail * bs
	}, humanBytes)
}

// Inodes writes the inode usage of every mounted file system, like `df -i`.
func Inodes(ctx context.Context, w io.Writer) error {
	mounts, _, err := readMounts()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%-40s %-10s %12s %12s %12s %5s %s\n", "Filesystem", "Type", "Inodes", "IUsed", "IFree", "IUse%", "Mounted on")
	return usage(ctx, w, mounts, func(st *syscall.Statfs_t) (total, used, free uint64) {
		return st.Files, st.Files - st.Ffree, st.Ffree
	}, func(n uint64) string { return strconv.FormatUint(n, 10) })
}

func usage(ctx context.Context, w io.Writer, mounts []mount, pick func(*syscall.Statfs_t) (uint64, uint64, uint64), format func(uint64) string) error {
	for _, m := range mounts {
		if pseudoFS[m.fstype] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		st, err := statfsWithin(ctx, m.point)
		if err != nil {
			fmt.Fprintf(w, "%-40s %-10s %s: %v\n", m.device, m.fstype, m.point, err)
			continue
		}
		total, used, free := pick(st)
		if total == 0 {
			continue
		}
		pct := (used*100 + total - 1) / total
		fmt.Fprintf(w, "%-40s %-10s %12s %12s %12s %4d%% %s\n", m.device, m.fstype, format(total), format(used), format(free), pct, m.point)
	}
	return nil
}

// statfsWithin runs statfs in a goroutine so that a hung mount only costs
// statfsTimeout; the goroutine is left behind if the kernel never answers.
func statfsWithin(ctx context.Context, p string) (*syscall.Statfs_t, error) {
	type result struct {
		st  syscall.Statfs_t
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		r.err = syscall.Statfs(p, &r.st)
		done <- r
	}()
	timer := time.NewTimer(statfsTimeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return &r.st, r.err
	case <-timer.C:
		return nil, errors.New("statfs did not answer (hung mount?)")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func humanBytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatUint(n, 10)
	}
	value, suffix := float64(n), ""
	for _, s := range []string{"K", "M", "G", "T", "P"} {
		value /= unit
		suffix = s
		if value < unit {
			break
		}
	}
	return strconv.FormatFloat(value, 'f', 1, 64) + suffix
}

// Sysctls writes every readable kernel parameter under /proc/sys as
// "name = value" lines, like `sysctl --all`.
func Sysctls(ctx context.Context, w io.Writer) error {
	const base = "/proc/sys"
	return filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Mode().Perm()&0o444 == 0 {
			return nil
		}
		value, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		name := strings.ReplaceAll(strings.TrimPrefix(p, base+"/"), "/", ".")
		text := strings.Join(strings.Fields(string(value)), "\t")
		_, err = fmt.Fprintf(w, "%s = %s\n", name, text)
		return err
	})
}

// Modules writes the loaded kernel modules whose name contains one of the
// words, like `lsmod | grep -e word...`.
func Modules(words ...string) func(context.Context, io.Writer) error {
	return func(_ context.Context, w io.Writer) error {
		data, err := os.ReadFile("/proc/modules")
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w: no /proc/modules (kernel without modules)", ErrSkipped)
		}
		if err != nil {
			return fmt.Errorf("reading /proc/modules: %w", err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			for _, word := range words {
				if strings.Contains(line, word) {
					fmt.Fprintln(w, line)
					break
				}
			}
		}
		return nil
	}
}

// Kmsg writes the kernel ring buffer from /dev/kmsg in dmesg's default
// form ("[   12.345678] message"), for machines without dmesg.
func Kmsg(ctx context.Context, w io.Writer) error {
	f, err := os.OpenFile("/dev/kmsg", os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("opening /dev/kmsg: %w", err)
	}
	defer f.Close()
	buf := make([]byte, 16<<10)
	for ctx.Err() == nil {
		n, err := syscall.Read(int(f.Fd()), buf)
		if errors.Is(err, syscall.EAGAIN) {
			return nil
		}
		if errors.Is(err, syscall.EPIPE) {
			continue // records were overwritten while reading; go on
		}
		if err != nil {
			return fmt.Errorf("reading /dev/kmsg: %w", err)
		}
		if n <= 0 {
			return nil
		}
		if line, ok := FormatKmsg(buf[:n]); ok {
			if _, err := io.WriteString(w, line); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// FormatKmsg turns one /dev/kmsg record ("6,339,5140900,-;message\n" plus
// continuation lines) into a dmesg line with a newline.
func FormatKmsg(record []byte) (string, bool) {
	head, rest, ok := bytes.Cut(record, []byte(";"))
	if !ok {
		return "", false
	}
	fields := strings.Split(string(head), ",")
	if len(fields) < 3 {
		return "", false
	}
	usec, err := strconv.ParseUint(fields[2], 10, 64)
	if err != nil {
		return "", false
	}
	message, _, _ := bytes.Cut(rest, []byte("\n"))
	return fmt.Sprintf("[%5d.%06d] %s\n", usec/1e6, usec%1e6, message), true
}

// Addresses writes the network interfaces and their addresses, for
// machines without the ip tool.
func Addresses(_ context.Context, w io.Writer) error {
	ifaces, err := net.Interfaces()
	if err != nil {
		return fmt.Errorf("listing interfaces: %w", err)
	}
	for _, iface := range ifaces {
		fmt.Fprintf(w, "%d: %s: <%s> mtu %d\n    link/ether %s\n", iface.Index, iface.Name, iface.Flags, iface.MTU, iface.HardwareAddr)
		addrs, err := iface.Addrs()
		if err != nil {
			fmt.Fprintf(w, "    (addresses: %v)\n", err)
			continue
		}
		for _, a := range addrs {
			fmt.Fprintf(w, "    inet %s\n", a)
		}
	}
	return nil
}

// Processes writes pid, parent, state and command line of every process,
// for machines without ps.
func Processes(ctx context.Context, w io.Writer) error {
	fmt.Fprintf(w, "%8s %8s %s %s\n", "PID", "PPID", "S", "COMMAND")
	return forEachPid(ctx, "/proc", func(pid int, dir string) error {
		stat, err := os.ReadFile(filepath.Join(dir, "stat"))
		if err != nil {
			return nil // the process is gone
		}
		comm, state, ppid := parseProcStat(stat)
		cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		command := strings.TrimSpace(string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		if command == "" {
			command = "[" + comm + "]"
		}
		_, err = fmt.Fprintf(w, "%8d %8s %s %s\n", pid, ppid, state, command)
		return err
	})
}

// parseProcStat reads the command name, state and parent pid of a
// /proc/<pid>/stat line; the name is in parentheses and may hold spaces.
func parseProcStat(stat []byte) (comm, state, ppid string) {
	comm, rest, ok := procStatFields(stat)
	if !ok {
		return "", "?", "?"
	}
	if len(rest) < 2 {
		return comm, "?", "?"
	}
	return comm, rest[0], rest[1]
}

// procStatFields splits a /proc/<pid>/stat line into the command name
// (field 2, without its parentheses) and the fields after it, so that
// field n (1-based, as in proc(5)) is rest[n-3]. The name may hold spaces
// and parentheses: it ends at the last ')'.
func procStatFields(stat []byte) (comm string, rest []string, ok bool) {
	open := bytes.IndexByte(stat, '(')
	closing := bytes.LastIndexByte(stat, ')')
	if open < 0 || closing < open {
		return "", nil, false
	}
	return string(stat[open+1 : closing]), strings.Fields(string(stat[closing+1:])), true
}

// procStatField returns field n (1-based, as in proc(5)) of a
// /proc/<pid>/stat line after the command name (n >= 3).
func procStatField(rest []string, n int) (string, bool) {
	i := n - 3
	if i < 0 || i >= len(rest) {
		return "", false
	}
	return rest[i], true
}
