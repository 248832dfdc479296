package benchgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/nodetriage/nodetriage/internal/bundle"
)

// ErrVoid is returned by Verify when the report holds no finding at all: a
// benchmark of an analyzer that found nothing measures nothing.
var ErrVoid = errors.New("void run: the report has no findings")

// ErrMissed is returned by Verify when some planted failure has no finding.
var ErrMissed = errors.New("planted failures not found")

// How a planted failure was found.
const (
	FoundAtLine = "line" // a finding's evidence is the planted line itself
	FoundInFile = "file" // a finding's evidence is elsewhere in the planted file
	NotFound    = "missing"
)

// PlantResult says whether the analyzer found one planted failure.
type PlantResult struct {
	Planted Planted
	Found   string // FoundAtLine, FoundInFile or NotFound
	Finding string // id of the finding that found it
}

// Verification is the outcome of Verify.
type Verification struct {
	Findings int
	Results  []PlantResult
}

// report is the part of analyze's JSON report Verify reads.
type report struct {
	Bundles []struct {
		Findings []struct {
			ID       string `json:"id"`
			Evidence []struct {
				File string `json:"file"`
				Line int    `json:"line"`
			} `json:"evidence"`
		} `json:"findings"`
	} `json:"bundles"`
}

// Verify reads an analyze --format json report of the bundle m describes
// and checks that every planted failure is the evidence of some finding: at
// its very line, or at least in its file (an analyzer may keep only the
// first few evidence lines of a finding). It returns ErrVoid when the
// report has no finding and ErrMissed when a planted failure was missed;
// the Verification is filled in either case.
func Verify(m Manifest, r io.Reader) (Verification, error) {
	var rep report
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return Verification{}, fmt.Errorf("decoding analyze report: %w", err)
	}
	if len(rep.Bundles) == 0 {
		return Verification{}, fmt.Errorf("%w (no bundle in the report)", ErrVoid)
	}
	var v Verification
	findings := rep.Bundles[0].Findings
	v.Findings = len(findings)
	missed := 0
	for _, p := range m.Planted {
		res := PlantResult{Planted: p, Found: NotFound}
		for _, f := range findings {
			for _, e := range f.Evidence {
				file, _ := bundle.CleanName(e.File)
				if file != p.File {
					continue
				}
				if e.Line == p.Line {
					res.Found, res.Finding = FoundAtLine, f.ID
				} else if res.Found == NotFound {
					res.Found, res.Finding = FoundInFile, f.ID
				}
			}
		}
		if res.Found == NotFound {
			missed++
		}
		v.Results = append(v.Results, res)
	}
	switch {
	case v.Findings == 0:
		return v, ErrVoid
	case missed > 0:
		return v, fmt.Errorf("%w: %d of %d", ErrMissed, missed, len(m.Planted))
	}
	return v, nil
}

// DecodeManifest reads a Manifest written as JSON.
func DecodeManifest(r io.Reader) (Manifest, error) {
	var m Manifest
	if err := json.NewDecoder(r).Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("decoding planted manifest: %w", err)
	}
	return m, nil
}

// Encode writes the Manifest as indented JSON.
func (m Manifest) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return fmt.Errorf("encoding planted manifest: %w", err)
	}
	return nil
}
