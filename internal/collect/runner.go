package collect

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/nodetriage/nodetriage/internal/source"
)

// defaultSourceDeadline applies to sources without their own.
const defaultSourceDeadline = 30 * time.Second

// overrunGrace is how long a source may keep running after its deadline
// before the run stops waiting for it.
const overrunGrace = 2 * time.Second

// outcome is how one source went.
type outcome struct {
	name     string
	status   bundle.Status
	err      string
	duration time.Duration
}

// runner runs sources with a bounded number at a time.
type runner struct {
	stage    *source.Stage
	workers  int
	progress *progress
}

// run starts the sources in order, at most workers at once, and returns
// one outcome per source, in the order of sources. When ctx ends, no more
// sources start and running ones are given their grace to stop.
func (r *runner) run(ctx context.Context, sources []source.Source) []outcome {
	outcomes := make([]outcome, len(sources))
	type done struct {
		index int
		out   outcome
	}
	results := make(chan done, len(sources))
	running := 0
	next := 0
	for next < len(sources) || running > 0 {
		for running < r.workers && next < len(sources) && ctx.Err() == nil {
			i, s := next, sources[next]
			next++
			running++
			r.progress.start(s.Name())
			go func() { results <- done{i, r.runOne(ctx, s)} }()
		}
		if running == 0 {
			break
		}
		d := <-results
		running--
		outcomes[d.index] = d.out
		r.progress.finish(d.out)
	}
	for i := next; i < len(sources); i++ {
		outcomes[i] = outcome{name: sources[i].Name(), status: bundle.StatusSkipped, err: "not started: " + stopReason(ctx)}
	}
	return outcomes
}

// stopReason says why the run stopped starting sources.
func stopReason(ctx context.Context) string {
	if errors.Is(context.Cause(ctx), errInterrupted) {
		return "the run was interrupted"
	}
	return "the run reached --timeout"
}

// errInterrupted is the cause of the run context when a signal stopped it.
var errInterrupted = errors.New("interrupted")

// runOne runs one source under its deadline and does not wait for it more
// than overrunGrace past that deadline.
func (r *runner) runOne(ctx context.Context, s source.Source) outcome {
	limit := defaultSourceDeadline
	if d, ok := s.(source.Deadliner); ok && d.Deadline() > 0 {
		limit = d.Deadline()
	}
	sctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	start := time.Now()
	errc := make(chan error, 1)
	go func() { errc <- s.Collect(sctx, r.stage.Sink(s.Name())) }()
	var err error
	select {
	case err = <-errc:
	case <-sctx.Done():
		grace := time.NewTimer(overrunGrace)
		select {
		case err = <-errc:
		case <-grace.C:
			err = errStillRunning
		}
		grace.Stop()
	}
	out := outcome{name: s.Name(), duration: time.Since(start)}
	out.status, out.err = classify(sctx, ctx, err)
	return out
}

// errStillRunning marks a source that ignored its deadline.
var errStillRunning = errors.New("still running after its deadline; left behind")

// classify turns a source's error into a manifest status and error text.
func classify(sctx, runCtx context.Context, err error) (bundle.Status, string) {
	switch {
	case err == nil:
		return bundle.StatusOK, ""
	case errors.Is(err, source.ErrSkipped):
		return bundle.StatusSkipped, strings.TrimPrefix(err.Error(), source.ErrSkipped.Error()+": ")
	case errors.Is(err, errStillRunning) || errors.Is(err, context.DeadlineExceeded) || sctx.Err() != nil:
		if runCtx.Err() != nil {
			return bundle.StatusTimeout, "stopped: " + stopReason(runCtx) + ": " + err.Error()
		}
		return bundle.StatusTimeout, err.Error()
	}
	return bundle.StatusFailed, err.Error()
}
