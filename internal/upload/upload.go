// Package upload sends a finished bundle off the node with an HTTP PUT to a
// presigned URL, for nodes that have neither the AWS CLI nor an instance role
// allowed to write to S3.
//
// A presigned URL carries its own signature, so the only work here is to get
// the bytes through an unreliable network: Put retries network errors and the
// answers that mean "try again later" (5xx, 429) with exponential backoff and
// jitter, re-reading the file for every attempt, and gives up at once on any
// other refusal. TLS certificates are always verified; nothing in this package
// can turn that off. Error messages never show the URL's query string, which
// holds the signature.
package upload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"
)

// Errors returned, wrapped with details, by Put. Check them with errors.Is.
var (
	// ErrRejected means the server refused the upload with a status that
	// retrying cannot change (a 4xx other than 429, or a 3xx that was not
	// followed), or that its certificate could not be verified.
	ErrRejected = errors.New("upload rejected")
	// ErrGaveUp means every attempt failed with a retryable error.
	ErrGaveUp = errors.New("upload still failing after the last attempt")
	// ErrBadURL means the URL is not an absolute https URL (plain http is
	// accepted only for a loopback host).
	ErrBadURL = errors.New("unusable upload URL")
	// ErrNotRegularFile means the path to upload is a folder, device or pipe.
	ErrNotRegularFile = errors.New("not a regular file")
)

// Defaults used when the matching Options field is zero.
const (
	DefaultAttempts  = 5
	DefaultBaseDelay = time.Second
	DefaultMaxDelay  = 30 * time.Second
)

// errorBodyLimit is how much of a refusal's body goes into the error: enough
// for the S3 XML error code and message.
const errorBodyLimit = 512

// Options tune Put. The zero value gives 5 attempts, 1 s first delay, 30 s
// longest delay and a client that verifies certificates against the system
// roots.
type Options struct {
	// Attempts is the total number of tries, the first one included.
	Attempts int
	// BaseDelay is the wait before the second attempt; each later wait
	// doubles, up to MaxDelay, and is then shortened by a random amount of
	// up to half so that many nodes do not retry in step.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// Client sends the requests. When nil, a client with the standard
	// transport (system roots, proxy from the environment) is used.
	Client *http.Client
	// OnRetry, when set, is told about every failed attempt that will be
	// retried and how long Put waits first; collect uses it for progress
	// lines.
	OnRetry func(attempt int, err error, wait time.Duration)
}

func (o Options) withDefaults() Options {
	if o.Attempts <= 0 {
		o.Attempts = DefaultAttempts
	}
	if o.BaseDelay <= 0 {
		o.BaseDelay = DefaultBaseDelay
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = DefaultMaxDelay
	}
	if o.MaxDelay < o.BaseDelay {
		o.MaxDelay = o.BaseDelay
	}
	if o.Client == nil {
		o.Client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	o.Client = keepingPut(o.Client)
	return o
}

// keepingPut returns a copy of client that follows only redirects that keep
// the PUT and its body (307, 308). The HTTP client turns a PUT into a body-less
// GET on 301, 302 and 303; following those would report success for an upload
// that never happened, so the 3xx answer is returned as it is instead.
func keepingPut(client *http.Client) *http.Client {
	c := *client
	next := client.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.Method != http.MethodPut {
			return http.ErrUseLastResponse
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("more than 10 redirects")
		}
		return nil
	}
	return &c
}

// Put uploads file to rawURL with HTTP PUT and a Content-Length header. It
// returns nil once the server answers 2xx. A refusal that retrying cannot fix
// returns an error wrapping ErrRejected; running out of attempts returns one
// wrapping ErrGaveUp and the last failure; a cancelled ctx returns its error.
func Put(ctx context.Context, rawURL string, file string, opt Options) error {
	target, err := checkURL(rawURL)
	if err != nil {
		return err
	}
	size, err := regularFileSize(file)
	if err != nil {
		return err
	}
	opt = opt.withDefaults()
	shown := Redact(rawURL)

	for attempt := 1; ; attempt++ {
		err := putOnce(ctx, opt.Client, target, file, size)
		if err == nil {
			return nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("upload %s to %s: %w", file, shown, ctxErr)
		}
		var retry *retryableError
		if !errors.As(err, &retry) {
			return fmt.Errorf("upload %s to %s: %w", file, shown, err)
		}
		if attempt >= opt.Attempts {
			return fmt.Errorf("upload %s to %s: %w (%d attempts): %w", file, shown, ErrGaveUp, attempt, retry.err)
		}
		wait := backoff(attempt, opt.BaseDelay, opt.MaxDelay, retry.after)
		if opt.OnRetry != nil {
			opt.OnRetry(attempt, retry.err, wait)
		}
		if err := sleep(ctx, wait); err != nil {
			return fmt.Errorf("upload %s to %s: waiting to retry: %w", file, shown, err)
		}
	}
}

// retryableError marks a failure worth another attempt; after is the wait
// the server asked for with Retry-After, or zero.
type retryableError struct {
	err   error
	after time.Duration
}

func (e *retryableError) Error() string { return e.err.Error() }
func (e *retryableError) Unwrap() error { return e.err }

// putOnce makes one attempt, opening the file afresh so that a retry (or a
// redirect, through GetBody) sends it from the first byte.
func putOnce(ctx context.Context, client *http.Client, target *url.URL, file string, size int64) error {
	body, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("open %s: %w", file, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, target.String(), body)
	if err != nil {
		body.Close()
		return fmt.Errorf("build request: %w", err)
	}
	req.ContentLength = size
	req.GetBody = func() (io.ReadCloser, error) { return os.Open(file) }
	if size == 0 {
		// An empty file still needs "Content-Length: 0" on the wire.
		req.Body = http.NoBody
		body.Close()
	}

	resp, err := client.Do(req)
	if err != nil {
		return classifyTransportError(err)
	}
	defer resp.Body.Close()
	return classifyResponse(resp)
}

// classifyTransportError decides whether a failure before any response is
// worth retrying. Certificate problems are not: the same certificate comes
// back next time.
func classifyTransportError(err error) error {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		// url.Error prints the whole URL, signature included; keep only
		// what went wrong.
		err = urlErr.Err
	}
	if isCertificateError(err) {
		return fmt.Errorf("%w: server certificate not trusted: %w", ErrRejected, err)
	}
	return &retryableError{err: fmt.Errorf("sending request: %w", err)}
}

func classifyResponse(resp *http.Response) error {
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil
	}
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyLimit))
	failure := fmt.Errorf("server answered %s: %q", resp.Status, snippet)
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		after, _ := ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		return &retryableError{err: failure, after: after}
	}
	return fmt.Errorf("%w: %w", ErrRejected, failure)
}

func checkURL(rawURL string) (*url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		// The parse error quotes the URL; report only that it is malformed.
		return nil, fmt.Errorf("%w: %s does not parse", ErrBadURL, Redact(rawURL))
	}
	switch {
	case u.Host == "":
		return nil, fmt.Errorf("%w: %s has no host", ErrBadURL, Redact(rawURL))
	case u.Scheme == "https":
		return u, nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return u, nil
	}
	return nil, fmt.Errorf("%w: %s must use https", ErrBadURL, Redact(rawURL))
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func regularFileSize(file string) (int64, error) {
	info, err := os.Stat(file)
	if err != nil {
		return 0, fmt.Errorf("upload %s: %w", file, err)
	}
	if !info.Mode().IsRegular() {
		return 0, fmt.Errorf("upload %s: %w", file, ErrNotRegularFile)
	}
	return info.Size(), nil
}

// backoff is the wait after the given failed attempt (1-based): BaseDelay
// doubled per attempt, capped at MaxDelay, then reduced by a random part of
// up to half. A Retry-After from the server wins when it is longer, but never
// beyond MaxDelay.
func backoff(attempt int, base, max, serverAsked time.Duration) time.Duration {
	wait := base
	for i := 1; i < attempt && wait < max; i++ {
		wait *= 2
	}
	wait = min(wait, max)
	wait -= rand.N(wait/2 + 1)
	if serverAsked > wait {
		wait = min(serverAsked, max)
	}
	return wait
}

func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
