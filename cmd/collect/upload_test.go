package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestUploadRetriesThenSucceeds runs collect with --upload against a loopback
// server that fails twice, then stores the body: the stored bytes must be
// the bundle.
func TestUploadRetriesThenSucceeds(t *testing.T) {
	var mu sync.Mutex
	attempts := 0
	var stored []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		attempts++
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPut || attempts <= 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		stored = body
	}))
	defer srv.Close()
	root := fakeNode(t)
	code, stdout, stderr := runCollect(t, "--root", root, "--no-imds", "--no-probes", "--output", t.TempDir(),
		"--quiet", "--upload", srv.URL+"/bundle?X-Amz-Signature=secret")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	bundle, err := os.ReadFile(strings.TrimSpace(stdout))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if attempts != 3 || string(stored) != string(bundle) {
		t.Errorf("attempts %d, stored %d bytes, bundle %d bytes", attempts, len(stored), len(bundle))
	}
	if strings.Contains(stderr, "secret") {
		t.Errorf("the URL signature leaked to stderr: %s", stderr)
	}
}

func TestUploadFailureKeepsBundle(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
	}))
	defer srv.Close()
	code, stdout, stderr := runCollect(t, "--root", fakeNode(t), "--no-imds", "--no-probes", "--output", t.TempDir(), "--quiet", "--upload", srv.URL+"/x")
	if code != exitNotUploaded || !strings.Contains(stderr, "not uploaded") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if _, err := os.Stat(strings.TrimSpace(stdout)); err != nil {
		t.Errorf("bundle gone after a failed upload: %v", err)
	}
}
