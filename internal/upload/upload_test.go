package upload

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fast keeps the retry waits in tests to a few milliseconds.
var fast = Options{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}

// reply is what the test server does for one attempt.
type reply func(w http.ResponseWriter, r *http.Request)

func status(code int, body string) reply {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

// resetConnection drops the TCP connection with a reset before any answer.
func resetConnection(w http.ResponseWriter, r *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	conn.Close()
}

// bucket is a loopback stand-in for the object behind a presigned URL: it
// plays the scripted replies in order, then stores what it receives.
type bucket struct {
	mu            sync.Mutex
	script        []reply
	attempts      atomic.Int32
	stored        []byte
	contentLength string
	method        string
}

func (b *bucket) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(b.attempts.Add(1))
	if n <= len(b.script) {
		b.script[n-1](w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	b.mu.Lock()
	b.stored, b.contentLength, b.method = body, r.Header.Get("Content-Length"), r.Method
	b.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func writeBundle(t *testing.T, size int) (string, []byte) {
	t.Helper()
	data := make([]byte, size)
	if _, err := rand.Read(data); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "eks_i-0123456789abcdef0_2026-01-02_0304-UTC_nodetriage.tar.gz")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, data
}

func TestPutRetriesUntilStored(t *testing.T) {
	tests := []struct {
		name         string
		script       []reply
		size         int
		wantAttempts int
	}{
		{"500 then reset then stored", []reply{status(500, "InternalError"), resetConnection}, 256 << 10, 3},
		{"500 then 503 then stored", []reply{status(500, ""), status(503, "SlowDown")}, 256 << 10, 3},
		{"429 with Retry-After then stored", []reply{func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "0")
			status(429, "")(w, r)
		}}, 1 << 10, 2},
		{"first try", nil, 1 << 10, 1},
		{"empty file", []reply{status(502, "")}, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, data := writeBundle(t, tt.size)
			b := &bucket{script: tt.script}
			srv := httptest.NewServer(b)
			defer srv.Close()

			var retries []int
			opt := fast
			opt.OnRetry = func(attempt int, err error, wait time.Duration) {
				t.Logf("attempt %d failed (%v), next in %v", attempt, err, wait)
				retries = append(retries, attempt)
			}
			if err := Put(context.Background(), srv.URL+"/bundles/b.tar.gz?X-Amz-Signature=abc", file, opt); err != nil {
				t.Fatalf("Put: %v", err)
			}
			if got := int(b.attempts.Load()); got != tt.wantAttempts {
				t.Errorf("attempts = %d, want %d", got, tt.wantAttempts)
			}
			if len(retries) != tt.wantAttempts-1 {
				t.Errorf("OnRetry called for attempts %v, want %d calls", retries, tt.wantAttempts-1)
			}
			if !bytes.Equal(b.stored, data) {
				t.Errorf("stored %d bytes that differ from the %d-byte file", len(b.stored), len(data))
			}
			if b.method != http.MethodPut {
				t.Errorf("method = %s, want PUT", b.method)
			}
			if b.contentLength != strconv.Itoa(len(data)) {
				t.Errorf("Content-Length = %q, want %d", b.contentLength, len(data))
			}
		})
	}
}

func TestPutDoesNotRetryRefusals(t *testing.T) {
	longBody := "<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>" +
		strings.Repeat(".", 600) + "TAIL-BEYOND-LIMIT"
	tests := []struct {
		name     string
		code     int
		body     string
		contains []string
	}{
		{"expired signature", http.StatusForbidden, longBody, []string{"403", "AccessDenied", "Request has expired"}},
		{"no such bucket", http.StatusNotFound, "NoSuchBucket", []string{"404", "NoSuchBucket"}},
		{"bad request", http.StatusBadRequest, "", []string{"400"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, _ := writeBundle(t, 100)
			b := &bucket{script: []reply{status(tt.code, tt.body), status(tt.code, tt.body)}}
			srv := httptest.NewServer(b)
			defer srv.Close()

			err := Put(context.Background(), srv.URL+"/b", file, fast)
			if !errors.Is(err, ErrRejected) {
				t.Fatalf("err = %v, want ErrRejected", err)
			}
			if errors.Is(err, ErrGaveUp) {
				t.Errorf("a refusal must not be reported as giving up: %v", err)
			}
			if got := b.attempts.Load(); got != 1 {
				t.Errorf("attempts = %d, want 1 (no retry)", got)
			}
			for _, want := range tt.contains {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "TAIL-BEYOND-LIMIT") {
				t.Errorf("error quotes more than %d bytes of the body", errorBodyLimit)
			}
		})
	}
}

func TestPutRedirects(t *testing.T) {
	tests := []struct {
		name       string
		code       int
		wantStored bool
	}{
		{"307 keeps the PUT", http.StatusTemporaryRedirect, true},
		{"308 keeps the PUT", http.StatusPermanentRedirect, true},
		{"302 would become a GET", http.StatusFound, false},
		{"301 would become a GET", http.StatusMovedPermanently, false},
		{"303 would become a GET", http.StatusSeeOther, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, data := writeBundle(t, 4<<10)
			target := &bucket{}
			mux := http.NewServeMux()
			mux.Handle("/new", target)
			mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "/new", tt.code)
			})
			srv := httptest.NewServer(mux)
			defer srv.Close()

			err := Put(context.Background(), srv.URL+"/old", file, fast)
			if tt.wantStored {
				if err != nil {
					t.Fatalf("Put: %v", err)
				}
				if !bytes.Equal(target.stored, data) || target.method != http.MethodPut {
					t.Errorf("redirect target got %s with %d bytes, want PUT with the file", target.method, len(target.stored))
				}
				return
			}
			if !errors.Is(err, ErrRejected) {
				t.Errorf("err = %v, want ErrRejected", err)
			}
			if n := target.attempts.Load(); n != 0 {
				t.Errorf("the redirect was followed (%d requests)", n)
			}
		})
	}
}

func TestPutGivesUpAfterLastAttempt(t *testing.T) {
	file, _ := writeBundle(t, 100)
	b := &bucket{script: []reply{status(503, "SlowDown"), status(503, "SlowDown"), status(503, "SlowDown"), status(503, "SlowDown")}}
	srv := httptest.NewServer(b)
	defer srv.Close()

	opt := fast
	opt.Attempts = 3
	err := Put(context.Background(), srv.URL+"/b", file, opt)
	if !errors.Is(err, ErrGaveUp) {
		t.Fatalf("err = %v, want ErrGaveUp", err)
	}
	if !strings.Contains(err.Error(), "SlowDown") {
		t.Errorf("error %q does not say what the last attempt got", err)
	}
	if got := b.attempts.Load(); got != 3 {
		t.Errorf("attempts = %d, want 3", got)
	}
}

// TestPutVerifiesCertificates checks that a server whose certificate is not
// signed by a trusted root is refused at once, and that the same server is
// accepted by a client that trusts its certificate, so the certificate is the
// only difference.
func TestPutVerifiesCertificates(t *testing.T) {
	file, data := writeBundle(t, 100)
	b := &bucket{}
	srv := httptest.NewUnstartedServer(b)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	srv.StartTLS()
	defer srv.Close()

	err := Put(context.Background(), srv.URL+"/b", file, fast)
	if !errors.Is(err, ErrRejected) {
		t.Fatalf("err = %v, want ErrRejected for a self-signed server", err)
	}
	var unknownAuthority x509.UnknownAuthorityError
	var verify *tls.CertificateVerificationError
	if !errors.As(err, &unknownAuthority) && !errors.As(err, &verify) {
		t.Errorf("err = %v, want an x509 verification error in the chain", err)
	}
	if got := b.attempts.Load(); got != 0 {
		t.Errorf("the server saw %d requests; the handshake should have failed first", got)
	}

	opt := fast
	opt.Client = srv.Client()
	if err := Put(context.Background(), srv.URL+"/b", file, opt); err != nil {
		t.Fatalf("Put with a client trusting the test certificate: %v", err)
	}
	if !bytes.Equal(b.stored, data) {
		t.Errorf("stored bytes differ from the file")
	}
}

func TestPutStopsWhenCancelledDuringBackoff(t *testing.T) {
	file, _ := writeBundle(t, 100)
	firstAttempt := make(chan struct{}, 1)
	var attempts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attempts.Add(1)
		status(500, "")(w, r)
		select {
		case firstAttempt <- struct{}{}:
		default:
		}
	}))
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Put(ctx, srv.URL+"/b", file, Options{BaseDelay: time.Hour, MaxDelay: time.Hour})
	}()
	<-firstAttempt
	cancel()

	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Put kept waiting after its context was cancelled")
	}
	if got := attempts.Load(); got != 1 {
		t.Errorf("attempts = %d, want 1", got)
	}
}

func TestPutRefusesBadInput(t *testing.T) {
	file, _ := writeBundle(t, 10)
	tests := []struct {
		name string
		url  string
		file string
		want error
	}{
		{"plain http to a remote host", "http://192.0.2.10/b?sig=x", file, ErrBadURL},
		{"other scheme", "ftp://127.0.0.1/b", file, ErrBadURL},
		{"no host", "https:///b", file, ErrBadURL},
		{"not a URL", "https://[::1/b", file, ErrBadURL},
		{"missing file", "https://127.0.0.1/b", filepath.Join(t.TempDir(), "nope"), os.ErrNotExist},
		{"folder", "https://127.0.0.1/b", t.TempDir(), ErrNotRegularFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Put(context.Background(), tt.url, tt.file, fast)
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestErrorsHideSignature makes sure no error repeats the query string of a
// presigned URL, which is as good as a password until it expires.
func TestErrorsHideSignature(t *testing.T) {
	const secret = "X-Amz-Signature=5ecre7"
	file, _ := writeBundle(t, 10)

	refusing := httptest.NewServer(http.HandlerFunc(status(http.StatusForbidden, "AccessDenied")))
	defer refusing.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	tests := []struct {
		name string
		url  string
	}{
		{"refused", refusing.URL + "/b?" + secret},
		{"nothing listening", closedURL + "/b?" + secret},
		{"remote http", "http://192.0.2.10/b?" + secret},
		{"user info", "https://user:5ecre7@127.0.0.1:1/b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := fast
			opt.Attempts = 2
			err := Put(context.Background(), tt.url, file, opt)
			if err == nil {
				t.Fatal("Put succeeded; the test needs a failure")
			}
			if strings.Contains(err.Error(), "5ecre7") {
				t.Errorf("error leaks the signature: %v", err)
			}
		})
	}
}

func TestBackoffStaysInBounds(t *testing.T) {
	base, maxDelay := 100*time.Millisecond, 2*time.Second
	tests := []struct {
		attempt     int
		serverAsked time.Duration
		low, high   time.Duration
	}{
		{1, 0, 50 * time.Millisecond, 100 * time.Millisecond},
		{2, 0, 100 * time.Millisecond, 200 * time.Millisecond},
		{3, 0, 200 * time.Millisecond, 400 * time.Millisecond},
		{6, 0, time.Second, 2 * time.Second},
		{60, 0, time.Second, 2 * time.Second},
		{1, 700 * time.Millisecond, 700 * time.Millisecond, 700 * time.Millisecond},
		{1, time.Hour, maxDelay, maxDelay},
	}
	for _, tt := range tests {
		for range 50 {
			got := backoff(tt.attempt, base, maxDelay, tt.serverAsked)
			if got < tt.low || got > tt.high {
				t.Fatalf("backoff(%d, asked %v) = %v, want within [%v, %v]", tt.attempt, tt.serverAsked, got, tt.low, tt.high)
			}
		}
	}
}
