package collect

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/nodetriage/nodetriage/internal/imds"
	"github.com/nodetriage/nodetriage/internal/journal"
	"github.com/nodetriage/nodetriage/internal/source"
)

// maxPackAttempts bounds how often the archive is rewritten with tighter
// cuts when it came out bigger than the budget.
const maxPackAttempts = 6

// errRunTimeout is the cause of the source phase ending at --timeout.
var errRunTimeout = errors.New("run timeout")

// Run collects a bundle. It returns an error only when no bundle was
// written; sources that failed are recorded in the bundle's manifest. When
// ctx is canceled (SIGINT, SIGTERM), the running sources are stopped and the
// bundle is finished with what was gathered, marked partial.
func Run(ctx context.Context, opts Options) (Result, error) {
	opts.applyDefaults()
	start := time.Now().UTC()
	tree, err := openRoot(opts)
	if err != nil {
		return Result{}, err
	}
	defer tree.Close()
	tgt, err := resolveTarget(opts.Output)
	if err != nil {
		return Result{}, err
	}
	if err := checkFreeSpace(tgt.dir, opts.MaxSize); err != nil {
		return Result{}, err
	}
	red, err := newRedaction(opts)
	if err != nil {
		return Result{}, err
	}
	work, err := os.MkdirTemp(tgt.dir, ".nodetriage-work-*")
	if err != nil {
		return Result{}, outputError(tgt.dir, err)
	}
	defer os.RemoveAll(work)
	stageDir, scratch := filepath.Join(work, "stage"), filepath.Join(work, "journal")
	for _, d := range []string{stageDir, scratch} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return Result{}, outputError(d, err)
		}
	}

	c := &run{opts: opts, start: start, tree: tree, tgt: tgt, red: red, stageDir: stageDir}
	c.reader = opts.Journal
	if c.reader == nil {
		c.reader = journal.Default()
	}
	if limiter, ok := c.reader.(journal.MappedLimiter); ok && opts.MaxSize > 0 {
		c.reader = limiter.WithMappedLimit(budgetMappedBytes)
	}
	c.journal = source.PrepareJournal(tree, c.reader, scratch, time.Time{})
	c.window = c.timeWindow(ctx)
	c.journal.Since = c.window.Since
	if opts.MaxSize > 0 {
		c.journal.TailBytes = fileCap(opts.MaxSize)
	}
	c.gather(ctx)
	return c.finish(ctx)
}

// openRoot opens --root and checks the user may read it.
func openRoot(opts Options) (*source.Tree, error) {
	tree, err := source.OpenTree(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRoot, err)
	}
	if opts.HostNamespaces {
		tree.SetHostIsNode()
	}
	if tree.Live() && os.Geteuid() != 0 && !opts.skipRootCheck {
		tree.Close()
		return nil, fmt.Errorf("%w (run it with sudo, or point --root at a node volume you can read)", ErrNotRoot)
	}
	if _, err := tree.ReadDir("/"); err != nil {
		tree.Close()
		return nil, fmt.Errorf("%w: %w", ErrRoot, err)
	}
	return tree, nil
}

// run is the state of one collection.
type run struct {
	opts     Options
	start    time.Time
	tree     *source.Tree
	tgt      target
	red      *redaction
	stageDir string
	reader   journal.Reader
	journal  *source.Journal
	window   bundle.Window

	plan        source.Plan
	stage       *source.Stage
	outcomes    []outcome
	partial     string // why the bundle is partial, if it is
	progress    *progress
	sourcesDone time.Time
}

// timeWindow is --since up to now, or, under --root, up to the newest
// journal entry, so that a volume taken from a node that died days ago still
// yields its last logs.
func (c *run) timeWindow(ctx context.Context) bundle.Window {
	until := c.start
	if !c.tree.Live() && c.journal.Available() {
		bctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		boots, _ := c.journal.Boots(bctx)
		cancel()
		if len(boots) > 0 {
			until = boots[len(boots)-1].Last.UTC()
		}
	}
	since := c.opts.Since
	if since.IsZero() {
		since = until.Add(-c.opts.SinceDuration)
	}
	return bundle.Window{Since: since.UTC(), Until: until}
}

// budgetMappedBytes is how much of the journal files a reader may keep
// mapped under a size budget, when only the newest part of each is read and
// a light footprint matters more than the last second.
const budgetMappedBytes = 32 << 20

// unlimitedFileCap bounds one file when the bundle has no budget, so that a
// runaway log cannot fill the disk (the AWS collector keeps 100 MiB of
// /var/log/messages).
const unlimitedFileCap = 1 << 30

// fileCap is how many of the newest bytes of one file are staged: a few
// times the budget, since logs compress about tenfold.
func fileCap(maxSize int64) int64 {
	if maxSize <= 0 {
		return unlimitedFileCap
	}
	return min(max(4*maxSize, 1<<20), 256<<20)
}

// sourceTime is the part of --timeout the sources may use; the rest is kept
// for cutting and packing.
func sourceTime(timeout time.Duration) time.Duration {
	reserve := min(max(timeout/4, 3*time.Second), 30*time.Second)
	return max(timeout-reserve, timeout/2)
}

// gather runs every source and seals the staging folder.
func (c *run) gather(ctx context.Context) {
	var client *imds.Client
	if !c.opts.NoIMDS {
		client = imds.New(c.opts.IMDSEndpoint, c.opts.imdsOptions...)
	}
	c.plan = source.Catalog(source.Env{
		Tree: c.tree, Journal: c.journal, IMDS: client,
		Probes: !c.opts.NoProbes, ProbeOptions: c.opts.probeOptions,
		TailBytes: fileCap(c.opts.MaxSize),
	})
	c.stage = source.NewStage(c.stageDir, source.StageOptions{Filter: c.red.filter(), MaxFileBytes: fileCap(c.opts.MaxSize)})

	base, cancelBase := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelBase(nil)
	runCtx, cancelRun := context.WithTimeoutCause(base, sourceTime(c.opts.Timeout), errRunTimeout)
	defer cancelRun()
	stop := context.AfterFunc(ctx, func() { cancelBase(errInterrupted) })
	defer stop()

	c.progress = newProgress(c.opts.Progress, c.opts.Live, len(c.plan.Sources))
	r := &runner{stage: c.stage, workers: c.opts.Workers, progress: c.progress}
	c.outcomes = r.run(runCtx, c.plan.Sources)
	switch cause := context.Cause(runCtx); {
	case errors.Is(cause, errInterrupted):
		c.partial = "interrupted (SIGINT or SIGTERM) while collecting"
	case errors.Is(cause, errRunTimeout):
		c.partial = fmt.Sprintf("--timeout %s reached while collecting", c.opts.Timeout)
	}
	c.stage.Seal()
	c.sourcesDone = time.Now().UTC()
}

// finish cuts the staged files to the budget, writes the manifest and the
// archive, and moves the archive into place.
func (c *run) finish(ctx context.Context) (Result, error) {
	deadline := c.start.Add(c.opts.Timeout)
	fctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), later(deadline, time.Now().Add(20*time.Second)))
	defer cancel()
	md, _ := c.plan.IMDS.Finished()
	host := hostIdentity(c.tree, md, c.stageDir)
	host = c.pseudonymizeHost(host)
	name := c.tgt.name
	if name == "" {
		name = bundle.DefaultName(host.InstanceID, c.start, c.opts.Format, c.opts.NoRedact)
	}
	archive, err := newArchiveFile(c.tgt.dir, name)
	if err != nil {
		return Result{}, err
	}
	c.progress.step("packing %s", name)
	m, size, err := c.pack(fctx, archive, host)
	c.progress.endLive()
	if err != nil {
		archive.discard()
		return Result{}, err
	}
	final, err := archive.commit(c.tgt.dir, name, c.tgt.name != "")
	if err != nil {
		return Result{}, err
	}
	res := Result{Path: final, Bytes: size, Manifest: m}
	if c.red.pseudo != nil {
		res.PseudonymMap, err = writePseudonymMap(final, c.red.pseudo.Map())
		if err != nil {
			return res, err
		}
	}
	if c.opts.MaxSize > 0 && size > c.opts.MaxSize && c.opts.Progress != nil {
		fmt.Fprintf(c.opts.Progress, "warning: the bundle is %s, over --max-size %s\n", humanSize(size), humanSize(c.opts.MaxSize))
	}
	summarize(c.opts.Progress, res)
	return res, nil
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// pack writes the archive, cutting the staged files further each time it
// comes out over the budget.
func (c *run) pack(ctx context.Context, archive *archiveFile, host bundle.Host) (*bundle.Manifest, int64, error) {
	est := &estimator{dir: c.stageDir, cache: map[string][2]int64{}}
	target := c.opts.MaxSize
	for attempt := 1; ; attempt++ {
		if c.opts.MaxSize > 0 {
			if err := c.cutToBudget(est, target, host); err != nil {
				return nil, 0, err
			}
		}
		m := c.manifest(host)
		if err := writeManifest(c.stageDir, m); err != nil {
			return nil, 0, err
		}
		size, err := archive.write(ctx, c.opts.Format, c.stageDir)
		if err != nil {
			return nil, 0, err
		}
		if c.opts.MaxSize == 0 || size <= c.opts.MaxSize || attempt >= maxPackAttempts {
			return m, size, nil
		}
		c.progress.step("bundle is %s, over --max-size; cutting more (attempt %d)", humanSize(size), attempt+1)
		target = target * c.opts.MaxSize / size * 95 / 100
	}
}

// cutToBudget cuts the staged files so that their estimated compressed size
// plus the manifest fits target.
func (c *run) cutToBudget(est *estimator, target int64, host bundle.Host) error {
	files, err := est.budgetFiles(c.stage.Records())
	if err != nil {
		return err
	}
	overhead := compressedSize(c.manifest(host)) + 1024
	for p, keep := range planCuts(files, target-overhead) {
		if err := c.stage.Cut(p, keep); err != nil {
			return err
		}
	}
	return nil
}

// compressedSize estimates how big the manifest is once compressed.
func compressedSize(m *bundle.Manifest) int64 {
	var b bytes.Buffer
	_ = m.Encode(&b)
	var n countWriter
	zw, _ := flate.NewWriter(&n, flate.BestSpeed)
	_, _ = zw.Write(b.Bytes())
	_ = zw.Close()
	return int64(n)
}

func writeManifest(dir string, m *bundle.Manifest) error {
	var b bytes.Buffer
	if err := m.Encode(&b); err != nil {
		return err
	}
	p := filepath.Join(dir, bundle.ManifestName)
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		return outputError(p, err)
	}
	return nil
}

// manifest describes the staged bundle as it is now.
func (c *run) manifest(host bundle.Host) *bundle.Manifest {
	m := &bundle.Manifest{
		FormatVersion: bundle.FormatVersion,
		Tool:          "nodetriage collect",
		ToolVersion:   c.opts.Version,
		Commit:        c.opts.Commit,
		JournalReader: journal.Backend(c.reader),
		CommandLine:   c.opts.CommandLine,
		Root:          c.tree.Dir(),
		Start:         c.start,
		End:           c.sourcesDone,
		Host:          host,
		Window:        c.window,
		MaxBytes:      c.opts.MaxSize,
		Partial:       c.partial != "",
		PartialReason: c.partial,
		Redaction: bundle.Redaction{
			Enabled:       c.red.redactor != nil,
			Pseudonymized: c.red.pseudo != nil,
			Rules:         c.red.rules(),
		},
	}
	byName := map[string][]source.Record{}
	for _, r := range c.stage.Records() {
		byName[r.Source] = append(byName[r.Source], r)
		for rule, n := range r.Redactions {
			m.Redaction.Counts = append(m.Redaction.Counts, bundle.RedactionCount{File: r.Path, Rule: rule, Count: n})
		}
	}
	slices.SortFunc(m.Redaction.Counts, func(a, b bundle.RedactionCount) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return strings.Compare(a.Rule, b.Rule)
	})
	for _, o := range c.outcomes {
		m.Sources = append(m.Sources, sourceEntry(o, byName[o.name]))
	}
	return m
}

// sourceEntry is one source of the manifest with its files.
func sourceEntry(o outcome, records []source.Record) bundle.Source {
	s := bundle.Source{Name: o.name, Status: o.status, Error: o.err,
		DurationMS: float64(o.duration.Microseconds()) / 1000}
	var estimated []string
	for _, r := range records {
		if r.OriginalEstimated {
			estimated = append(estimated, r.Path)
		}
		s.Files = append(s.Files, bundle.File{Path: r.Path, Bytes: r.Bytes, OriginalBytes: r.OriginalBytes, Truncated: r.Truncated})
		s.Bytes += r.Bytes
		s.OriginalBytes += r.OriginalBytes
		if r.Truncated && s.Status == bundle.StatusOK {
			s.Status = bundle.StatusTruncated
		}
	}
	if len(estimated) > 0 {
		s.Error = strings.TrimPrefix(s.Error+"; "+estimatedNote(estimated), "; ")
	}
	return s
}

// estimatedNote explains original sizes that are estimates: the journal
// was read newest first up to the size budget, and the older entries were
// never read, so their size comes from the time they span.
func estimatedNote(paths []string) string {
	return "original_bytes of " + strings.Join(paths, ", ") +
		" is an estimate: only the newest entries that fit the size budget were read " +
		"(newest first), and the size of the older ones was extrapolated from the time they span"
}

// pseudonymizeHost applies the pseudonyms to the manifest's identifiers.
func (c *run) pseudonymizeHost(h bundle.Host) bundle.Host {
	h.InstanceID = c.red.text(h.InstanceID)
	h.AccountID = c.red.text(h.AccountID)
	h.Hostname = c.red.text(h.Hostname)
	return h
}

// writePseudonymMap stores the pseudonym map next to the bundle, never in
// it, readable by its owner only.
func writePseudonymMap(bundlePath string, mapping map[string]string) (string, error) {
	data, err := json.MarshalIndent(mapping, "", "  ")
	if err != nil {
		return "", err
	}
	p := bundlePath + ".pseudonyms.json"
	if err := os.WriteFile(p, append(data, '\n'), 0o600); err != nil {
		return "", outputError(p, err)
	}
	if err := os.Chmod(p, 0o600); err != nil {
		return "", outputError(p, err)
	}
	return p, nil
}
