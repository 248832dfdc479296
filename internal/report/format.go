package report

import (
	"fmt"
	"strings"

	"github.com/nodetriage/nodetriage/internal/analyze"
)

func layoutName(l string) string {
	switch l {
	case "nodetriage":
		return "nodetriage bundle"
	case "eks-log-collector":
		return "eks-log-collector bundle"
	case "bottlerocket-logdog":
		return "Bottlerocket logdog bundle"
	case "single-file":
		return "single log file"
	}
	return "bundle of unknown layout"
}

func location(e analyze.Evidence) string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	return e.File
}

func joinNonEmpty(sep string, parts ...string) string {
	kept := parts[:0:0]
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, sep)
}

func prefixed(prefix, v string) string {
	if v == "" {
		return ""
	}
	return prefix + v
}

// evidenceLine is what a person reads of an evidence line: its time and the
// message without transport prefixes when the parser found one, else the
// raw line.
func evidenceLine(e analyze.Evidence) string {
	if e.Message == "" {
		return e.Text
	}
	if e.Time != nil {
		return e.Time.UTC().Format("15:04:05") + "  " + e.Message
	}
	if e.File != "facts" && !strings.HasPrefix(e.File, "userdata/") {
		return e.Message
	}
	return e.Text + "  ← " + e.Message // a user data line and what is wrong with it
}

// clip shortens a line for display, marking the cut.
func clip(s string, n int) string {
	s = strings.TrimRight(s, "\r\n")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// wrap breaks text into lines of at most width columns at spaces, keeping
// paragraph breaks and lines that start with a command or list marker as
// they are.
func wrap(text string, width int) []string {
	var out []string
	for _, para := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if strings.HasPrefix(para, " ") || len(para) <= width {
			out = append(out, para)
			continue
		}
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && len(line)+1+len(word) > width {
				out = append(out, line)
				line = word
				continue
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		out = append(out, line)
	}
	return out
}

func indent(lines []string, prefix string) string {
	return indentFirst(lines, prefix, prefix)
}

func indentFirst(lines []string, first, rest string) string {
	var b strings.Builder
	for i, l := range lines {
		if i == 0 {
			b.WriteString(first)
		} else {
			b.WriteString(rest)
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func fleetNodes(nodes []analyze.FleetNode) string {
	names := make([]string, 0, len(nodes))
	for _, n := range nodes {
		name := n.InstanceID
		if name == "" {
			name = n.Bundle
		}
		names = append(names, joinNonEmpty(" ", name, bracket(joinNonEmpty(" ", n.NodeGroup, n.AvailabilityZone, n.InstanceType, n.AMIID))))
	}
	const show = 8
	if len(names) > show {
		return strings.Join(names[:show], ", ") + fmt.Sprintf(", +%d more", len(names)-show)
	}
	return strings.Join(names, ", ")
}

func bracket(s string) string {
	if s == "" {
		return ""
	}
	return "[" + s + "]"
}
