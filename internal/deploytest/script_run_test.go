package deploytest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeCollect stands in for the collect binary: it records its arguments and
// writes a small bundle into --output, or exits 2 without one.
const fakeCollect = `#!/bin/bash
printf '%s\n' "$@" > "$FAKE_COLLECT_ARGS"
out=
while (($#)); do
  case $1 in --output) out=$2; shift ;; esac
  shift
done
case ${FAKE_COLLECT_MODE:-bundle} in
  bundle) printf 'bundle bytes\n' > "$out/` + bundleName + `" ;;
  none) exit 2 ;;
  hang) exec sleep 120 ;;
esac
`

const (
	bundleName     = "eks_i-0123456789abcdef0_2026-03-04_0506-UTC_nodetriage.tar.gz"
	bundleContents = "bundle bytes\n"
	imdsInstanceID = "i-0fedcba9876543210"
)

// fakeAWS stands in for the AWS CLI: "aws s3 cp SRC DST" copies between a
// local folder, laid out as bucket/key, and the node's files.
const fakeAWS = `#!/bin/bash
set -euo pipefail
[[ $1 == s3 && $2 == cp ]] || { echo "aws stand-in: unsupported: $*" >&2; exit 2; }
shift 2
paths=()
for a in "$@"; do [[ $a == --* ]] || paths+=("$a"); done
src=${paths[0]} dst=${paths[1]}
printf '%s' "${AWS_DEFAULT_REGION:-}" > "$FAKE_S3_ROOT.region"
if [[ -n ${FAKE_S3_FAIL:-} ]]; then echo "upload failed: AccessDenied" >&2; exit 1; fi
if [[ $src == s3://* ]]; then
  cp "$FAKE_S3_ROOT/${src#s3://}" "$dst"
else
  mkdir -p "$(dirname "$FAKE_S3_ROOT/${dst#s3://}")"
  cp "$src" "$FAKE_S3_ROOT/${dst#s3://}"
fi
`

// node is one simulated EKS node and the services around it, all on
// 127.0.0.1: an HTTPS release server that also takes presigned PUTs, an
// IMDSv2 endpoint and a folder standing in for S3.
type node struct {
	dir, bin, s3, tmp, keep string
	collectSHA, tarballSHA  string
	env                     []string
	https                   *httptest.Server
	put                     *putRecorder
}

// putRecorder answers presigned PUTs with the scripted statuses, then 200,
// and keeps the last body it accepted.
type putRecorder struct {
	mu       sync.Mutex
	statuses []int
	attempts int
	stored   []byte
}

func (p *putRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.attempts++
	if p.attempts <= len(p.statuses) {
		w.WriteHeader(p.statuses[p.attempts-1])
		return
	}
	p.stored = body
}

func requireTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed; the script needs it on a node", tool)
		}
	}
}

func newNode(t *testing.T, putStatuses []int, imdsUp bool) *node {
	t.Helper()
	n := &node{dir: t.TempDir(), put: &putRecorder{statuses: putStatuses}}
	n.bin, n.s3, n.tmp, n.keep = filepath.Join(n.dir, "bin"), filepath.Join(n.dir, "s3"), filepath.Join(n.dir, "tmp"), filepath.Join(n.dir, "keep")
	for _, d := range []string{n.bin, n.s3, n.tmp, n.keep, filepath.Join(n.s3, "tools")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeExecutable(t, filepath.Join(n.bin, "aws"), fakeAWS)

	tarball := releaseTarball(t, []byte(fakeCollect))
	n.collectSHA, n.tarballSHA = sha256Hex([]byte(fakeCollect)), sha256Hex(tarball)
	if err := os.WriteFile(filepath.Join(n.s3, "tools", "nodetriage.tar.gz"), tarball, 0o644); err != nil {
		t.Fatal(err)
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /dl/collect", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, fakeCollect) })
	mux.HandleFunc("GET /dl/nodetriage.tar.gz", func(w http.ResponseWriter, r *http.Request) { w.Write(tarball) })
	mux.Handle("PUT /put/", n.put)
	n.https = httptest.NewUnstartedServer(mux)
	n.https.Config.ErrorLog = log.New(io.Discard, "", 0)
	n.https.StartTLS()
	t.Cleanup(n.https.Close)
	caFile := filepath.Join(n.dir, "ca.pem")
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: n.https.Certificate().Raw})
	if err := os.WriteFile(caFile, ca, 0o644); err != nil {
		t.Fatal(err)
	}

	imds := httptest.NewServer(imdsHandler())
	t.Cleanup(imds.Close)
	imdsURL := imds.URL
	if !imdsUp {
		imds.Close() // nothing listens there any more
	}

	n.env = []string{
		"PATH=" + n.bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + n.dir,
		"TMPDIR=" + n.tmp,
		"CURL_CA_BUNDLE=" + caFile,
		"NODETRIAGE_IMDS_ENDPOINT=" + imdsURL,
		"NODETRIAGE_KEEP_DIR=" + n.keep,
		"FAKE_COLLECT_ARGS=" + filepath.Join(n.dir, "collect-args"),
		"FAKE_S3_ROOT=" + n.s3,
	}
	return n
}

// imdsHandler answers like IMDSv2: a token for a PUT, metadata only with it.
func imdsHandler() http.Handler {
	const token = "session-token"
	values := map[string]string{"instance-id": imdsInstanceID, "placement/region": "us-west-2"}
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /latest/api/token", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-aws-ec2-metadata-token-ttl-seconds") == "" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		io.WriteString(w, token)
	})
	mux.HandleFunc("GET /latest/meta-data/{path...}", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-aws-ec2-metadata-token") != token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		v, ok := values[r.PathValue("path")]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		io.WriteString(w, v)
	})
	return mux
}

func writeExecutable(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

// releaseTarball lays collect out as scripts/release.sh does.
func releaseTarball(t *testing.T, collect []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	files := []struct {
		name string
		data []byte
	}{
		{"nodetriage_v1.0.0_linux_amd64/README.txt", []byte("collect and analyze\n")},
		{"nodetriage_v1.0.0_linux_amd64/analyze", []byte("not collect\n")},
		{"nodetriage_v1.0.0_linux_amd64/collect", collect},
	}
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o755, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

type runResult struct {
	exitCode       int
	stdout, stderr string
}

func (r runResult) lastLine() string {
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	return lines[len(lines)-1]
}

// run executes the document's script on the simulated node. A new agent gets
// the parameters as SSM_<Name> variables; an old one gets them pasted into
// the text.
func (n *node) run(t *testing.T, params map[string]string, newAgent bool, extraEnv ...string) runResult {
	t.Helper()
	script := documentScript(t)
	env := append(append([]string{}, n.env...), extraEnv...)
	if newAgent {
		for name, v := range params {
			env = append(env, "SSM_"+name+"="+v)
		}
		script = substitute(t, script, map[string]string{
			"BinaryUrl": "unused", "BinarySha256": "unused", "Bucket": "unused", "Prefix": "unused",
			"Since": "unused", "MaxSize": "unused", "Timeout": "unused", "PresignedUrl": "unused",
		})
	} else {
		script = substitute(t, script, params)
	}
	path := filepath.Join(n.dir, "_script.sh")
	writeExecutable(t, path, script)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", path)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := runResult{stdout: stdout.String(), stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		res.exitCode = exitErr.ExitCode()
	case err != nil:
		t.Fatalf("running the script: %v", err)
	}
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", res.exitCode, res.stdout, res.stderr)
	return res
}

func (n *node) params(overrides map[string]string) map[string]string {
	p := map[string]string{
		"BinaryUrl":    n.https.URL + "/dl/collect",
		"BinarySha256": n.collectSHA,
		"Bucket":       "team-bundles",
		"Prefix":       "nodetriage/",
		"Since":        "48h",
		"MaxSize":      "5MiB",
		"Timeout":      "60",
		"PresignedUrl": "",
	}
	for k, v := range overrides {
		p[k] = v
	}
	return p
}

func readIfExists(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(b)
}

func TestSSMScriptOnASimulatedNode(t *testing.T) {
	requireTools(t, "bash", "curl", "timeout", "sha256sum", "tar", "find", "mktemp")

	tests := []struct {
		name        string
		putStatuses []int
		imdsUp      bool
		newAgent    bool
		params      func(n *node) map[string]string
		env         []string
		wantExit0   bool
		wantLast    func(n *node) string
		wantStderr  string
		check       func(t *testing.T, n *node, res runResult)
	}{
		{
			name: "https binary, upload with the AWS CLI", imdsUp: true, newAgent: true,
			params:    func(n *node) map[string]string { return n.params(map[string]string{"Prefix": "incidents/42"}) },
			wantExit0: true,
			wantLast: func(n *node) string {
				return "s3://team-bundles/incidents/42/" + imdsInstanceID + "/" + bundleName
			},
			check: func(t *testing.T, n *node, res runResult) {
				got := readIfExists(filepath.Join(n.s3, "team-bundles/incidents/42", imdsInstanceID, bundleName))
				if got != bundleContents {
					t.Errorf("object in S3 = %q, want the bundle", got)
				}
				if region := readIfExists(n.s3 + ".region"); region != "us-west-2" {
					t.Errorf("AWS_DEFAULT_REGION for the upload = %q, want the region from IMDS", region)
				}
				args := strings.Fields(readIfExists(filepath.Join(n.dir, "collect-args")))
				for _, want := range [][]string{{"--since", "48h"}, {"--max-size", "5MiB"}, {"--quiet"}} {
					i := indexOf(args, want[0])
					if i < 0 || (len(want) == 2 && (i+1 >= len(args) || args[i+1] != want[1])) {
						t.Errorf("collect arguments %q lack %q", args, want)
					}
				}
			},
		},
		{
			name: "old agent, tarball from s3, presigned upload retried after a 503", imdsUp: true,
			putStatuses: []int{http.StatusServiceUnavailable},
			params: func(n *node) map[string]string {
				return n.params(map[string]string{
					"BinaryUrl":    "s3://tools/nodetriage.tar.gz",
					"BinarySha256": n.tarballSHA,
					"Bucket":       "",
					"PresignedUrl": n.https.URL + "/put/b.tar.gz?X-Amz-Expires=900&X-Amz-Signature=0badc0ffee",
				})
			},
			wantExit0: true,
			wantLast: func(n *node) string {
				return "uploaded " + bundleName + " to presigned URL on " + strings.TrimPrefix(n.https.URL, "https://")
			},
			check: func(t *testing.T, n *node, res runResult) {
				if string(n.put.stored) != bundleContents || n.put.attempts != 2 {
					t.Errorf("presigned PUT: %d attempts, stored %q; want 2 attempts and the bundle", n.put.attempts, n.put.stored)
				}
				if strings.Contains(res.stdout+res.stderr, "0badc0ffee") {
					t.Error("the output repeats the presigned URL's signature")
				}
			},
		},
		{
			name: "checksum mismatch is refused", imdsUp: true, newAgent: true,
			params: func(n *node) map[string]string {
				return n.params(map[string]string{"BinarySha256": strings.Repeat("0", 64)})
			},
			wantStderr: "SHA-256 mismatch",
			check: func(t *testing.T, n *node, res runResult) {
				if _, err := os.Stat(filepath.Join(n.dir, "collect-args")); err == nil {
					t.Error("collect ran although its checksum did not match")
				}
				if _, err := os.Stat(filepath.Join(n.s3, "team-bundles")); err == nil {
					t.Error("something was uploaded")
				}
			},
		},
		{
			name: "no bundle written", imdsUp: true, newAgent: true,
			params:     func(n *node) map[string]string { return n.params(nil) },
			env:        []string{"FAKE_COLLECT_MODE=none"},
			wantStderr: "expected one bundle in the output folder, found 0",
			check: func(t *testing.T, n *node, res runResult) {
				if !strings.Contains(res.stdout, "collect exited with status 2") {
					t.Error("the output does not report collect's exit status")
				}
			},
		},
		{
			name: "refused presigned upload keeps the bundle on the node", imdsUp: true, newAgent: true,
			putStatuses: []int{http.StatusForbidden},
			params: func(n *node) map[string]string {
				return n.params(map[string]string{"Bucket": "", "PresignedUrl": n.https.URL + "/put/b.tar.gz?X-Amz-Signature=1"})
			},
			wantStderr: "upload to the presigned URL failed",
			check: func(t *testing.T, n *node, res runResult) {
				if got := readIfExists(filepath.Join(n.keep, bundleName)); got != bundleContents {
					t.Errorf("kept bundle = %q, want the bundle", got)
				}
				if n.put.attempts != 1 {
					t.Errorf("%d PUT attempts after a 403, want 1", n.put.attempts)
				}
			},
		},
		{
			name: "redirect from the presigned URL is a failure", imdsUp: true, newAgent: true,
			putStatuses: []int{http.StatusTemporaryRedirect},
			params: func(n *node) map[string]string {
				return n.params(map[string]string{"Bucket": "", "PresignedUrl": n.https.URL + "/put/b.tar.gz?X-Amz-Signature=1"})
			},
			wantStderr: "answered HTTP 307",
			check: func(t *testing.T, n *node, res runResult) {
				if got := readIfExists(filepath.Join(n.keep, bundleName)); got != bundleContents {
					t.Errorf("kept bundle = %q, want the bundle", got)
				}
			},
		},
		{
			name: "failed S3 upload keeps the bundle on the node", imdsUp: true, newAgent: true,
			params:     func(n *node) map[string]string { return n.params(nil) },
			env:        []string{"FAKE_S3_FAIL=1"},
			wantStderr: "upload to s3://team-bundles/nodetriage/" + imdsInstanceID + "/" + bundleName + " failed",
			check: func(t *testing.T, n *node, res runResult) {
				if got := readIfExists(filepath.Join(n.keep, bundleName)); got != bundleContents {
					t.Errorf("kept bundle = %q, want the bundle", got)
				}
			},
		},
		{
			name: "IMDS unreachable: instance id from the bundle name", newAgent: true,
			params:    func(n *node) map[string]string { return n.params(nil) },
			wantExit0: true,
			wantLast: func(n *node) string {
				return "s3://team-bundles/nodetriage/i-0123456789abcdef0/" + bundleName
			},
		},
		{
			name: "download from a server with an untrusted certificate refused", imdsUp: true, newAgent: true,
			params:     func(n *node) map[string]string { return n.params(nil) },
			env:        []string{"CURL_CA_BUNDLE=" + unrelatedCA(t)},
			wantStderr: "curl: (60)",
			check: func(t *testing.T, n *node, res runResult) {
				if !strings.Contains(res.stderr, "could not download") {
					t.Error("stderr does not say the download failed")
				}
				if _, err := os.Stat(filepath.Join(n.dir, "collect-args")); err == nil {
					t.Error("collect ran although its download should have failed")
				}
			},
		},
		{
			name: "collect stopped at the time limit", imdsUp: true, newAgent: true,
			params:     func(n *node) map[string]string { return n.params(map[string]string{"Timeout": "1"}) },
			env:        []string{"FAKE_COLLECT_MODE=hang"},
			wantStderr: "found 0",
			check: func(t *testing.T, n *node, res runResult) {
				if !strings.Contains(res.stdout, "collect was stopped after 1s") {
					t.Error("the output does not say collect hit the time limit")
				}
			},
		},
		{
			name: "plain http download refused", imdsUp: true, newAgent: true,
			params: func(n *node) map[string]string {
				return n.params(map[string]string{"BinaryUrl": "http://127.0.0.1:1/collect"})
			},
			wantStderr: "BinaryUrl must start with s3:// or https://",
		},
		{
			name: "nowhere to upload", imdsUp: true, newAgent: true,
			params:     func(n *node) map[string]string { return n.params(map[string]string{"Bucket": ""}) },
			wantStderr: "set Bucket",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := newNode(t, tt.putStatuses, tt.imdsUp)
			res := n.run(t, tt.params(n), tt.newAgent, tt.env...)
			if (res.exitCode == 0) != tt.wantExit0 {
				t.Fatalf("exit code %d, want success = %v", res.exitCode, tt.wantExit0)
			}
			if tt.wantLast != nil {
				if got, want := res.lastLine(), tt.wantLast(n); got != want {
					t.Errorf("last line = %q, want %q", got, want)
				}
			}
			if !strings.Contains(res.stderr, tt.wantStderr) {
				t.Errorf("stderr lacks %q", tt.wantStderr)
			}
			if left, _ := os.ReadDir(n.tmp); len(left) != 0 {
				t.Errorf("work folder not cleaned up: %d entries left in TMPDIR", len(left))
			}
			if tt.check != nil {
				tt.check(t, n, res)
			}
		})
	}
}

// unrelatedCA writes a freshly made CA certificate that did not sign the test
// server's certificate, so curl trusting only it must refuse the server.
func unrelatedCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "unrelated test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "unrelated-ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}
