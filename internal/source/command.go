package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// DefaultCommandTimeout bounds one command unless its Command says otherwise.
const DefaultCommandTimeout = 15 * time.Second

// stderrKeep is how much of a failed command's standard error is quoted.
const stderrKeep = 2 << 10

// Command runs one tool of the node and stages its standard output. Commands
// describe the running machine, so under --root they are skipped.
type Command struct {
	name    string
	tree    *Tree
	to      string
	argv    []string
	timeout time.Duration
	// fallback produces the same information in Go when the tool is
	// missing (reading /proc or /sys).
	fallback func(ctx context.Context, f *File) error
	// conditions must all hold for the command to run at all.
	conditions []Condition
}

// NewCommand returns a source that runs argv and stages its output at to.
func NewCommand(name string, tree *Tree, to string, argv ...string) *Command {
	return &Command{name: name, tree: tree, to: to, argv: argv, timeout: DefaultCommandTimeout}
}

// WithTimeout sets the command's own deadline.
func (c *Command) WithTimeout(d time.Duration) *Command {
	c.timeout = d
	return c
}

// WithFallback sets what to do in Go when the tool is not installed.
func (c *Command) WithFallback(fn func(ctx context.Context, f *File) error) *Command {
	c.fallback = fn
	return c
}

// OnlyIf runs the command only when cond holds on the node; otherwise it
// is skipped with the reason cond gives (docker commands on a node without
// dockerd, modinfo of a module the kernel does not have).
func (c *Command) OnlyIf(cond Condition) *Command {
	c.conditions = append(c.conditions, cond)
	return c
}

// Name is the source name.
func (c *Command) Name() string { return c.name }

// Deadline is the command's timeout plus a moment to stage its output.
func (c *Command) Deadline() time.Duration { return c.timeout + 2*time.Second }

// Collect runs the command. A missing tool (with no fallback) is skipped.
// At the deadline the command and every process it started are killed.
func (c *Command) Collect(ctx context.Context, out Sink) error {
	if !c.tree.Live() {
		return fmt.Errorf("%w: %s describes the running machine, not --root %s", ErrSkipped, c.argv[0], c.tree.Dir())
	}
	for _, cond := range c.conditions {
		if err := cond(c.tree); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrSkipped, c.argv[0], err)
		}
	}
	bin, err := lookTool(c.argv[0])
	if err != nil {
		if c.fallback == nil {
			return err
		}
		return c.runFallback(ctx, out)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	f, err := out.Create(c.to)
	if err != nil {
		return err
	}
	return errors.Join(Run(ctx, f, bin, c.argv[1:]...), f.Close())
}

func (c *Command) runFallback(ctx context.Context, out Sink) error {
	f, err := out.Create(c.to)
	if err != nil {
		return err
	}
	return errors.Join(c.fallback(ctx, f), f.Close())
}

// ErrCommandFailed wraps a command that ran and exited with an error.
var ErrCommandFailed = errors.New("command failed")

// Run runs bin with args in its own process group, standard output to
// stdout, with LANG=C. When ctx ends, the whole group is killed; the error
// then wraps ctx's error. A non-zero exit wraps ErrCommandFailed and quotes
// the end of standard error.
func Run(ctx context.Context, stdout io.Writer, bin string, args ...string) error {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout = stdout
	stderr := &lastBytes{max: stderrKeep}
	cmd.Stderr = stderr
	cmd.Env = append(os.Environ(), "LANG=C", "LC_ALL=C")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The negative pid names the process group: the command and
		// everything it started that did not leave the group.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: killed at its deadline: %w", bin, ctxErr)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			return fmt.Errorf("%s: %w: %w: %s", bin, ErrCommandFailed, err, msg)
		}
		return fmt.Errorf("%s: %w: %w", bin, ErrCommandFailed, err)
	}
	return nil
}

// lastBytes keeps the last max bytes written to it.
type lastBytes struct {
	max int
	buf []byte
}

func (l *lastBytes) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	if len(l.buf) > l.max {
		l.buf = append(l.buf[:0], l.buf[len(l.buf)-l.max:]...)
	}
	return len(p), nil
}

func (l *lastBytes) String() string { return string(l.buf) }
