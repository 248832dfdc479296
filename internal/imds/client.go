// Package imds reads the EC2 instance metadata that helps explain why an EKS
// worker node failed: who the instance is, where it sits in the VPC, and which
// IAM role it runs as.
//
// The client speaks IMDSv2 (a session token from PUT /latest/api/token sent
// with every GET), keeps each request short and the whole collection inside a
// fixed budget, so that a broken or firewalled metadata service cannot stall
// the collector. It refuses, before any network traffic, every path that could
// return credentials: the documents under iam/security-credentials/<role> and
// anything under identity-credentials. Only the listing
// iam/security-credentials/, whose body is the role name, is read.
package imds

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultEndpoint is the link-local address of the instance metadata service.
const DefaultEndpoint = "http://169.254.169.254"

const (
	tokenPath      = "/latest/api/token"
	tokenTTLHeader = "X-aws-ec2-metadata-token-ttl-seconds"
	tokenHeader    = "X-aws-ec2-metadata-token"

	// tokenTTLSeconds is how long a session token lives. A collection takes
	// seconds, so a short life is enough.
	tokenTTLSeconds = 300

	metadataBodyLimit = 64 << 10
	userDataBodyLimit = 1 << 20
)

// Errors returned (wrapped, with the path) by the client and recorded in
// Request.Err. Check them with errors.Is.
var (
	ErrUnreachable   = errors.New("instance metadata service unreachable")
	ErrTimeout       = errors.New("instance metadata service did not answer in time")
	ErrTokenRejected = errors.New("IMDSv2 session token refused or rejected")
	ErrNotFound      = errors.New("metadata path not found")
	ErrNoUserData    = errors.New("instance has no user data")
	ErrStatus        = errors.New("unexpected HTTP status from instance metadata service")
	ErrTooLarge      = errors.New("metadata response larger than allowed")
	ErrMalformed     = errors.New("malformed metadata value")
	ErrForbiddenPath = errors.New("metadata path may hold credentials and is never requested")
)

// Client talks to one instance metadata endpoint. It is safe for concurrent
// use; each Collect or UserData call gets its own session token.
type Client struct {
	endpoint       string
	connectTimeout time.Duration
	requestTimeout time.Duration
	budget         time.Duration
	allowV1        bool
	http           *http.Client
}

// Option changes a Client made by New.
type Option func(*Client)

// WithConnectTimeout bounds the TCP connect of each request (default 1 s).
func WithConnectTimeout(d time.Duration) Option {
	return func(c *Client) { setPositive(&c.connectTimeout, d) }
}

// WithRequestTimeout bounds each request from connect to the last body byte
// (default 2 s).
func WithRequestTimeout(d time.Duration) Option {
	return func(c *Client) { setPositive(&c.requestTimeout, d) }
}

// WithBudget bounds a whole Collect or UserData call (default 10 s).
func WithBudget(d time.Duration) Option {
	return func(c *Client) { setPositive(&c.budget, d) }
}

// WithIMDSv1Fallback says whether the client may read metadata without a
// token when the token PUT is answered 403, 404 or 405 (default true). The
// fallback is recorded in Metadata.IMDSVersion.
func WithIMDSv1Fallback(allowed bool) Option {
	return func(c *Client) { c.allowV1 = allowed }
}

func setPositive(dst *time.Duration, d time.Duration) {
	if d > 0 {
		*dst = d
	}
}

// New returns a client for endpoint (DefaultEndpoint when empty). Proxies are
// never used and redirects are never followed.
func New(endpoint string, opts ...Option) *Client {
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	c := &Client{
		endpoint:       strings.TrimRight(endpoint, "/"),
		connectTimeout: time.Second,
		requestTimeout: 2 * time.Second,
		budget:         10 * time.Second,
		allowV1:        true,
	}
	for _, opt := range opts {
		opt(c)
	}
	dialer := &net.Dialer{Timeout: c.connectTimeout}
	c.http = &http.Client{
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           dialer.DialContext,
			MaxIdleConnsPerHost:   16,
			ResponseHeaderTimeout: c.requestTimeout,
			DisableCompression:    true,
		},
		// A redirect could point at a credentials path; stop at the 3xx.
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	return c
}

// send performs one request under the per-request timeout and records it.
// Any status other than 200 becomes an error.
func (c *Client) send(ctx context.Context, method, path, token string, limit int64) ([]byte, Request) {
	rec := Request{Method: method, Path: path}
	if err := checkPath(path); err != nil {
		rec.fail(err)
		return nil, rec
	}
	ctx, cancel := context.WithTimeout(ctx, c.requestTimeout)
	defer cancel()
	start := time.Now()
	body, status, err := c.roundTrip(ctx, method, path, token, limit)
	rec.Duration = time.Since(start)
	rec.Status = status
	rec.Bytes = len(body)
	if err == nil {
		err = statusError(status)
	}
	if err != nil {
		rec.fail(fmt.Errorf("%s %s: %w", method, path, err))
	}
	return body, rec
}

func (c *Client) roundTrip(ctx context.Context, method, path, token string, limit int64) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint+path, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	if method == http.MethodPut {
		req.Header.Set(tokenTTLHeader, strconv.Itoa(tokenTTLSeconds))
	}
	if token != "" {
		req.Header.Set(tokenHeader, token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, transportError(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return body, resp.StatusCode, transportError(ctx, err)
	}
	if int64(len(body)) > limit {
		return body[:limit], resp.StatusCode, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	return body, resp.StatusCode, nil
}

// transportError sorts a failed exchange into ErrTimeout (the deadline of
// the request or of the budget passed) or ErrUnreachable (anything else:
// refused, reset, no route).
func transportError(ctx context.Context, err error) error {
	var netErr net.Error
	switch {
	case isDial(err):
		return fmt.Errorf("%w: %w", ErrUnreachable, err)
	case ctx.Err() != nil, errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	default:
		return fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
}

// isDial reports whether err happened while connecting; a connect that
// times out means nothing answered, so it counts as unreachable.
func isDial(err error) bool {
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

func statusError(status int) error {
	switch status {
	case http.StatusOK:
		return nil
	case http.StatusNotFound:
		return ErrNotFound
	case http.StatusUnauthorized:
		return fmt.Errorf("%w (HTTP 401)", ErrTokenRejected)
	default:
		return fmt.Errorf("%w %d", ErrStatus, status)
	}
}
