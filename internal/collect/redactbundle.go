package collect

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/nodetriage/nodetriage/internal/source"
)

// ErrInput means the bundle given to `collect redact` cannot be read.
var ErrInput = errors.New("cannot read the bundle to redact")

// RedactOptions are the settings of `collect redact BUNDLE`.
type RedactOptions struct {
	Input string
	// Output is the new archive, or a folder for the default name
	// (<input name>_redacted.tar.gz). Empty means next to the input.
	Output       string
	RedactRules  string
	Pseudonymize bool
	Format       bundle.Format
	Version      string
	Commit       string
	CommandLine  []string
	Progress     io.Writer
}

// originalManifest is where the manifest of a re-redacted bundle goes.
const originalManifest = "original-manifest.json"

// maxGunzipMember bounds how much of one .gz member is decompressed.
const maxGunzipMember = 512 << 20

// RedactBundle re-redacts a bundle made elsewhere (by eks-log-collector.sh,
// an older collect, or an extracted folder) into a new archive whose
// manifest counts what each rule replaced in each file. Compressed members
// (.gz) are stored decompressed so their content is redacted too.
func RedactBundle(ctx context.Context, opts RedactOptions) (Result, error) {
	if opts.Format == "" {
		opts.Format = bundle.FormatTarGz
	}
	start := time.Now().UTC()
	in, err := bundle.Open(ctx, opts.Input, bundle.DefaultLimits())
	if err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrInput, err)
	}
	tgt, replace, err := redactTarget(opts)
	if err != nil {
		return Result{}, err
	}
	if err := checkFreeSpace(tgt.dir, DefaultMaxSize); err != nil {
		return Result{}, err
	}
	red, err := newRedaction(Options{RedactRules: opts.RedactRules, Pseudonymize: opts.Pseudonymize})
	if err != nil {
		return Result{}, err
	}
	work, err := os.MkdirTemp(tgt.dir, ".nodetriage-work-*")
	if err != nil {
		return Result{}, outputError(tgt.dir, err)
	}
	defer os.RemoveAll(work)
	stage := source.NewStage(work, source.StageOptions{Filter: red.filter()})
	sourceName := "redact " + filepath.Base(opts.Input)
	host, problems := copyMembers(ctx, in, stage.Sink(sourceName))
	stage.Seal()

	m := &bundle.Manifest{
		FormatVersion: bundle.FormatVersion, Tool: "nodetriage collect redact",
		ToolVersion: opts.Version, Commit: opts.Commit, CommandLine: opts.CommandLine,
		Root: opts.Input, Start: start, End: time.Now().UTC(), Host: host,
		Redaction: bundle.Redaction{Enabled: true, Pseudonymized: red.pseudo != nil, Rules: red.rules()},
	}
	out := outcome{name: sourceName, status: bundle.StatusOK, duration: time.Since(start)}
	if len(problems) > 0 {
		out.status, out.err = bundle.StatusFailed, strings.Join(problems, "; ")
	}
	records := stage.Records()
	m.Sources = []bundle.Source{sourceEntry(out, records)}
	for _, r := range records {
		for rule, n := range r.Redactions {
			m.Redaction.Counts = append(m.Redaction.Counts, bundle.RedactionCount{File: r.Path, Rule: rule, Count: n})
		}
	}
	slices.SortFunc(m.Redaction.Counts, func(a, b bundle.RedactionCount) int {
		return strings.Compare(a.File+"\x00"+a.Rule, b.File+"\x00"+b.Rule)
	})
	if err := writeManifest(work, m); err != nil {
		return Result{}, err
	}
	archive, err := newArchiveFile(tgt.dir, tgt.name)
	if err != nil {
		return Result{}, err
	}
	size, err := archive.write(ctx, opts.Format, work)
	if err != nil {
		archive.discard()
		return Result{}, err
	}
	final, err := archive.commit(tgt.dir, tgt.name, replace)
	if err != nil {
		return Result{}, err
	}
	res := Result{Path: final, Bytes: size, Manifest: m}
	if red.pseudo != nil {
		if res.PseudonymMap, err = writePseudonymMap(final, red.pseudo.Map()); err != nil {
			return res, err
		}
	}
	summarize(opts.Progress, res)
	return res, nil
}

// redactTarget is where the redacted bundle goes, and whether a file there
// may be replaced (only one the user named).
func redactTarget(opts RedactOptions) (target, bool, error) {
	name := RedactedName(opts.Input, opts.Format)
	if opts.Output == "" {
		t, err := resolveTarget(filepath.Dir(opts.Input))
		t.name = name
		return t, false, err
	}
	t, err := resolveTarget(opts.Output)
	if err != nil {
		return t, false, err
	}
	if t.name == "" {
		t.name = name
		return t, false, nil
	}
	return t, true, nil
}

// RedactedName names the redacted copy of a bundle:
// eks_i-0abc_..._0.7.8.tar.gz → eks_i-0abc_..._0.7.8_redacted.tar.gz.
func RedactedName(input string, format bundle.Format) string {
	base, _ := splitBundleExt(filepath.Base(filepath.Clean(input)))
	return base + "_redacted." + string(format)
}

// copyMembers stages every member of the bundle and returns the host
// identity of its manifest (if it has one) and the problems met.
func copyMembers(ctx context.Context, in *bundle.Bundle, sink source.Sink) (bundle.Host, []string) {
	var host bundle.Host
	var problems []string
	err := in.Walk(ctx, func(m *bundle.Member) error {
		if m.Name == "" {
			return nil
		}
		name, r := m.Name, io.Reader(m)
		switch {
		case name == bundle.ManifestName:
			data, err := io.ReadAll(io.LimitReader(m, 16<<20))
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", name, err))
				return nil
			}
			if orig, err := bundle.DecodeManifest(bytes.NewReader(data)); err == nil {
				host = orig.Host
			}
			name, r = originalManifest, bytes.NewReader(data)
		case isUserDataName(name):
			head, err := io.ReadAll(io.LimitReader(m, maxUserDataMember+1))
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", name, err))
				return nil
			}
			if len(head) <= maxUserDataMember {
				err := source.StageUserData(sink, name, head, nil)
				if !errors.Is(err, source.ErrNotText) {
					if err != nil {
						problems = append(problems, err.Error())
					}
					return nil
				}
			}
			r = io.MultiReader(bytes.NewReader(head), m) // binary or too big: as it is
		case strings.HasSuffix(name, ".gz"):
			zr, err := gzip.NewReader(m)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", name, err))
				return nil
			}
			defer zr.Close()
			name, r = strings.TrimSuffix(name, ".gz"), io.LimitReader(zr, maxGunzipMember)
		}
		if err := stageMember(ctx, sink, name, r); err != nil {
			problems = append(problems, err.Error())
		}
		return nil
	})
	if err != nil {
		problems = append(problems, err.Error())
	}
	return host, append(problems, in.Notes()...)
}

// maxUserDataMember bounds the user data read whole to redact its encoded
// parts; EC2 allows 16 KiB.
const maxUserDataMember = 1 << 20

// isUserDataName tells whether a member holds user data by its name:
// userdata/user-data.txt of a collect bundle, a copy of cloud-init's
// user-data.txt, or the like.
func isUserDataName(name string) bool {
	base := strings.ToLower(path.Base(name))
	stem := strings.TrimSuffix(base, path.Ext(base))
	return stem == "user-data" || stem == "userdata"
}

func stageMember(ctx context.Context, sink source.Sink, name string, r io.Reader) error {
	f, err := sink.Create(name)
	if err != nil {
		return err
	}
	_, err = copyCtx(ctx, f, r)
	if err != nil {
		err = fmt.Errorf("%s: %w", name, err)
	}
	return errors.Join(err, f.Close())
}

// copyCtx copies until EOF or the end of ctx.
func copyCtx(ctx context.Context, dst io.Writer, src io.Reader) (int64, error) {
	buf := make([]byte, 256<<10)
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		n, rerr := src.Read(buf)
		if n > 0 {
			w, werr := dst.Write(buf[:n])
			total += int64(w)
			if werr != nil {
				return total, werr
			}
		}
		if errors.Is(rerr, io.EOF) {
			return total, nil
		}
		if rerr != nil {
			return total, rerr
		}
	}
}
