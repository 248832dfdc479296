// Command benchgen writes synthetic EKS node bundles for the benchmark
// harness (scripts/bench.sh), checks an analyze report against the failures
// it planted, and writes journal export text for a fake node root.
//
//	benchgen --dir DIR --size 100MiB --layout nodetriage --seed 1 [--tar out.tar.gz] [--planted planted.json]
//	benchgen --verify planted.json report.json
//	benchgen --journal-export --size 500MiB --seed 1 [--end now] [--span 240h] > node.export
//	benchgen --machine-id --seed 1
//	benchgen --print-bytes 100MiB
//	benchgen --list-plants
//
// Exit codes: 0 done (or every planted failure found); 1 --verify found the
// run void or a planted failure missing; 2 usage or input error.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nodetriage/nodetriage/internal/benchgen"
	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/spf13/pflag"
)

// options are the command line.
type options struct {
	dir, size, layout, tar, planted, end, bytes string
	seed                                        uint64
	year                                        int
	plant                                       []string
	span                                        time.Duration
	verify, export, machineID, list             bool
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := pflag.NewFlagSet("benchgen", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.dir, "dir", "", "folder to write the bundle into (must be empty or absent)")
	fs.StringVar(&o.size, "size", "100MiB", "total size to write (100MiB, 1GiB, 10MB, 4096)")
	fs.StringVar(&o.layout, "layout", string(bundle.LayoutNodetriage), "nodetriage, eks-log-collector or node-root")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of every random choice; the same seed writes the same bytes")
	fs.IntVar(&o.year, "year", 0, "year of the time stamps (default 2026)")
	fs.StringSliceVar(&o.plant, "plant", nil, "failures to plant (default: all; 'none' for none; see --list-plants)")
	fs.StringVar(&o.tar, "tar", "", "also pack the folder into this tar.gz")
	fs.StringVar(&o.planted, "planted", "", "write the planted failures as JSON to this file")
	fs.BoolVar(&o.verify, "verify", false, "check REPORT (analyze --format json) against PLANTED: benchgen --verify PLANTED REPORT")
	fs.BoolVar(&o.export, "journal-export", false, "write journal export text to stdout instead of a bundle")
	fs.StringVar(&o.end, "end", "now", "with --journal-export: time of the last entry (RFC 3339 or 'now')")
	fs.DurationVar(&o.span, "span", 240*time.Hour, "with --journal-export: time the entries cover")
	fs.BoolVar(&o.machineID, "machine-id", false, "print the machine id of the node the seed describes")
	fs.BoolVar(&o.list, "list-plants", false, "list the failures that can be planted")
	fs.StringVar(&o.bytes, "print-bytes", "", "print the number of bytes a size such as 100MiB stands for")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		return 2
	}
	switch {
	case o.verify:
		return verify(fs.Args(), stdout, stderr)
	case o.list:
		for _, id := range benchgen.PlantIDs() {
			fmt.Fprintln(stdout, id)
		}
		return 0
	case o.bytes != "":
		n, err := benchgen.ParseSize(o.bytes)
		if err != nil {
			fmt.Fprintf(stderr, "benchgen: --print-bytes: %v\n", err)
			return 2
		}
		fmt.Fprintln(stdout, n)
		return 0
	case o.machineID:
		fmt.Fprintln(stdout, benchgen.MachineID(o.seed))
		return 0
	case o.export:
		return exportJournal(o, stdout, stderr)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "benchgen: unexpected arguments %v\n", fs.Args())
		return 2
	}
	return generate(o, stderr)
}

// generate writes a bundle and, when asked, its tar.gz and planted list.
func generate(o options, stderr io.Writer) int {
	size, err := benchgen.ParseSize(o.size)
	if err != nil {
		fmt.Fprintf(stderr, "benchgen: --size: %v\n", err)
		return 2
	}
	opt := benchgen.Options{Dir: o.dir, Size: size, Layout: bundle.Layout(o.layout), Seed: o.seed, Year: o.year, Plant: o.plant}
	began := time.Now()
	var m benchgen.Manifest
	if o.tar != "" {
		m, err = benchgen.GenerateTarGz(opt, o.tar)
	} else {
		m, err = benchgen.Generate(opt)
	}
	if err != nil {
		fmt.Fprintf(stderr, "benchgen: %v\n", err)
		return 2
	}
	took := time.Since(began)
	fmt.Fprintf(stderr, "benchgen: wrote %d bytes in %d files to %s (%d planted) in %.1fs\n",
		m.Bytes, m.Files, o.dir, len(m.Planted), took.Seconds())
	if o.planted != "" {
		if err := writePlanted(o.planted, m); err != nil {
			fmt.Fprintf(stderr, "benchgen: %v\n", err)
			return 2
		}
	}
	return 0
}

func writePlanted(name string, m benchgen.Manifest) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("creating %s: %w", name, err)
	}
	if err := m.Encode(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", name, err)
	}
	return nil
}

// exportJournal writes journal export text to stdout.
func exportJournal(o options, stdout, stderr io.Writer) int {
	size, err := benchgen.ParseSize(o.size)
	if err != nil {
		fmt.Fprintf(stderr, "benchgen: --size: %v\n", err)
		return 2
	}
	end := time.Now().UTC()
	if o.end != "now" {
		end, err = time.Parse(time.RFC3339, o.end)
		if err != nil {
			fmt.Fprintf(stderr, "benchgen: --end: %v\n", err)
			return 2
		}
	}
	if _, err := benchgen.WriteJournalExport(stdout, benchgen.ExportOptions{Size: size, Seed: o.seed, End: end, Span: o.span}); err != nil {
		fmt.Fprintf(stderr, "benchgen: %v\n", err)
		return 2
	}
	return 0
}

// verify checks an analyze report against the planted failures.
func verify(args []string, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "benchgen: usage: benchgen --verify PLANTED.json REPORT.json")
		return 2
	}
	m, err := readManifest(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "benchgen: %v\n", err)
		return 2
	}
	f, err := os.Open(args[1])
	if err != nil {
		fmt.Fprintf(stderr, "benchgen: %v\n", err)
		return 2
	}
	defer f.Close()
	v, err := benchgen.Verify(m, f)
	for _, r := range v.Results {
		fmt.Fprintf(stdout, "%-8s %-30s %s:%d %s\n", r.Found, r.Planted.ID, r.Planted.File, r.Planted.Line, r.Finding)
	}
	switch {
	case errors.Is(err, benchgen.ErrVoid):
		fmt.Fprintf(stdout, "VOID: the report has no findings\n")
		return 1
	case errors.Is(err, benchgen.ErrMissed):
		fmt.Fprintf(stdout, "MISSED: %v (%d findings)\n", err, v.Findings)
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "benchgen: %v\n", err)
		return 2
	}
	fmt.Fprintf(stdout, "VERIFIED: %d of %d planted failures found (%d findings)\n", len(v.Results), len(m.Planted), v.Findings)
	return 0
}

func readManifest(name string) (benchgen.Manifest, error) {
	f, err := os.Open(name)
	if err != nil {
		return benchgen.Manifest{}, err
	}
	defer f.Close()
	m, err := benchgen.DecodeManifest(f)
	if err != nil {
		return m, fmt.Errorf("%s: %w", name, err)
	}
	if len(m.Planted) == 0 {
		return m, fmt.Errorf("%s: %w", name, errNothingPlanted)
	}
	return m, nil
}

var errNothingPlanted = errors.New("no planted failures to look for")
