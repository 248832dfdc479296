package imds

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// Values of Metadata.IMDSVersion.
const (
	VersionV2 = "v2"
	VersionV1 = "v1"
)

// session holds the token of one Collect or UserData call. Requests of a
// session may run in parallel; a GET answered 401 makes the session fetch a
// new token, once per session, shared by every request that saw the 401.
type session struct {
	client *Client

	mu        sync.Mutex
	token     string
	v1        bool
	refreshed bool
	tokenLog  []Request
}

func newSession(c *Client) *session {
	return &session{client: c}
}

// start gets the first token. A 403, 404 or 405 answer switches the session
// to IMDSv1 when the client allows it; any other failure ends the session.
func (s *session) start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	token, rec := s.fetchToken(ctx)
	if rec.Err == nil {
		s.token = token
		return nil
	}
	if s.client.allowV1 && v1FallbackStatus(rec.Status) {
		s.v1 = true
		s.tokenLog[len(s.tokenLog)-1] = withoutError(rec)
		return nil
	}
	return rec.Err
}

func v1FallbackStatus(status int) bool {
	switch status {
	case http.StatusForbidden, http.StatusNotFound, http.StatusMethodNotAllowed:
		return true
	}
	return false
}

// withoutError keeps the status of a token request that led to the IMDSv1
// fallback but drops its error: the session went on without a token.
func withoutError(rec Request) Request {
	rec.Err = nil
	rec.Error = ""
	return rec
}

// fetchToken asks for a token and logs the request; s.mu must be held.
func (s *session) fetchToken(ctx context.Context) (string, Request) {
	body, rec := s.client.send(ctx, http.MethodPut, tokenPath, "", metadataBodyLimit)
	if rec.Status != 0 && rec.Status != http.StatusOK {
		rec.fail(fmt.Errorf("PUT %s: %w (HTTP %d)", tokenPath, ErrTokenRejected, rec.Status))
	}
	token := strings.TrimSpace(string(body))
	if rec.Err == nil && token == "" {
		rec.fail(fmt.Errorf("PUT %s: %w: empty token", tokenPath, ErrTokenRejected))
	}
	s.tokenLog = append(s.tokenLog, rec)
	return token, rec
}

func (s *session) currentToken() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.token
}

func (s *session) version() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.v1 {
		return VersionV1
	}
	return VersionV2
}

func (s *session) usesV1() bool {
	return s.version() == VersionV1
}

// refresh returns a token newer than stale: the one another request already
// fetched, or a new one if the session has not refreshed yet.
func (s *session) refresh(ctx context.Context, stale string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.token != stale {
		return s.token, true
	}
	if s.refreshed {
		return "", false
	}
	s.refreshed = true
	token, rec := s.fetchToken(ctx)
	if rec.Err != nil {
		return "", false
	}
	s.token = token
	return token, true
}

// get reads one path, retrying once with a fresh token after a 401. It
// returns every attempt it made.
func (s *session) get(ctx context.Context, path string, limit int64) ([]byte, []Request) {
	token := s.currentToken()
	body, rec := s.client.send(ctx, http.MethodGet, path, token, limit)
	attempts := []Request{rec}
	if rec.Status != http.StatusUnauthorized || s.usesV1() {
		return body, attempts
	}
	fresh, ok := s.refresh(ctx, token)
	if !ok {
		return body, attempts
	}
	body, rec = s.client.send(ctx, http.MethodGet, path, fresh, limit)
	return body, append(attempts, rec)
}

// tokenRequests returns the token requests made so far.
func (s *session) tokenRequests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.tokenLog...)
}
