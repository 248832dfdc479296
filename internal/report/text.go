package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nodetriage/nodetriage/internal/analyze"
)

// palette holds the ANSI sequences used in text output; all empty without colour.
type palette struct{ bold, dim, red, yellow, green, cyan, reset string }

func newPalette(on bool) palette {
	if !on {
		return palette{}
	}
	return palette{bold: "\x1b[1m", dim: "\x1b[2m", red: "\x1b[31m", yellow: "\x1b[33m", green: "\x1b[32m", cyan: "\x1b[36m", reset: "\x1b[0m"}
}

func (p palette) severity(s string) string {
	switch s {
	case "critical", "error":
		return p.red + p.bold + strings.ToUpper(s) + p.reset
	case "warning":
		return p.yellow + strings.ToUpper(s) + p.reset
	}
	return p.cyan + strings.ToUpper(s) + p.reset
}

type textWriter struct {
	w *bufio.Writer
	p palette
	o Options
}

func (t *textWriter) printf(format string, args ...any) { fmt.Fprintf(t.w, format, args...) }

func writeText(w io.Writer, r *analyze.Report, o Options) error {
	t := &textWriter{w: bufio.NewWriter(w), p: newPalette(o.Color), o: o}
	for i, b := range showBundles(r, o) {
		if i > 0 {
			t.printf("\n%s\n\n", strings.Repeat("─", 78))
		}
		t.bundle(b)
	}
	if r.Fleet != nil {
		t.fleet(r.Fleet)
	}
	if err := t.w.Flush(); err != nil {
		return fmt.Errorf("writing text report: %w", err)
	}
	return nil
}

func (t *textWriter) bundle(b analyze.BundleReport) {
	p := t.p
	t.printf("%s%s%s  (%s, %s)\n", p.bold, b.Path, p.reset, layoutName(b.Layout), b.Format)
	if b.Error != "" {
		t.printf("  %serror:%s %s\n", p.red, p.reset, b.Error)
		return
	}
	t.node(b.Node)
	t.timeline(b)
	t.printf("\n")
	if len(b.Findings) == 0 {
		t.printf("%sNo known failure signature matched.%s\n", p.green, p.reset)
	}
	for i, f := range b.Findings {
		t.finding(i+1, f)
	}
	if len(b.Notes) > 0 {
		t.printf("%sNotes%s\n", p.bold, p.reset)
		for _, n := range b.Notes {
			t.printf("  - %s\n", n)
		}
	}
	t.printf("%s%d files, %d lines, %s read in %.0f ms%s\n", p.dim, b.Stats.Files, b.Stats.Lines, humanBytes(b.Stats.Bytes), b.Stats.DurationMS, p.reset)
}

func (t *textWriter) node(n analyze.Node) {
	line := joinNonEmpty("  ", n.Name, n.InstanceID, n.InstanceType, n.AvailabilityZone, n.AMIID)
	if line != "" {
		t.printf("  node     %s\n", line)
	}
	if n.Cluster != "" || n.RoleARN != "" {
		t.printf("  cluster  %s\n", joinNonEmpty("  ", n.Cluster, n.RoleARN))
	}
	versions := joinNonEmpty(", ", prefixed("kubelet ", n.KubeletVersion), prefixed("containerd ", n.ContainerdVersion), prefixed("nodeadm ", n.NodeadmVersion), prefixed("kernel ", n.Kernel))
	if n.Distro != "" || versions != "" {
		t.printf("  os       %s\n", joinNonEmpty("  ", n.Distro, versions))
	}
}

func (t *textWriter) timeline(b analyze.BundleReport) {
	if len(b.Timeline) == 0 {
		return
	}
	p := t.p
	reached := b.Reached
	if reached == "" {
		reached = "no milestone found"
	}
	t.printf("  boot     got as far as: %s%s%s\n", p.bold, reached, p.reset)
	for _, m := range b.Timeline {
		mark, when := p.dim+"·"+p.reset, ""
		if m.Reached {
			mark = p.green + "✓" + p.reset
		}
		if m.Time != nil {
			when = m.Time.UTC().Format("2006-01-02 15:04:05")
		}
		t.printf("           %s %-19s %s\n", mark, when, m.Title)
	}
}

func (t *textWriter) finding(i int, f analyze.Finding) {
	p := t.p
	kind := "symptom"
	if f.RootCause {
		kind = "ROOT CAUSE"
	}
	t.printf("%d. %s %s%s%s\n", i, p.severity(f.Severity), p.bold, f.Title, p.reset)
	t.printf("   %s%s · %s · %s confidence · %s%s\n", p.dim, kind, f.ID, f.Confidence, f.Component, p.reset)
	if len(f.ExplainedBy) > 0 {
		t.printf("   %sfollows from: %s%s\n", p.dim, strings.Join(f.ExplainedBy, ", "), p.reset)
	}
	if f.Summary != "" {
		t.printf("%s", indent(wrap(f.Summary, 74), "   "))
	}
	if len(f.Fix) > 0 {
		t.printf("   %sFix:%s\n", p.bold, p.reset)
		for j, step := range f.Fix {
			t.printf("%s", indentFirst(wrap(step, 70), fmt.Sprintf("    %d. ", j+1), "       "))
		}
	}
	t.evidence(f)
	for _, ref := range f.References {
		t.printf("   %ssee %s%s\n", p.dim, ref, p.reset)
	}
	t.printf("\n")
}

func (t *textWriter) evidence(f analyze.Finding) {
	if len(f.Evidence) == 0 {
		return
	}
	p := t.p
	t.printf("   %sEvidence:%s\n", p.bold, p.reset)
	shown := min(len(f.Evidence), t.o.maxEvidence())
	for _, e := range f.Evidence[:shown] {
		t.printf("    %s%s%s  %s\n", p.cyan, location(e), p.reset, clip(evidenceLine(e), 150))
	}
	if more := f.Count - shown; more > 0 {
		t.printf("    %s(+%d more)%s\n", p.dim, more, p.reset)
	}
}

func (t *textWriter) fleet(fl *analyze.Fleet) {
	p := t.p
	t.printf("\n%sFleet: %d bundles%s\n", p.bold, fl.Nodes, p.reset)
	if len(fl.Causes) == 0 {
		t.printf("  no finding on any node\n")
		return
	}
	t.printf("  %-9s %-5s %-44s %s\n", "SEVERITY", "NODES", "FINDING", "FIRST SEEN")
	for _, c := range fl.Causes {
		first := ""
		if c.FirstSeen != nil {
			first = c.FirstSeen.UTC().Format(time.RFC3339)
		}
		title := c.ID
		if c.RootCause {
			title += " (root cause)"
		}
		t.printf("  %-9s %-5d %-44s %s\n", c.Severity, len(c.Nodes), title, first)
		t.printf("            %s%s%s\n", p.dim, fleetNodes(c.Nodes), p.reset)
	}
}
