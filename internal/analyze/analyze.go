// Package analyze turns a node bundle into findings: it streams every member
// once, matches log lines against the signature catalog, gathers facts, and
// ranks what fired so that a root cause comes before the symptoms it
// explains. Rendering belongs to package report.
package analyze

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/nodetriage/nodetriage/internal/signature"
)

// Options configure an Analyzer.
type Options struct {
	Catalog   *signature.Catalog
	Limits    bundle.Limits
	Jobs      int  // bundles analyzed at once; 0 means one per core
	KeepFacts bool // put the fact set in each bundle report
	// Now is the reference time for checks such as certificate expiry;
	// nil means time.Now.
	Now func() time.Time
}

// Analyzer analyzes bundles against one compiled catalog. It is safe for
// concurrent use.
type Analyzer struct {
	opt      Options
	matcher  *signature.Matcher
	explains map[string][]string // cause id → symptom ids
}

// ErrNoCatalog is returned by New without a catalog.
var ErrNoCatalog = errors.New("no signature catalog")

// New compiles the catalog.
func New(opt Options) (*Analyzer, error) {
	if opt.Catalog == nil {
		return nil, ErrNoCatalog
	}
	m, err := opt.Catalog.Compile()
	if err != nil {
		return nil, fmt.Errorf("compiling the signature catalog: %w", err)
	}
	if opt.Limits == (bundle.Limits{}) {
		opt.Limits = bundle.DefaultLimits()
	}
	if opt.Jobs <= 0 {
		opt.Jobs = runtime.NumCPU()
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	explains := make(map[string][]string)
	for _, sig := range opt.Catalog.Signatures() {
		explains[sig.ID] = sig.Explains
	}
	return &Analyzer{opt: opt, matcher: m, explains: explains}, nil
}

// Run analyzes every bundle, opt.Jobs at a time, and returns one report with
// the bundles in the order given and, for more than one bundle, the fleet
// table.
func (a *Analyzer) Run(ctx context.Context, paths []string) *Report {
	r := &Report{Schema: SchemaVersion, Bundles: make([]BundleReport, len(paths))}
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(a.opt.Jobs, max(len(paths), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				r.Bundles[i] = a.Bundle(ctx, paths[i])
			}
		}()
	}
	for i := range paths {
		work <- i
	}
	close(work)
	wg.Wait()
	if len(paths) > 1 {
		r.Fleet = fleetOf(r.Bundles)
	}
	return r
}

// Bundle analyzes one bundle. A bundle that cannot be read at all comes
// back with Error set; one that breaks half-way is reported as far as it
// was read, with a note.
func (a *Analyzer) Bundle(ctx context.Context, path string) BundleReport {
	start := time.Now()
	br := BundleReport{Path: path, Timeline: []Milestone{}, Findings: []Finding{}, Notes: []string{}}
	b, err := bundle.Open(ctx, path, a.opt.Limits)
	if err != nil {
		br.Error = err.Error()
		return br
	}
	br.Format = b.Container
	s := newScan(a, b)
	walkErr := b.Walk(ctx, s.member)
	if walkErr != nil && s.stats.Files == 0 {
		br.Error = walkErr.Error()
		return br
	}
	br.Layout = string(s.layout())
	s.finish(&br)
	if walkErr != nil {
		br.Notes = append(br.Notes, fmt.Sprintf("the bundle could not be read to the end (%v); the report covers what came before", walkErr))
	}
	br.Notes = append(br.Notes, b.Notes()...)
	br.Stats = s.stats
	br.Stats.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	return br
}

// BundleName is the short name of a bundle path, for tables.
func BundleName(p string) string { return filepath.Base(p) }
