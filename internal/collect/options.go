// Package collect is the collect orchestrator: it runs the sources of a
// node concurrently, each under its own deadline and the whole run under
// --timeout, stages their files through the redactor, keeps the bundle under
// its size budget by cutting the oldest part of big logs, and writes the
// archive with its manifest atomically next to where it belongs.
package collect

import (
	"errors"
	"io"
	"time"

	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/nodetriage/nodetriage/internal/imds"
	"github.com/nodetriage/nodetriage/internal/journal"
	"github.com/nodetriage/nodetriage/internal/probe"
)

// Defaults of the command line.
const (
	DefaultRoot      = "/"
	DefaultOutputDir = "/var/log"
	DefaultSince     = 10 * 24 * time.Hour
	DefaultMaxSize   = 5 << 20
	DefaultTimeout   = 120 * time.Second
)

// Errors that mean no bundle was written; check them with errors.Is.
var (
	ErrNotRoot      = errors.New("collect must run as root to read the node's logs")
	ErrRoot         = errors.New("cannot read the --root folder")
	ErrOutput       = errors.New("cannot write the bundle there")
	ErrNoSpace      = errors.New("not enough free disk space for the bundle")
	ErrInvalidUsage = errors.New("invalid option")
)

// Options are the settings of one run, as the command line gives them.
type Options struct {
	Root string // node root; "/" for the machine collect runs on
	// HostNamespaces says that, although Root is not "/", collect runs on
	// the node itself in a container sharing its PID and network
	// namespaces, so commands and /proc describe the node.
	HostNamespaces bool
	// Output is the bundle file, or an existing folder that receives the
	// bundle under its default name. Empty means DefaultOutputDir.
	Output string
	// Since is the start of the time window for the journal units; when
	// zero, SinceDuration before the newest journal entry (under --root) or
	// before now is used.
	Since         time.Time
	SinceDuration time.Duration
	MaxSize       int64         // compressed bundle budget in bytes; 0 = unlimited
	Timeout       time.Duration // whole run
	IMDSEndpoint  string
	NoIMDS        bool
	NoProbes      bool
	NoRedact      bool
	Format        bundle.Format
	RedactRules   string // file of extra redaction rules
	Pseudonymize  bool
	// Journal reads the journal; journal.Default() when nil.
	Journal journal.Reader
	// Progress receives progress and the final summary; nil is silent.
	// Live redraws one status line (a terminal); otherwise one plain line
	// per finished source is written.
	Progress io.Writer
	Live     bool
	// Version and Commit stamp the manifest; CommandLine is recorded as is.
	Version     string
	Commit      string
	CommandLine []string
	// Workers is how many sources run at once (default 8).
	Workers int

	// Tests only: probe settings (a resolver that answers loopback) and
	// IMDS client settings (short timeouts).
	probeOptions probe.Options
	imdsOptions  []imds.Option
	// requireRoot can be turned off by tests that run as another user.
	skipRootCheck bool
}

// Result describes the bundle that was written.
type Result struct {
	Path     string
	Bytes    int64
	Manifest *bundle.Manifest
	// PseudonymMap is the file holding the pseudonym map (--pseudonymize).
	PseudonymMap string
}

func (o *Options) applyDefaults() {
	if o.Root == "" {
		o.Root = DefaultRoot
	}
	if o.Output == "" {
		o.Output = DefaultOutputDir
	}
	if o.SinceDuration <= 0 {
		o.SinceDuration = DefaultSince
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Format == "" {
		o.Format = bundle.FormatTarGz
	}
	if o.Workers <= 0 {
		o.Workers = 8
	}
	if o.MaxSize < 0 {
		o.MaxSize = 0
	}
}
