package collect

import (
	"errors"
	"fmt"
	"io"
	"maps"

	"github.com/nodetriage/nodetriage/internal/redact"
	"github.com/nodetriage/nodetriage/internal/source"
)

// redaction is the filter every staged file goes through: the redactor's
// rules, then (with --pseudonymize) the pseudonymizer.
type redaction struct {
	redactor *redact.Redactor      // nil with --no-redact
	pseudo   *redact.Pseudonymizer // nil without --pseudonymize
}

// newRedaction builds the filter from the options.
func newRedaction(opts Options) (*redaction, error) {
	r := &redaction{}
	if !opts.NoRedact {
		rules := redact.DefaultRules()
		if opts.RedactRules != "" {
			extra, err := redact.LoadRules(opts.RedactRules)
			if err != nil {
				return nil, fmt.Errorf("%w: --redact-rules: %w", ErrInvalidUsage, err)
			}
			rules = append(rules, extra...)
		}
		r.redactor = redact.New(rules)
	}
	if opts.Pseudonymize {
		r.pseudo = redact.NewPseudonymizer()
	}
	return r, nil
}

// filter returns the stage filter, or nil when nothing is rewritten.
func (r *redaction) filter() source.Filter {
	if r.redactor == nil && r.pseudo == nil {
		return nil
	}
	return r
}

// Wrap chains the redactor and the pseudonymizer in front of dst.
func (r *redaction) Wrap(dst io.Writer) source.FilterWriter {
	var chain []*redact.Writer
	head := dst
	if r.pseudo != nil {
		w := r.pseudo.NewWriter(head)
		chain = append(chain, w)
		head = w
	}
	if r.redactor != nil {
		w := r.redactor.NewWriter(head)
		chain = append(chain, w)
		head = w
	}
	return &chainWriter{head: head, chain: chain}
}

// rules names the redaction rules for the manifest.
func (r *redaction) rules() []string {
	if r.redactor == nil {
		return nil
	}
	return r.redactor.RuleNames()
}

// text rewrites a short string (a host name in the manifest) the way files
// are rewritten.
func (r *redaction) text(s string) string {
	if r.pseudo == nil || s == "" {
		return s
	}
	out, _ := r.pseudo.Bytes([]byte(s))
	return string(out)
}

// chainWriter writes into the first writer of a chain and closes them from
// the first (the one written to) to the last, so each flushes into the next.
type chainWriter struct {
	head  io.Writer
	chain []*redact.Writer // last element is the head
}

func (c *chainWriter) Write(p []byte) (int, error) { return c.head.Write(p) }

func (c *chainWriter) Close() error {
	var errs []error
	for i := len(c.chain) - 1; i >= 0; i-- {
		errs = append(errs, c.chain[i].Close())
	}
	return errors.Join(errs...)
}

func (c *chainWriter) Counts() map[string]int {
	counts := map[string]int{}
	for _, w := range c.chain {
		for rule, n := range w.Counts() {
			if n > 0 {
				counts[rule] += n
			}
		}
	}
	return maps.Clone(counts)
}
