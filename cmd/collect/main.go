// Command collect gathers the logs, configuration and state of an Amazon EKS
// worker node into one bounded, redacted bundle, ready for `analyze` or a
// support case. `collect redact BUNDLE` re-redacts a bundle made elsewhere.
//
// Exit codes: 0 a bundle was written (sources that failed are recorded in
// it), 1 the bundle was written but --upload failed, 2 no bundle (usage
// error, not root, no space, output not writable).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/nodetriage/nodetriage/internal/collect"
	"github.com/nodetriage/nodetriage/internal/journal"
	"github.com/nodetriage/nodetriage/internal/upload"
)

// Set at build time with -ldflags "-X main.version=... -X main.commit=...".
var (
	version = "dev"
	commit  = "unknown"
)

// Exit codes.
const (
	exitOK          = 0
	exitNotUploaded = 1 // the bundle was written, but --upload failed
	exitNoBundle    = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: arguments in, exit code out.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 1 && args[1] == "redact" {
		return runRedact(ctx, args, stdout, stderr)
	}
	flags := pflag.NewFlagSet("collect", pflag.ContinueOnError)
	flags.SetOutput(stderr)
	var (
		root         = flags.String("root", collect.DefaultRoot, "root of the node's file system (a mounted volume of a dead node)")
		hostNS       = flags.Bool("host-namespaces", false, "with --root: this is the node itself, in a container sharing its PID and network namespaces (run commands, read /proc)")
		output       = flags.StringP("output", "o", collect.DefaultOutputDir, "bundle file, or folder for the default name")
		since        = flags.String("since", "10d", "start of the journal window: a duration back (48h, 10d) or an RFC 3339 time")
		maxSize      = flags.String("max-size", "5MiB", "compressed bundle budget (0 = unlimited)")
		timeout      = flags.Duration("timeout", collect.DefaultTimeout, "time limit of the whole run")
		imdsEndpoint = flags.String("imds-endpoint", "", "instance metadata service URL (default http://169.254.169.254)")
		noIMDS       = flags.Bool("no-imds", false, "do not ask the instance metadata service")
		noProbes     = flags.Bool("no-probes", false, "do not probe the API server and AWS endpoints")
		noRedact     = flags.Bool("no-redact", false, "do not redact secrets (stamped into the manifest and the file name)")
		format       = flags.String("format", "tar.gz", "archive format: tar.gz, tar.zst or zip")
		redactRules  = flags.String("redact-rules", "", "file of extra redaction rules (name: RE2 regex per line)")
		pseudonymize = flags.Bool("pseudonymize", false, "replace IPs, EC2 host names, account and instance ids with consistent pseudonyms (map kept next to the bundle)")
		backend      = flags.String("journal-backend", "auto", "journal reader: auto, sdjournal or journalctl")
		uploadURL    = flags.String("upload", "", "after writing, PUT the bundle to this presigned https URL (retried with backoff)")
		quiet        = flags.BoolP("quiet", "q", false, "print only the bundle path")
		showVersion  = flags.Bool("version", false, "print the version and exit")
	)
	flags.Usage = func() { usage(stderr, flags) }
	if err := flags.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "collect: %v (see --help)\n", err)
		return exitNoBundle
	}
	if *showVersion {
		printVersion(stdout, *backend)
		return exitOK
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "collect: unexpected argument %q (see --help)\n", flags.Arg(0))
		return exitNoBundle
	}
	opts := collect.Options{
		Root: *root, HostNamespaces: *hostNS, Output: *output, Timeout: *timeout, IMDSEndpoint: *imdsEndpoint,
		NoIMDS: *noIMDS, NoProbes: *noProbes, NoRedact: *noRedact,
		RedactRules: *redactRules, Pseudonymize: *pseudonymize,
		Version: version, Commit: commit, CommandLine: args,
	}
	var err error
	if opts.Since, opts.SinceDuration, err = collect.ParseSince(*since); err == nil {
		if opts.MaxSize, err = collect.ParseSize(*maxSize); err == nil {
			if opts.Format, err = bundle.ParseFormat(*format); err == nil {
				opts.Journal, err = collect.JournalBackend(*backend)
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "collect: %v\n", err)
		return exitNoBundle
	}
	if !*quiet {
		opts.Progress, opts.Live = stderr, isTerminal(stderr)
	}
	res, err := collect.Run(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "collect: no bundle written: %v\n", err)
		return exitNoBundle
	}
	fmt.Fprintln(stdout, res.Path)
	if *uploadURL != "" {
		return uploadBundle(ctx, *uploadURL, res.Path, stderr)
	}
	return exitOK
}

// uploadBundle PUTs the bundle to a presigned URL. The bundle stays on disk
// whatever happens, so a failed upload loses nothing.
func uploadBundle(ctx context.Context, url, path string, stderr io.Writer) int {
	opt := upload.Options{OnRetry: func(attempt int, err error, wait time.Duration) {
		fmt.Fprintf(stderr, "collect: upload attempt %d failed (%v); next try in %s\n", attempt, err, wait.Round(time.Millisecond))
	}}
	if err := upload.Put(ctx, url, path, opt); err != nil {
		fmt.Fprintf(stderr, "collect: bundle written to %s but not uploaded: %v\n", path, err)
		return exitNotUploaded
	}
	fmt.Fprintf(stderr, "collect: uploaded %s to %s\n", path, upload.Redact(url))
	return exitOK
}

// runRedact is `collect redact BUNDLE`.
func runRedact(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flags := pflag.NewFlagSet("collect redact", pflag.ContinueOnError)
	flags.SetOutput(stderr)
	output := flags.StringP("output", "o", "", "redacted bundle file, or folder (default: <bundle>_redacted.tar.gz next to the input)")
	redactRules := flags.String("redact-rules", "", "file of extra redaction rules (name: RE2 regex per line)")
	pseudonymize := flags.Bool("pseudonymize", false, "also replace IPs, EC2 host names, account and instance ids with pseudonyms")
	quiet := flags.BoolP("quiet", "q", false, "print only the bundle path")
	flags.Usage = func() {
		fmt.Fprintf(stderr, "Usage: collect redact [flags] BUNDLE\n\nRe-redacts a bundle (ours, eks-log-collector.sh's, or a folder) into a new tar.gz.\n\nFlags:\n%s", flags.FlagUsages())
	}
	if err := flags.Parse(args[2:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "collect redact: %v (see --help)\n", err)
		return exitNoBundle
	}
	if flags.NArg() != 1 {
		fmt.Fprintln(stderr, "collect redact: give exactly one BUNDLE (see --help)")
		return exitNoBundle
	}
	opts := collect.RedactOptions{
		Input: flags.Arg(0), Output: *output, RedactRules: *redactRules, Pseudonymize: *pseudonymize,
		Version: version, Commit: commit, CommandLine: args,
	}
	if !*quiet {
		opts.Progress = stderr
	}
	res, err := collect.RedactBundle(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "collect redact: no bundle written: %v\n", err)
		return exitNoBundle
	}
	fmt.Fprintln(stdout, res.Path)
	return exitOK
}

func usage(w io.Writer, flags *pflag.FlagSet) {
	fmt.Fprintf(w, `Usage: collect [flags]
       collect redact [flags] BUNDLE

Gathers the logs and state of an EKS worker node into a redacted bundle,
by default /var/log/eks_<instance-id>_<time>_nodetriage.tar.gz (mode 0600).
Run it as root on the node, or with --root on a mounted node volume.

Flags:
%s
Exit codes: 0 bundle written, 1 bundle written but --upload failed, 2 no bundle.
`, flags.FlagUsages())
}

func printVersion(w io.Writer, backend string) {
	reader, err := collect.JournalBackend(backend)
	name := "unavailable"
	if err == nil {
		name = journal.Backend(reader)
	}
	fmt.Fprintf(w, "collect %s (commit %s, journal backend %s)\n", version, commit, name)
}

// isTerminal tells whether w is a terminal, for the live progress line.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
