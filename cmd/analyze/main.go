// Command analyze reads EKS node bundles (made by collect, by the AWS
// eks-log-collector.sh, by Bottlerocket's logdog, an extracted folder or a
// single log file such as the EC2 serial console output) and prints the root
// cause of a node's failure, its evidence and the fix.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"
)

var (
	version = "dev"
	commit  = "unknown"
)

// Exit codes, as documented in the README.
const (
	exitClean    = 0 // nothing at warning or above
	exitFindings = 1 // findings at warning or above
	exitUsage    = 2 // input or usage error
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: it parses flags, does the work and
// returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, pflag.ErrHelp) {
		return exitClean
	}
	if err != nil {
		fmt.Fprintf(stderr, "analyze: %v\n", err)
		return exitUsage
	}
	code, err := cfg.execute(ctx, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "analyze: %v\n", err)
	}
	return code
}
