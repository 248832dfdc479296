package collect

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/nodetriage/nodetriage/internal/source"
)

// testSource is a Source whose behaviour a test chooses.
type testSource struct {
	name     string
	deadline time.Duration
	collect  func(ctx context.Context, out source.Sink) error
}

func (s testSource) Name() string                                       { return s.name }
func (s testSource) Deadline() time.Duration                            { return s.deadline }
func (s testSource) Collect(ctx context.Context, out source.Sink) error { return s.collect(ctx, out) }

func TestRunnerStatusesAndStuckSources(t *testing.T) {
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	lateFile := make(chan *source.File, 1)
	sources := []source.Source{
		testSource{"ok", time.Second, func(ctx context.Context, out source.Sink) error {
			f, err := out.Create("ok.txt")
			if err != nil {
				return err
			}
			f.WriteString("fine\n")
			return f.Close()
		}},
		testSource{"skipped", time.Second, func(context.Context, source.Sink) error {
			return errors.Join(source.ErrSkipped, errors.New("tool missing"))
		}},
		testSource{"failed", time.Second, func(context.Context, source.Sink) error { return errors.New("boom") }},
		testSource{"honours deadline", 50 * time.Millisecond, func(ctx context.Context, _ source.Sink) error {
			<-ctx.Done()
			return ctx.Err()
		}},
		testSource{"ignores deadline", 50 * time.Millisecond, func(_ context.Context, out source.Sink) error {
			f, _ := out.Create("late.txt")
			lateFile <- f
			<-stuck // never returns while the test runs
			return nil
		}},
	}
	stage := source.NewStage(t.TempDir(), source.StageOptions{})
	r := &runner{stage: stage, workers: 2}
	outcomes := r.run(context.Background(), sources)
	want := []bundle.Status{bundle.StatusOK, bundle.StatusSkipped, bundle.StatusFailed, bundle.StatusTimeout, bundle.StatusTimeout}
	for i, o := range outcomes {
		if o.status != want[i] || o.name != sources[i].Name() {
			t.Errorf("%s: %s (%s), want %s", o.name, o.status, o.err, want[i])
		}
	}
	stage.Seal()
	late := <-lateFile
	if late == nil {
		t.Fatal("the stuck source could not create its file")
	}
	if _, err := late.WriteString("written after the deadline"); !errors.Is(err, source.ErrSealed) {
		t.Fatalf("a stuck source could still write: %v", err)
	}
}

func TestRunnerStopsStartingAtTheRunDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeoutCause(context.Background(), 50*time.Millisecond, errRunTimeout)
	defer cancel()
	block := testSource{"slow", time.Minute, func(ctx context.Context, _ source.Sink) error {
		<-ctx.Done()
		return ctx.Err()
	}}
	never := testSource{"never", time.Minute, func(context.Context, source.Sink) error { return nil }}
	r := &runner{stage: source.NewStage(t.TempDir(), source.StageOptions{}), workers: 1}
	outcomes := r.run(ctx, []source.Source{block, never})
	if outcomes[0].status != bundle.StatusTimeout || outcomes[1].status != bundle.StatusSkipped {
		t.Fatalf("outcomes = %+v", outcomes)
	}
	if outcomes[1].err != "not started: the run reached --timeout" {
		t.Fatalf("reason = %q", outcomes[1].err)
	}
}
