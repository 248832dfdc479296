package collect

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nodetriage/nodetriage/internal/bundle"
)

// progress reports sources as they start and finish: on a terminal one line
// redrawn in place, elsewhere one plain line per finished source.
type progress struct {
	w     io.Writer
	live  bool
	total int

	mu      sync.Mutex
	running []string
	done    int
}

func newProgress(w io.Writer, live bool, total int) *progress {
	return &progress{w: w, live: live, total: total}
}

func (p *progress) start(name string) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = append(p.running, name)
	p.redraw()
}

func (p *progress) finish(o outcome) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if i := slices.Index(p.running, o.name); i >= 0 {
		p.running = slices.Delete(p.running, i, i+1)
	}
	if p.live {
		p.redraw()
		return
	}
	if o.status == bundle.StatusSkipped {
		return // listed in the manifest; counted in the summary
	}
	line := fmt.Sprintf("[%d/%d] %-9s %s (%s)", p.done, p.total, o.status, o.name, o.duration.Round(time.Millisecond))
	if o.err != "" && o.status != bundle.StatusOK {
		line += ": " + firstLine(o.err, 160)
	}
	fmt.Fprintln(p.w, line)
}

// redraw rewrites the live line: how far the run is and what still runs.
func (p *progress) redraw() {
	if !p.live {
		return
	}
	line := fmt.Sprintf("collecting [%d/%d] %s", p.done, p.total, strings.Join(p.running, ", "))
	fmt.Fprintf(p.w, "\r\033[K%s", firstLine(line, 110))
}

// step prints a phase of the run (packing, cutting).
func (p *progress) step(format string, args ...any) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	msg := fmt.Sprintf(format, args...)
	if p.live {
		fmt.Fprintf(p.w, "\r\033[K%s", firstLine(msg, 110))
		return
	}
	fmt.Fprintln(p.w, msg)
}

// endLive finishes the live line so that the summary starts on its own.
func (p *progress) endLive() {
	if p != nil && p.w != nil && p.live {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// firstLine returns the first line of s, at most max bytes long.
func firstLine(s string, max int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > max {
		s = s[:max-3] + "..."
	}
	return s
}

// summarize writes the end report: where the bundle is, its size, and the
// sources that failed or were cut.
func summarize(w io.Writer, res Result) {
	if w == nil {
		return
	}
	m := res.Manifest
	files := 0
	for _, s := range m.Sources {
		files += len(s.Files)
	}
	fmt.Fprintf(w, "bundle: %s (%s, %d files)\n", res.Path, humanSize(res.Bytes), files)
	skipped := 0
	for _, s := range m.Sources {
		if s.Status == bundle.StatusSkipped {
			skipped++
		}
	}
	if skipped > 0 {
		fmt.Fprintf(w, "skipped: %d sources with nothing to gather here (reasons in manifest.json)\n", skipped)
	}
	if m.Partial {
		fmt.Fprintf(w, "partial: %s\n", m.PartialReason)
	}
	for _, s := range m.Sources {
		if s.Status == bundle.StatusFailed || s.Status == bundle.StatusTimeout {
			fmt.Fprintf(w, "%-8s %s: %s\n", s.Status, s.Name, firstLine(s.Error, 200))
		}
	}
	for _, s := range m.Sources {
		for _, f := range s.Files {
			if f.Truncated {
				fmt.Fprintf(w, "cut      %s: kept %s of %s\n", f.Path, humanSize(f.Bytes), humanSize(f.OriginalBytes))
			}
		}
	}
	if res.PseudonymMap != "" {
		fmt.Fprintf(w, "pseudonym map (keep it out of the support case): %s\n", res.PseudonymMap)
	}
	if !m.Redaction.Enabled {
		fmt.Fprintln(w, "WARNING: --no-redact: this bundle may hold secrets; review it before sharing")
	}
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
