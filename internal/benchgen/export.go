package benchgen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"time"
)

// ExportOptions say what journal WriteJournalExport describes.
type ExportOptions struct {
	// Size is about how many bytes of export text to write.
	Size int64
	// Seed chooses the node (the same node Generate writes for that seed)
	// and every random choice.
	Seed uint64
	// End is the time of the last entry; the first is Span before it.
	End  time.Time
	Span time.Duration
}

// exportUnit is one systemd unit whose messages go into the journal.
type exportUnit struct {
	unit, ident, exe string
	pid              int
	weight           int
	message          func(id *identity) payloadMaker
}

var exportUnits = []exportUnit{
	{"kubelet.service", "kubelet", "/usr/bin/kubelet", pidKubelet, 60, func(*identity) payloadMaker { return kubeletPayload }},
	{"containerd.service", "containerd", "/usr/bin/containerd", pidContainerd, 36, func(*identity) payloadMaker { return containerdPayload }},
	{"nodeadm-config.service", "nodeadm", "/usr/bin/nodeadm", pidNodeadm, 2, func(id *identity) payloadMaker { return cycle(nodeadmConfigRun(id)) }},
	{"nodeadm-run.service", "nodeadm", "/usr/bin/nodeadm", pidNodeadmRun, 2, func(*identity) payloadMaker { return cycle(nodeadmRunRun()) }},
}

// cycle makes a maker that writes lines one after the other, over and over.
func cycle(lines []string) payloadMaker {
	next := 0
	return func(_ *gen, b []byte) []byte {
		b = append(b, lines[next]...)
		next = (next + 1) % len(lines)
		return b
	}
}

// WriteJournalExport writes journal export text (the format of
// journalctl -o export, which systemd-journal-remote reads) with the
// kubelet, containerd and nodeadm messages of a node, about opt.Size bytes,
// and returns how many bytes it wrote. Messages are the units' lines without
// the prefix journalctl adds when it prints them.
func WriteJournalExport(w io.Writer, opt ExportOptions) (int64, error) {
	if opt.Span <= 0 {
		opt.Span = 240 * time.Hour
	}
	id := newIdentity(opt.Seed)
	g := &gen{r: rand.New(rand.NewPCG(opt.Seed, 0x6a6f75726e616c)), id: id}
	makers := make([]payloadMaker, len(exportUnits))
	var picks []int
	for i, u := range exportUnits {
		makers[i] = u.message(id)
		for range u.weight {
			picks = append(picks, i)
		}
	}
	end := opt.End.UnixMicro()
	span := opt.Span.Microseconds()
	start := end - span
	g.boot = start - 10_000_000
	out := bufio.NewWriterSize(w, writeBufferSize)
	scale := float64(span) / float64(max(opt.Size, 1))
	var written int64
	buf := make([]byte, 0, 8<<10)
	for written < opt.Size {
		g.now.set(start + int64(float64(written)*scale))
		i := picks[g.r.IntN(len(picks))]
		buf = appendExportEntry(g, buf[:0], exportUnits[i], makers[i])
		if _, err := out.Write(buf); err != nil {
			return written, fmt.Errorf("writing journal export: %w", err)
		}
		written += int64(len(buf))
	}
	if err := out.Flush(); err != nil {
		return written, fmt.Errorf("writing journal export: %w", err)
	}
	return written, nil
}

// appendExportEntry appends one entry of unit u and its closing blank line.
func appendExportEntry(g *gen, b []byte, u exportUnit, message payloadMaker) []byte {
	b = append(b, "__REALTIME_TIMESTAMP="...)
	b = strconv.AppendInt(b, g.now.micros, 10)
	b = append(b, "\n__MONOTONIC_TIMESTAMP="...)
	b = strconv.AppendInt(b, g.now.micros-g.boot, 10)
	b = append(b, "\n_BOOT_ID="...)
	b = append(b, g.id.bootID...)
	b = append(b, "\n_MACHINE_ID="...)
	b = append(b, g.id.machineID...)
	b = append(b, "\n_HOSTNAME="...)
	b = append(b, g.id.hostname...)
	b = append(b, "\nPRIORITY=6\nSYSLOG_FACILITY=3\n_UID=0\n_GID=0\n_TRANSPORT=stdout\n_SYSTEMD_SLICE=system.slice\n_SYSTEMD_UNIT="...)
	b = append(b, u.unit...)
	b = append(b, "\nSYSLOG_IDENTIFIER="...)
	b = append(b, u.ident...)
	b = append(b, "\n_COMM="...)
	b = append(b, u.ident...)
	b = append(b, "\n_EXE="...)
	b = append(b, u.exe...)
	b = append(b, "\n_PID="...)
	b = appendInt(b, u.pid)
	b = append(b, "\nMESSAGE="...)
	b = message(g, b)
	return append(b, '\n', '\n')
}
