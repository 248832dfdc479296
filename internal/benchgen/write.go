package benchgen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/nodetriage/nodetriage/internal/bundle"
)

// bundleWriter writes one bundle: the small files, then every streamed file
// in parallel (each with its own random stream, so the bytes do not depend
// on scheduling), then, for our layout, manifest.json.
type bundleWriter struct {
	opt    Options
	id     *identity
	win    window
	plants []plant
}

// fileResult is what was written to one file.
type fileResult struct {
	path    string
	source  string
	bytes   int64
	lines   int
	planted []Planted
}

// writeBufferSize is the buffer between line making and the file.
const writeBufferSize = 1 << 20

func (w *bundleWriter) write() (Manifest, error) {
	if err := os.MkdirAll(w.opt.Dir, 0o755); err != nil {
		return Manifest{}, fmt.Errorf("creating %s: %w", w.opt.Dir, err)
	}
	files, err := w.writeStatics()
	if err != nil {
		return Manifest{}, err
	}
	specs := layoutFiles(w.opt.Layout, w.id)
	quotas, outside := w.quotas(specs, files)
	streamed, err := w.writeStreams(specs, quotas, outside)
	if err != nil {
		return Manifest{}, err
	}
	files = append(files, streamed...)
	if w.opt.Layout == bundle.LayoutNodetriage {
		res, err := w.writeManifest(files)
		if err != nil {
			return Manifest{}, err
		}
		files = append(files, res)
	}
	if w.opt.Layout == LayoutNodeRoot {
		if err := w.writeRootExtras(); err != nil {
			return Manifest{}, err
		}
	}
	return w.summary(files), nil
}

// writeStatics writes the small files of the layout.
func (w *bundleWriter) writeStatics() ([]fileResult, error) {
	var files []fileResult
	for _, s := range staticFiles(w.opt.Layout, w.id) {
		if err := writeWhole(relPath(w.opt.Dir, s.path), []byte(s.content)); err != nil {
			return nil, err
		}
		files = append(files, fileResult{path: s.path, source: s.source, bytes: int64(len(s.content))})
	}
	return files, nil
}

// quotas shares what is left of the size between the streamed files; for
// our layout the room manifest.json will take is kept aside first. It also
// returns the bytes that are not streamed (small files and manifest).
func (w *bundleWriter) quotas(specs []fileSpec, statics []fileResult) ([]int64, int64) {
	var outside int64
	for _, f := range statics {
		outside += f.bytes
	}
	quotas := shareBytes(specs, w.opt.Size-outside)
	if w.opt.Layout == bundle.LayoutNodetriage {
		planned := slices.Clone(statics)
		for i, s := range specs {
			planned = append(planned, fileResult{path: s.path, source: s.source, bytes: quotas[i]})
		}
		var buf bytes.Buffer
		_ = w.bundleManifest(planned).Encode(&buf)
		outside += int64(buf.Len())
		quotas = shareBytes(specs, w.opt.Size-outside)
	}
	return quotas, outside
}

// shareBytes splits budget by weight, giving no file more than its limit;
// what a limited file cannot take goes to the others.
func shareBytes(specs []fileSpec, budget int64) []int64 {
	quotas := make([]int64, len(specs))
	fixed := make([]bool, len(specs))
	for {
		var weight int64
		left := budget
		for i, s := range specs {
			if fixed[i] {
				left -= quotas[i]
			} else {
				weight += int64(s.weight)
			}
		}
		if weight == 0 || left <= 0 {
			return quotas
		}
		changed := false
		for i, s := range specs {
			if fixed[i] {
				continue
			}
			quotas[i] = left * int64(s.weight) / weight
			if s.limit > 0 && quotas[i] > s.limit {
				quotas[i], fixed[i], changed = s.limit, true, true
			}
		}
		if !changed {
			return quotas
		}
	}
}

// writeStreams writes the streamed files, as many at once as there are
// CPUs. Each file stops short of its quota by less than a line; so that the
// bundle still has the size asked for, the first (largest) file is the
// anchor: when it reaches its quota it waits for the others and takes what
// they left over.
func (w *bundleWriter) writeStreams(specs []fileSpec, quotas []int64, outside int64) ([]fileResult, error) {
	results := make([]fileResult, len(specs))
	errs := make([]error, len(specs))
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	var others, all sync.WaitGroup
	for i, spec := range specs[1:] {
		others.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			results[i+1], errs[i+1] = w.writeFile(spec, quotas[i+1], nil)
		})
	}
	rest := func() int64 {
		others.Wait()
		left := w.opt.Size - outside
		for _, r := range results[1:] {
			left -= r.bytes
		}
		return left
	}
	all.Go(func() { results[0], errs[0] = w.writeFile(specs[0], quotas[0], rest) })
	all.Wait()
	others.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return results, nil
}

// plantsOf returns the chosen plants that go into stream s, in file order.
func (w *bundleWriter) plantsOf(s stream) []plant {
	var ps []plant
	for _, p := range w.plants {
		if p.stream == s {
			ps = append(ps, p)
		}
	}
	slices.SortStableFunc(ps, func(a, b plant) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	return ps
}

// fileWriter writes the lines of one file and counts them.
type fileWriter struct {
	out   *bufio.Writer
	res   fileResult
	line  []byte
	quota int64
}

// writeFile writes one streamed file of about quota bytes, with its plants.
// When rest is not nil, it is asked for a final quota once quota is reached.
func (w *bundleWriter) writeFile(spec fileSpec, quota int64, rest func() int64) (fileResult, error) {
	name := relPath(w.opt.Dir, spec.path)
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return fileResult{}, fmt.Errorf("creating folder for %s: %w", name, err)
	}
	f, err := os.Create(name)
	if err != nil {
		return fileResult{}, fmt.Errorf("creating %s: %w", name, err)
	}
	fw := &fileWriter{
		out:   bufio.NewWriterSize(f, writeBufferSize),
		res:   fileResult{path: spec.path, source: spec.source},
		line:  make([]byte, 0, 8<<10),
		quota: quota,
	}
	g := &gen{
		r:    rand.New(rand.NewPCG(w.opt.Seed, 0x66696c6500+uint64(spec.stream))),
		id:   w.id,
		iso:  w.opt.Layout == bundle.LayoutNodetriage,
		boot: w.win.start - 8_000_000,
	}
	fw.fill(g, spec.stream.maker(w.id), w.plantsOf(spec.stream), w.win, rest)
	if err := fw.out.Flush(); err != nil {
		f.Close()
		return fileResult{}, fmt.Errorf("writing %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fileResult{}, fmt.Errorf("closing %s: %w", name, err)
	}
	return fw.res, nil
}

// fill writes lines until the next one would pass the quota, putting each
// plant in when the file has reached its place. The time of a line follows
// its position in the file, so the file spans the whole window. Write errors
// stick in the bufio.Writer and are reported by Flush.
func (fw *fileWriter) fill(g *gen, lineOf payloadMaker, ps []plant, win window, rest func() int64) {
	scale := float64(win.span) / float64(max(fw.quota, 1))
	for {
		pos := fw.res.bytes
		g.now.set(win.start + int64(float64(pos)*scale))
		if len(ps) > 0 && float64(pos) >= ps[0].at*float64(fw.quota) {
			fw.plant(g, ps[0])
			ps = ps[1:]
			continue
		}
		fw.line = append(lineOf(g, fw.line[:0]), '\n')
		if pos+int64(len(fw.line)) > fw.quota && rest != nil {
			fw.quota = max(rest()-pendingBytes(ps), 0)
			rest = nil
		}
		if pos+int64(len(fw.line)) > fw.quota {
			break
		}
		fw.emit()
	}
	for _, p := range ps {
		fw.plant(g, p)
	}
}

// pendingBytes estimates what the plants not written yet will take.
func pendingBytes(ps []plant) int64 {
	var n int64
	for _, p := range ps {
		n += int64(p.count) * 300
	}
	return n
}

// plant writes the lines of one planted failure and records its key line.
func (fw *fileWriter) plant(g *gen, p plant) {
	for i := range p.count {
		fw.line = p.line(g, fw.line[:0], i)
		if i == p.key {
			fw.res.planted = append(fw.res.planted, Planted{ID: p.id, File: fw.res.path, Line: fw.res.lines + 1, Text: string(fw.line)})
		}
		fw.line = append(fw.line, '\n')
		fw.emit()
	}
}

// emit writes the current line.
func (fw *fileWriter) emit() {
	_, _ = fw.out.Write(fw.line)
	fw.res.bytes += int64(len(fw.line))
	fw.res.lines++
}

// writeWhole writes a small file, creating its folder.
func writeWhole(name string, content []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return fmt.Errorf("creating folder for %s: %w", name, err)
	}
	if err := os.WriteFile(name, content, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}

// writeManifest writes manifest.json for our layout.
func (w *bundleWriter) writeManifest(files []fileResult) (fileResult, error) {
	var buf bytes.Buffer
	if err := w.bundleManifest(files).Encode(&buf); err != nil {
		return fileResult{}, err
	}
	if err := writeWhole(relPath(w.opt.Dir, bundle.ManifestName), buf.Bytes()); err != nil {
		return fileResult{}, err
	}
	return fileResult{path: bundle.ManifestName, bytes: int64(buf.Len())}, nil
}

// bundleManifest is the manifest collect would have written for files.
func (w *bundleWriter) bundleManifest(files []fileResult) *bundle.Manifest {
	end := w.win.end()
	started := end.Add(30 * time.Second)
	m := &bundle.Manifest{
		FormatVersion: bundle.FormatVersion,
		Tool:          "collect",
		ToolVersion:   "benchgen",
		CommandLine:   []string{"collect"},
		Root:          "/",
		Start:         started,
		End:           started.Add(11*time.Second + 250*time.Millisecond),
		Host: bundle.Host{
			Hostname:          w.id.hostname,
			InstanceID:        w.id.instanceID,
			AccountID:         w.id.accountID,
			Region:            w.id.region,
			AvailabilityZone:  w.id.zone,
			InstanceType:      w.id.instanceType,
			AMIID:             w.id.amiID,
			Distro:            "amzn",
			DistroVersion:     "2023",
			Kernel:            w.id.kernel,
			EKSRelease:        amiName,
			KubeletVersion:    kubeletVersion,
			ContainerdVersion: containerdVersion,
			NodeadmVersion:    nodeadmVersion,
		},
		Window:    bundle.Window{Since: time.UnixMicro(w.win.start).UTC(), Until: end},
		Redaction: bundle.Redaction{Enabled: true},
	}
	index := map[string]int{}
	for _, f := range files {
		i, ok := index[f.source]
		if !ok {
			i = len(m.Sources)
			index[f.source] = i
			m.Sources = append(m.Sources, bundle.Source{Name: f.source, Status: bundle.StatusOK, DurationMS: 12.5})
		}
		s := &m.Sources[i]
		s.Files = append(s.Files, bundle.File{Path: f.path, Bytes: f.bytes, OriginalBytes: f.bytes})
		s.Bytes += f.bytes
		s.OriginalBytes += f.bytes
	}
	return m
}

// writeRootExtras adds to a node root what is not a plain file: the
// /var/log/containers links and the (empty) persistent journal folder.
func (w *bundleWriter) writeRootExtras() error {
	for name, target := range containerLinks(w.id) {
		full := relPath(w.opt.Dir, name)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return fmt.Errorf("creating folder for %s: %w", full, err)
		}
		if err := os.Symlink(target, full); err != nil {
			return fmt.Errorf("linking %s: %w", full, err)
		}
	}
	journal := relPath(w.opt.Dir, path.Join("var/log/journal", w.id.machineID))
	if err := os.MkdirAll(journal, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", journal, err)
	}
	return nil
}

// summary is the Manifest Generate returns: totals and the planted lines in
// the order they were asked for.
func (w *bundleWriter) summary(files []fileResult) Manifest {
	m := Manifest{Layout: string(w.opt.Layout), Seed: w.opt.Seed, Size: w.opt.Size, Files: len(files), Planted: []Planted{}}
	found := map[string]Planted{}
	for _, f := range files {
		m.Bytes += f.bytes
		for _, p := range f.planted {
			found[p.ID] = p
		}
	}
	for _, p := range w.plants {
		if got, ok := found[p.id]; ok {
			m.Planted = append(m.Planted, got)
		}
	}
	return m
}

// MachineID is the machine id of the node a seed describes: the name of its
// journal folder under var/log/journal in a node root.
func MachineID(seed uint64) string {
	return newIdentity(seed).machineID
}
