// Package benchgen writes synthetic node bundles for the benchmark harness:
// kubelet and containerd journals, ipamd JSON lines, dmesg, syslog,
// cloud-init and nodeadm logs, in the mix and shapes a busy EKS node has,
// laid out like our bundles or like those of the AWS eks-log-collector.sh,
// and of any requested size. The output depends only on the options, so two
// runs with the same seed write the same bytes. A handful of failures is
// planted at known lines, and the returned Manifest lists them so that a
// benchmark can check the analyzer really found them.
package benchgen

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nodetriage/nodetriage/internal/bundle"
)

// Options say what to generate.
type Options struct {
	// Dir is the folder to write into; it must be empty or not exist.
	Dir string
	// Size is the total number of bytes to write, within 1%.
	Size int64
	// Layout is bundle.LayoutNodetriage, bundle.LayoutLogCollector or
	// LayoutNodeRoot.
	Layout bundle.Layout
	// Seed chooses the node, the pods and every random choice.
	Seed uint64
	// Year is the year of the time stamps; 0 means DefaultYear.
	Year int
	// Plant lists the failures to plant (see PlantIDs); empty means
	// DefaultPlants, and NoPlants alone plants nothing.
	Plant []string
}

// Manifest says what Generate wrote.
type Manifest struct {
	Layout  string    `json:"layout"`
	Seed    uint64    `json:"seed"`
	Size    int64     `json:"size"`
	Bytes   int64     `json:"bytes"`
	Files   int       `json:"files"`
	Planted []Planted `json:"planted"`
}

// Planted is one planted failure: its line is Text, at line Line (from 1)
// of File (slash separated, relative to the bundle root).
type Planted struct {
	ID   string `json:"id"`
	File string `json:"file"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// DefaultYear is the year of the time stamps when Options.Year is 0.
const DefaultYear = 2026

// MinSize is the smallest bundle Generate writes.
const MinSize = 64 << 10

// Errors of Generate.
var (
	ErrUnknownLayout = errors.New("unknown layout")
	ErrUnknownPlant  = errors.New("unknown planted failure")
	ErrSizeTooSmall  = errors.New("size too small")
	ErrDirNotEmpty   = errors.New("output folder is not empty")
)

// Generate writes a bundle (or a node root) into opt.Dir.
func Generate(opt Options) (Manifest, error) {
	chosen, err := checkOptions(&opt)
	if err != nil {
		return Manifest{}, err
	}
	id := newIdentity(opt.Seed)
	win := newWindow(opt.Year, opt.Size)
	w := &bundleWriter{opt: opt, id: id, win: win, plants: chosen}
	return w.write()
}

// GenerateTarGz generates the bundle into opt.Dir, then packs that folder
// into the tar.gz archive out the way collect writes bundles.
func GenerateTarGz(opt Options, out string) (Manifest, error) {
	m, err := Generate(opt)
	if err != nil {
		return m, err
	}
	f, err := os.Create(out)
	if err != nil {
		return m, fmt.Errorf("creating %s: %w", out, err)
	}
	if err := bundle.WriteDir(context.Background(), f, bundle.FormatTarGz, opt.Dir); err != nil {
		f.Close()
		return m, fmt.Errorf("packing %s into %s: %w", opt.Dir, out, err)
	}
	if err := f.Close(); err != nil {
		return m, fmt.Errorf("closing %s: %w", out, err)
	}
	return m, nil
}

// checkOptions validates opt, fills its defaults and returns the plants.
func checkOptions(opt *Options) ([]plant, error) {
	if !isKnownLayout(opt.Layout) {
		return nil, fmt.Errorf("%w %q (want %s)", ErrUnknownLayout, opt.Layout, layoutNames())
	}
	if opt.Size < MinSize {
		return nil, fmt.Errorf("%w: %d bytes (at least %d)", ErrSizeTooSmall, opt.Size, MinSize)
	}
	if opt.Year == 0 {
		opt.Year = DefaultYear
	}
	if opt.Year < 1971 || opt.Year > 9999 {
		return nil, fmt.Errorf("year %d out of range", opt.Year)
	}
	if err := checkEmptyDir(opt.Dir); err != nil {
		return nil, err
	}
	ids := opt.Plant
	if len(ids) == 0 {
		ids = DefaultPlants
	}
	if len(ids) == 1 && ids[0] == NoPlants {
		return nil, nil
	}
	var chosen []plant
	for _, name := range ids {
		p, ok := findPlant(name)
		if !ok {
			return nil, fmt.Errorf("%w %q (known: %v)", ErrUnknownPlant, name, PlantIDs())
		}
		chosen = append(chosen, p)
	}
	return chosen, nil
}

// checkEmptyDir accepts a folder that does not exist yet or is empty.
func checkEmptyDir(dir string) error {
	if dir == "" {
		return fmt.Errorf("%w: no folder given", ErrDirNotEmpty)
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("reading output folder %s: %w", dir, err)
	case len(entries) > 0:
		return fmt.Errorf("%w: %s", ErrDirNotEmpty, dir)
	}
	return nil
}

// window is the time span the logs cover, in microseconds since the epoch.
type window struct {
	start, span int64
}

// newWindow ends the logs at 29 November of year, 14:26:31 UTC, and makes
// them cover about a day per 100 MiB: between one hour and ten days.
func newWindow(year int, size int64) window {
	end := time.Date(year, time.November, 29, 14, 26, 31, 123456000, time.UTC).UnixMicro()
	const hour = int64(time.Hour / time.Microsecond)
	perMiB := float64(864 * time.Second / time.Microsecond)
	span := int64(min(float64(size)/(1<<20)*perMiB, float64(240*hour)))
	span = max(span, hour)
	return window{start: end - span, span: span}
}

// end is the time of the last line.
func (w window) end() time.Time {
	return time.UnixMicro(w.start + w.span).UTC()
}

// relPath turns a slash path into one under dir.
func relPath(dir, slash string) string {
	return filepath.Join(dir, filepath.FromSlash(slash))
}
