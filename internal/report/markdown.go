package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/nodetriage/nodetriage/internal/analyze"
)

func writeMarkdown(w io.Writer, r *analyze.Report, o Options) error {
	bw := bufio.NewWriter(w)
	for _, b := range showBundles(r, o) {
		markdownBundle(bw, b, o)
	}
	if r.Fleet != nil {
		markdownFleet(bw, r.Fleet)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing Markdown report: %w", err)
	}
	return nil
}

func markdownBundle(w io.Writer, b analyze.BundleReport, o Options) {
	fmt.Fprintf(w, "## Node bundle `%s`\n\n", b.Path)
	if b.Error != "" {
		fmt.Fprintf(w, "Could not be read: %s\n\n", b.Error)
		return
	}
	n := b.Node
	fmt.Fprintf(w, "| | |\n|---|---|\n")
	for _, row := range [][2]string{
		{"Node", n.Name}, {"Instance", joinNonEmpty(" ", n.InstanceID, n.InstanceType)}, {"Zone", n.AvailabilityZone},
		{"AMI", n.AMIID}, {"Cluster", n.Cluster}, {"Node role", n.RoleARN}, {"OS", n.Distro},
		{"Versions", joinNonEmpty(", ", prefixed("kubelet ", n.KubeletVersion), prefixed("containerd ", n.ContainerdVersion), prefixed("nodeadm ", n.NodeadmVersion))},
		{"Boot got as far as", b.Reached}, {"Bundle", b.Layout + ", " + b.Format},
	} {
		if row[1] != "" {
			fmt.Fprintf(w, "| %s | %s |\n", row[0], mdCell(row[1]))
		}
	}
	fmt.Fprintln(w)
	if len(b.Findings) == 0 {
		fmt.Fprintf(w, "No known failure signature matched.\n\n")
	}
	for i, f := range b.Findings {
		markdownFinding(w, i+1, f, o)
	}
	if len(b.Notes) > 0 {
		fmt.Fprintf(w, "**Notes**\n\n")
		for _, note := range b.Notes {
			fmt.Fprintf(w, "- %s\n", note)
		}
		fmt.Fprintln(w)
	}
}

func markdownFinding(w io.Writer, i int, f analyze.Finding, o Options) {
	kind := "symptom"
	if f.RootCause {
		kind = "root cause"
	}
	fmt.Fprintf(w, "### %d. %s\n\n", i, f.Title)
	fmt.Fprintf(w, "*%s · %s · `%s` · %s confidence*\n\n", strings.ToUpper(f.Severity), kind, f.ID, f.Confidence)
	if f.Summary != "" {
		fmt.Fprintf(w, "%s\n\n", strings.TrimSpace(f.Summary))
	}
	if len(f.Fix) > 0 {
		fmt.Fprintf(w, "**Fix**\n\n")
		for j, step := range f.Fix {
			fmt.Fprintf(w, "%d. %s\n", j+1, strings.ReplaceAll(strings.TrimSpace(step), "\n", "\n   "))
		}
		fmt.Fprintln(w)
	}
	if len(f.Evidence) > 0 {
		fmt.Fprintf(w, "**Evidence**\n\n```\n")
		shown := min(len(f.Evidence), o.maxEvidence())
		for _, e := range f.Evidence[:shown] {
			fmt.Fprintf(w, "%s  %s\n", location(e), strings.ReplaceAll(clip(evidenceLine(e), 200), "```", "'''"))
		}
		if more := f.Count - shown; more > 0 {
			fmt.Fprintf(w, "(+%d more)\n", more)
		}
		fmt.Fprintf(w, "```\n\n")
	}
	for _, ref := range f.References {
		fmt.Fprintf(w, "- <%s>\n", ref)
	}
	if len(f.References) > 0 {
		fmt.Fprintln(w)
	}
}

func markdownFleet(w io.Writer, fl *analyze.Fleet) {
	fmt.Fprintf(w, "## Fleet: %d bundles\n\n| Severity | Finding | Nodes | Which |\n|---|---|---|---|\n", fl.Nodes)
	for _, c := range fl.Causes {
		fmt.Fprintf(w, "| %s | `%s` %s | %d | %s |\n", c.Severity, c.ID, mdCell(c.Title), len(c.Nodes), mdCell(fleetNodes(c.Nodes)))
	}
	fmt.Fprintln(w)
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
