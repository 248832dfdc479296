package main

import (
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/spf13/pflag"

	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/nodetriage/nodetriage/internal/report"
)

// config is what the command line asked for.
type config struct {
	inputs         []string
	format         report.Format
	color          bool
	patternsDir    string
	list           bool
	explain        string
	exportPatterns string
	dumpPatterns   string
	jobs           int
	perBundle      bool
	facts          bool
	maxEvidence    int
	limits         bundle.Limits
	version        bool
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	cfg := &config{limits: bundle.DefaultLimits()}
	fs := pflag.NewFlagSet("analyze", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var format string
	var noColor bool
	fs.StringVarP(&format, "format", "f", "text", "output format: text, json or markdown")
	fs.BoolVar(&noColor, "no-color", false, "no colours in text output (also when NO_COLOR is set or stdout is not a terminal)")
	fs.StringVar(&cfg.patternsDir, "patterns", "", "folder of extra signature YAML files; an id already in the catalog replaces it")
	fs.BoolVar(&cfg.list, "list", false, "print the signature catalog, grouped by component, and exit")
	fs.StringVar(&cfg.explain, "explain", "", "print one signature in full and exit")
	fs.StringVar(&cfg.exportPatterns, "export-patterns", "", "write the catalog's patterns, one ripgrep regex per line, to `FILE` and exit")
	fs.StringVar(&cfg.dumpPatterns, "dump-patterns", "", "write the embedded catalog's YAML files into `DIR` and exit")
	fs.IntVarP(&cfg.jobs, "jobs", "j", runtime.NumCPU(), "bundles analyzed at once")
	fs.BoolVar(&cfg.perBundle, "per-bundle", false, "print every bundle's report before the fleet table also for more than 5 bundles")
	fs.BoolVar(&cfg.facts, "facts", false, "include every fact in the JSON report")
	fs.IntVar(&cfg.maxEvidence, "max-evidence", 5, "evidence lines shown per finding (text and markdown)")
	fs.Int64Var(&cfg.limits.MaxFileBytes, "max-file-bytes", cfg.limits.MaxFileBytes, "bytes read from one bundle member at most")
	fs.Int64Var(&cfg.limits.MaxTotalBytes, "max-total-bytes", cfg.limits.MaxTotalBytes, "bytes read from one bundle at most")
	fs.IntVar(&cfg.limits.MaxMembers, "max-members", cfg.limits.MaxMembers, "bundle members read at most")
	fs.BoolVar(&cfg.version, "version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: analyze [flags] BUNDLE...\n\nBUNDLE is a .tar.gz/.tgz/.tar.zst/.zip bundle, an extracted bundle folder,\na folder or glob of bundles, or a single log file (serial console, journal excerpt).\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\nExit codes: 0 nothing at warning or above, 1 findings at warning or above, 2 input or usage error.\n")
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	f, err := report.ParseFormat(format)
	if err != nil {
		return nil, err
	}
	cfg.format = f
	cfg.color = !noColor && os.Getenv("NO_COLOR") == "" && isTerminal(os.Stdout)
	cfg.inputs = fs.Args()
	if cfg.jobs < 1 {
		return nil, fmt.Errorf("--jobs must be at least 1")
	}
	if cfg.limits.MaxFileBytes < 1 || cfg.limits.MaxTotalBytes < 1 || cfg.limits.MaxMembers < 1 {
		return nil, fmt.Errorf("--max-file-bytes, --max-total-bytes and --max-members must be positive")
	}
	if !cfg.standalone() && len(cfg.inputs) == 0 {
		fs.Usage()
		return nil, fmt.Errorf("no bundle given")
	}
	return cfg, nil
}

// standalone reports whether the command needs no bundle.
func (c *config) standalone() bool {
	return c.list || c.explain != "" || c.exportPatterns != "" || c.dumpPatterns != "" || c.version
}

func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
