// Package report renders analysis results for people and programs: text for
// a terminal (with colour when it is one), JSON for scripts, and Markdown for
// pasting into a support case.
package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/nodetriage/nodetriage/internal/analyze"
)

// Format is an output format of analyze.
type Format string

// The formats analyze can print.
const (
	FormatText     Format = "text"
	FormatJSON     Format = "json"
	FormatMarkdown Format = "markdown"
)

// ErrUnknownFormat is returned for a --format value that is not one of ours.
var ErrUnknownFormat = errors.New("unknown report format")

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatText, FormatJSON, FormatMarkdown:
		return f, nil
	case "md":
		return FormatMarkdown, nil
	}
	return "", fmt.Errorf("%w %q (want text, json or markdown)", ErrUnknownFormat, s)
}

// Options tune the renderers.
type Options struct {
	Color       bool // ANSI colours in text output
	MaxEvidence int  // evidence lines shown per finding in text and Markdown
	PerBundle   bool // with several bundles: a full report per bundle, not only the fleet table
}

func (o Options) maxEvidence() int {
	if o.MaxEvidence <= 0 {
		return 5
	}
	return o.MaxEvidence
}

// Write renders r in the given format.
func Write(w io.Writer, r *analyze.Report, f Format, o Options) error {
	switch f {
	case FormatJSON:
		return writeJSON(w, r)
	case FormatMarkdown:
		return writeMarkdown(w, r, o)
	default:
		return writeText(w, r, o)
	}
}

func writeJSON(w io.Writer, r *analyze.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("writing JSON report: %w", err)
	}
	return nil
}

// fullReportsUpTo is how many bundles get a full report before the fleet
// table by default; past that only the table is printed, unless asked.
const fullReportsUpTo = 5

// showBundles says which bundles get a full report: each of a few bundles,
// or all of them when asked; a large fleet gets only its table.
func showBundles(r *analyze.Report, o Options) []analyze.BundleReport {
	if len(r.Bundles) <= fullReportsUpTo || o.PerBundle || r.Fleet == nil {
		return r.Bundles
	}
	return nil
}
