package source

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Live readers that run a tool several times (once per network interface,
// per file system, per container). Each run has its own deadline; a tool
// that is not installed skips the whole source.

// stepTimeout bounds one run of a tool inside such a reader.
const stepTimeout = 10 * time.Second

// maxInterfaces bounds how many network interfaces ethtool is run on.
const maxInterfaces = 1024

// lookTool finds a tool on PATH; a missing one wraps ErrSkipped.
func lookTool(name string) (string, error) {
	bin, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w: %s is not installed", ErrSkipped, name)
	}
	return bin, nil
}

// runStep runs bin with args for at most timeout, standard output to w.
func runStep(ctx context.Context, w io.Writer, timeout time.Duration, bin string, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return Run(ctx, w, bin, args...)
}

// cappedBuffer keeps the first max bytes written to it and notes the rest.
type cappedBuffer struct {
	max  int
	buf  bytes.Buffer
	over bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if len(p) > room {
		c.over = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}

// capture runs a tool and returns its standard output, which must fit in
// limit bytes.
func capture(ctx context.Context, limit int, bin string, args ...string) ([]byte, error) {
	out := &cappedBuffer{max: limit}
	if err := runStep(ctx, out, stepTimeout, bin, args...); err != nil {
		return nil, err
	}
	if out.over {
		return nil, fmt.Errorf("%s %s: output over %d bytes", bin, strings.Join(args, " "), limit)
	}
	return out.buf.Bytes(), nil
}

// safeArgument tells whether a name read from the node (an interface, a
// mount point) can be given to a tool without being taken for an option.
func safeArgument(s string) bool { return s != "" && !strings.HasPrefix(s, "-") }

// stepFailures tallies the runs of a tool in a reader: a run that fails is
// noted in the file and the reader goes on, but when every run failed the
// source fails too, so the manifest shows it.
type stepFailures struct {
	runs  int
	first error
	count int
}

// run runs one step and notes its failure in w. It returns an error only
// when the whole reader must stop (its context ended, or w failed).
func (s *stepFailures) run(ctx context.Context, w io.Writer, bin string, args ...string) error {
	s.runs++
	err := runStep(ctx, w, stepTimeout, bin, args...)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s %s: %w", bin, strings.Join(args, " "), ctxErr)
	}
	if err == nil {
		return nil
	}
	s.count++
	if s.first == nil {
		s.first = err
	}
	_, werr := fmt.Fprintf(w, "(failed: %v)\n", err)
	return werr
}

// result is the reader's error: nil unless every run failed.
func (s *stepFailures) result(what string) error {
	if s.runs > 0 && s.count == s.runs {
		return fmt.Errorf("%s failed every time (%d): %w", what, s.runs, s.first)
	}
	return nil
}

// EthtoolStats writes `ethtool -S` of every network interface listed in
// sysClassNet (/sys/class/net) but the loopback, each block headed
// "Interface <name>" as eks-log-collector.sh does. The ENA driver shows its
// allowance counters there (packets dropped at the instance's limits).
func EthtoolStats(sysClassNet string) func(context.Context, io.Writer) error {
	return func(ctx context.Context, w io.Writer) error {
		bin, err := lookTool("ethtool")
		if err != nil {
			return err
		}
		names, err := interfaceNames(sysClassNet)
		if err != nil {
			return err
		}
		var steps stepFailures
		for _, name := range names {
			if _, err := fmt.Fprintf(w, "Interface %s\n", name); err != nil {
				return err
			}
			if err := steps.run(ctx, w, bin, "-S", name); err != nil {
				return err
			}
		}
		return steps.result("ethtool -S")
	}
}

// interfaceNames lists the network interfaces of sysClassNet but "lo", in
// name order, at most maxInterfaces. Interfaces are links (or folders);
// regular files there, such as bonding_masters, are not interfaces.
func interfaceNames(sysClassNet string) ([]string, error) {
	entries, err := os.ReadDir(sysClassNet)
	if err != nil {
		return nil, fmt.Errorf("listing network interfaces in %s: %w", sysClassNet, err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() == "lo" || e.Type().IsRegular() || !safeArgument(e.Name()) {
			continue
		}
		if len(names) == maxInterfaces {
			break
		}
		names = append(names, e.Name())
	}
	return names, nil
}

// XFSInfo writes `xfs_info` of every XFS file system in the mount table
// (/proc/self/mounts), once per device, each block headed by the device
// and where it is mounted. xfs_db, which eks-log-collector.sh also runs,
// reads the raw device and can take long on a big disk; it is left out.
func XFSInfo(mountTable string) func(context.Context, io.Writer) error {
	return func(ctx context.Context, w io.Writer) error {
		mounts, _, err := readMountsFrom(mountTable)
		if err != nil {
			return err
		}
		xfs := xfsMounts(mounts)
		if len(xfs) == 0 {
			return fmt.Errorf("%w: no XFS file system is mounted", ErrSkipped)
		}
		bin, err := lookTool("xfs_info")
		if err != nil {
			return err
		}
		var steps stepFailures
		for _, m := range xfs {
			if _, err := fmt.Fprintf(w, "Device %s mounted on %s\n", m.device, m.point); err != nil {
				return err
			}
			if err := steps.run(ctx, w, bin, m.point); err != nil {
				return err
			}
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		return steps.result("xfs_info")
	}
}

// xfsMounts keeps the first mount of each XFS device (bind mounts of the
// same file system would repeat the same output).
func xfsMounts(mounts []mount) []mount {
	seen := map[string]bool{}
	var out []mount
	for _, m := range mounts {
		if m.fstype != "xfs" || seen[m.device] || !safeArgument(m.point) {
			continue
		}
		seen[m.device] = true
		out = append(out, m)
	}
	return out
}
