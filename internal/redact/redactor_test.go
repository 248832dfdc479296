package redact

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// streamDoc mixes a private key block, a certificate that must survive and
// single-line secrets.
const streamDoc = "boot ok\n" +
	"-----BEGIN RSA PRIVATE KEY-----\n" +
	fakeRSAKeyBody + "\n" +
	"Proc-Type: 4,ENCRYPTED\n" +
	fakeRSAKeyBody + "\n" +
	"-----END RSA PRIVATE KEY-----\n" +
	"-----BEGIN CERTIFICATE-----\n" +
	"MIIDBTCCAe2gAwIBAgIIQ4gq1RYtBPcwDQYJKoZIhvcNAQELBQAwFTETMBEGA1UE\n" +
	"-----END CERTIFICATE-----\n" +
	"DB_PASSWORD=hunter2\n" +
	"aws_access_key_id = " + fakeAccessKeyID + "\n" +
	"aws_secret_access_key = " + fakeSecretKey + "\n" +
	"Authorization: Bearer " + fakeJWT + "\n" +
	"last line without newline " + fakeGitHub

var streamDocWant = "boot ok\n" +
	Marker(RulePrivateKey) + "\n" +
	"-----BEGIN CERTIFICATE-----\n" +
	"MIIDBTCCAe2gAwIBAgIIQ4gq1RYtBPcwDQYJKoZIhvcNAQELBQAwFTETMBEGA1UE\n" +
	"-----END CERTIFICATE-----\n" +
	"DB_PASSWORD=" + Marker(RulePasswordAssignment) + "\n" +
	"aws_access_key_id = " + Marker(RuleAWSAccessKeyID) + "\n" +
	"aws_secret_access_key = " + Marker(RuleAWSSecretKey) + "\n" +
	"Authorization: Bearer " + Marker(RuleAuthorizationHeader) + "\n" +
	"last line without newline " + Marker(RuleGitHubToken)

var streamDocCounts = map[string]int{
	RulePrivateKey: 1, RulePasswordAssignment: 1, RuleAWSAccessKeyID: 1,
	RuleAWSSecretKey: 1, RuleAuthorizationHeader: 1, RuleGitHubToken: 1,
}

// secretsIn lists secret values of streamDoc that must never appear.
var streamDocSecrets = []string{fakeRSAKeyBody, "hunter2", fakeAccessKeyID, fakeSecretKey, fakeJWT, fakeGitHub, "ENCRYPTED"}

func redactInPieces(t *testing.T, r *Redactor, in string, sizes func(i int) int) (string, map[string]int) {
	t.Helper()
	var out bytes.Buffer
	w := r.NewWriter(&out)
	for i := 0; len(in) > 0; i++ {
		n := min(max(sizes(i), 1), len(in))
		if k, err := w.Write([]byte(in[:n])); err != nil || k != n {
			t.Fatalf("Write = %d, %v", k, err)
		}
		in = in[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String(), w.Counts()
}

func TestStreamingWritePatterns(t *testing.T) {
	r := New(DefaultRules())
	patterns := map[string]func(int) int{
		"one write":    func(int) int { return len(streamDoc) },
		"byte by byte": func(int) int { return 1 },
		"3 bytes":      func(int) int { return 3 },
		"uneven":       func(i int) int { return 1 + (i*7)%13 },
	}
	for name, sizes := range patterns {
		t.Run(name, func(t *testing.T) {
			got, counts := redactInPieces(t, r, streamDoc, sizes)
			if got != streamDocWant {
				t.Fatalf("got:\n%s\nwant:\n%s", got, streamDocWant)
			}
			if !maps.Equal(counts, streamDocCounts) {
				t.Fatalf("counts = %v, want %v", counts, streamDocCounts)
			}
		})
	}
}

func TestStreamingEverySplitPoint(t *testing.T) {
	r := New(DefaultRules())
	for cut := 1; cut < len(streamDoc); cut++ {
		got, _ := redactInPieces(t, r, streamDoc, func(i int) int {
			if i == 0 {
				return cut
			}
			return len(streamDoc)
		})
		if got != streamDocWant {
			t.Fatalf("split at %d:\n%s", cut, got)
		}
	}
}

func TestIdempotent(t *testing.T) {
	r := New(DefaultRules())
	clean, err := os.ReadFile("testdata/clean-node-logs.txt")
	if err != nil {
		t.Fatal(err)
	}
	inputs := []string{streamDoc, string(clean), secretCorpus()}
	for i, in := range inputs {
		once, _ := r.Bytes([]byte(in))
		twice, counts := r.Bytes(once)
		if !bytes.Equal(once, twice) {
			t.Errorf("input %d: second pass changed the text (%v):\n%s\n---\n%s", i, counts, once, twice)
		}
		if len(counts) != 0 {
			t.Errorf("input %d: second pass counted %v", i, counts)
		}
	}
}

// secretCorpus joins every positive case of the default rule table.
func secretCorpus() string {
	var b strings.Builder
	for _, s := range plantedSecrets {
		b.WriteString(s.text)
		b.WriteByte('\n')
	}
	b.WriteString(streamDoc)
	return b.String()
}

func TestCleanLogsPassThrough(t *testing.T) {
	clean, err := os.ReadFile("testdata/clean-node-logs.txt")
	if err != nil {
		t.Fatal(err)
	}
	r := New(DefaultRules())
	got, counts := r.Bytes(clean)
	if !bytes.Equal(got, clean) {
		t.Fatalf("clean text changed (%v):\n%s", counts, got)
	}
	byByte, _ := redactInPieces(t, r, string(clean), func(int) int { return 1 })
	if byByte != string(clean) {
		t.Fatal("clean text changed when written byte by byte")
	}
}

func TestInvalidUTF8AndBinaryPassThrough(t *testing.T) {
	var in []byte
	for i := range 4096 {
		c := byte(i*37 + i/256)
		if c == '\n' || c == '.' { // keep bootstrap-token shapes away
			c = 0xff
		}
		in = append(in, c)
	}
	in = append(in, "\xff\xfe password=\xc3\x28hunter2 \xff\n"...)
	got, _ := New(DefaultRules()).Bytes(in)
	want := append(bytes.Clone(in[:4096]), "\xff\xfe password="+Marker(RulePasswordAssignment)+" \xff\n"...)
	if !bytes.Equal(got, want) {
		t.Fatalf("got %q", got[4090:])
	}
}

func TestCounts(t *testing.T) {
	in := strings.Repeat("id "+fakeAccessKeyID+" and "+fakeTempKeyID+"\n", 3) +
		"password=a\npassword=b\n" +
		"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n" +
		"x -----BEGIN EC PRIVATE KEY-----\\nAAAA\\n-----END EC PRIVATE KEY----- y\n"
	_, counts := New(DefaultRules()).Bytes([]byte(in))
	want := map[string]int{RuleAWSAccessKeyID: 6, RulePasswordAssignment: 2, RulePrivateKey: 2}
	if !maps.Equal(counts, want) {
		t.Fatalf("counts = %v, want %v", counts, want)
	}
	for rule := range counts {
		if strings.Contains(rule, "hunter") || strings.Contains(rule, "AKIA") {
			t.Fatalf("count key leaks a value: %q", rule)
		}
	}
}

func TestUnterminatedKeyBlock(t *testing.T) {
	body := strings.Repeat(fakeRSAKeyBody+"\n", maxKeyLines)
	cases := []struct {
		name, in, want string
	}{
		{
			name: "ends after the line limit",
			in:   "a\n-----BEGIN RSA PRIVATE KEY-----\n" + body + "after the block\n",
			want: "a\n" + Marker(RulePrivateKey) + "\nafter the block\n",
		},
		{
			name: "eof inside block",
			in:   "a\n-----BEGIN RSA PRIVATE KEY-----\n" + fakeRSAKeyBody + "\n" + fakeRSAKeyBody,
			want: "a\n" + Marker(RulePrivateKey) + "\n",
		},
		{
			name: "new key restarts the limit",
			in: "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("x\n", maxKeyLines-1) +
				"-----BEGIN EC PRIVATE KEY-----\n" + strings.Repeat(fakeRSAKeyBody+"\n", 10) + "-----END EC PRIVATE KEY-----\nok\n",
			want: Marker(RulePrivateKey) + "\nok\n",
		},
		{
			name: "begin without newline at eof",
			in:   "tail -----BEGIN PRIVATE KEY-----",
			want: "tail " + Marker(RulePrivateKey),
		},
	}
	r := New(DefaultRules())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := r.Bytes([]byte(tc.in))
			if string(got) != tc.want {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestLongLineChunkBorders plants secrets at every offset around the piece
// borders of a line much longer than a (small) window.
func TestLongLineChunkBorders(t *testing.T) {
	r := New(DefaultRules())
	r.window, r.overlap = 4096, 512
	secrets := []string{
		"password=" + fakeSecretKey,
		fakeAccessKeyID,
		fakeJWT,
		"-----BEGIN RSA PRIVATE KEY-----\\n" + fakeRSAKeyBody + "\\n-----END RSA PRIVATE KEY-----",
		"https://user:" + "s3cr3tpw" + "@host",
	}
	cores := []string{fakeSecretKey, fakeAccessKeyID, fakeJWT, fakeRSAKeyBody, "s3cr3tpw"}
	for si, secret := range secrets {
		for offset := r.window - r.overlap - 200; offset < r.window+50; offset += 7 {
			filler := strings.Repeat("abcdefgh ", 3*r.window/9)
			line := filler[:offset] + " " + secret + " " + filler[offset:] + filler
			got, counts := redactInPieces(t, r, line+"\n", func(i int) int { return 1000 + i%3 })
			if strings.Contains(got, cores[si]) {
				t.Fatalf("secret %d at offset %d survived (counts %v)", si, offset, counts)
			}
			if len(counts) == 0 {
				t.Fatalf("secret %d at offset %d not counted", si, offset)
			}
		}
	}
}

func TestLongLineKeyBlockAcrossPieces(t *testing.T) {
	r := New(DefaultRules())
	r.window, r.overlap = 4096, 512
	body := strings.Repeat("QUJD", 5000) // 20000 bytes of base64 on one line
	in := "head -----BEGIN PRIVATE KEY-----" + body + "\n" + body + "\n-----END PRIVATE KEY----- tail\nnext\n"
	got, counts := redactInPieces(t, r, in, func(int) int { return 777 })
	if strings.Contains(got, "QUJD") || counts[RulePrivateKey] != 1 {
		t.Fatalf("got %q, counts %v", got, counts)
	}
	if !strings.HasPrefix(got, "head "+Marker(RulePrivateKey)) || !strings.HasSuffix(got, " tail\nnext\n") {
		t.Fatalf("got %q", got)
	}
}

// needleWriter counts bytes and needle occurrences in a stream without
// keeping it.
type needleWriter struct {
	n       int64
	tail    []byte
	needles []string
	found   map[string]int
}

func (w *needleWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	keep := 0
	for _, nd := range w.needles {
		keep = max(keep, len(nd)-1)
	}
	buf := append(w.tail, p...)
	for _, nd := range w.needles {
		// Count only matches that end inside p, so none is counted twice.
		for off := 0; ; {
			i := bytes.Index(buf[off:], []byte(nd))
			if i < 0 {
				break
			}
			if off+i+len(nd) > len(w.tail) {
				w.found[nd]++
			}
			off += i + 1
		}
	}
	w.tail = append(w.tail[:0], buf[max(len(buf)-keep, 0):]...)
	return len(p), nil
}

// lineSource generates size bytes of log text with a planted secret every
// plantEvery bytes; with newlines false it is one huge line.
type lineSource struct {
	remaining  int
	newlines   bool
	plantEvery int
	written    int
	planted    int
}

func (s *lineSource) Read(p []byte) (int, error) {
	if s.remaining <= 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && s.remaining > 0 {
		var piece string
		if s.written/s.plantEvery > s.planted {
			piece = " password=" + fakeSecretKey + " " + fakeAccessKeyID + " "
			s.planted++
		} else if s.newlines {
			piece = fmt.Sprintf("I0606 19:33:%02d.000000 3214 kubelet.go:%d] \"SyncLoop (PLEG)\" pod=\"kube-system/aws-node-7xk2p\" event=started\n", s.written%60, s.written%3000)
		} else {
			piece = "filler text without anything of interest "
		}
		if len(piece) > len(p)-n || len(piece) > s.remaining {
			if n > 0 {
				break
			}
			piece = piece[:min(len(p), s.remaining)]
		}
		copy(p[n:], piece)
		n += len(piece)
		s.written += len(piece)
		s.remaining -= len(piece)
	}
	return n, nil
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestMemoryBounded pushes 50 MiB through a Writer, as many lines and as
// one line without a newline, and checks the live heap stays far below the
// input size.
func TestMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MiB streams")
	}
	const size = 50 << 20
	const bound = 64 << 20
	for _, newlines := range []bool{true, false} {
		t.Run(fmt.Sprintf("newlines=%v", newlines), func(t *testing.T) {
			src := &lineSource{remaining: size, newlines: newlines, plantEvery: 3 << 20}
			dst := &needleWriter{needles: []string{fakeSecretKey, fakeAccessKeyID}, found: map[string]int{}}
			w := New(DefaultRules()).NewWriter(dst)
			base := heapInUse()
			var peak uint64
			buf := make([]byte, 256<<10)
			for read := 0; ; {
				n, err := src.Read(buf)
				if n > 0 {
					if _, werr := w.Write(buf[:n]); werr != nil {
						t.Fatal(werr)
					}
					read += n
					if read%(8<<20) < n {
						peak = max(peak, heapInUse())
					}
					if cap(w.pending) > defaultWindow {
						t.Fatalf("pending buffer grew to %d", cap(w.pending))
					}
				}
				if err == io.EOF {
					break
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			peak = max(peak, heapInUse())
			if peak > base && peak-base > bound {
				t.Fatalf("heap grew by %d MiB", (peak-base)>>20)
			}
			if len(dst.found) != 0 {
				t.Fatalf("secrets survived: %v", dst.found)
			}
			counts := w.Counts()
			if counts[RuleAWSAccessKeyID] != src.planted || counts[RulePasswordAssignment] != src.planted {
				t.Fatalf("counts %v, planted %d", counts, src.planted)
			}
			t.Logf("%d MiB in, heap growth %d KiB, %d planted", size>>20, (peak-min(peak, base))>>10, src.planted)
		})
	}
}

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

func TestWriterErrorsAndClose(t *testing.T) {
	boom := errors.New("disk full")
	w := New(DefaultRules()).NewWriter(failingWriter{boom})
	big := bytes.Repeat([]byte("line of text\n"), 2*flushSize/13)
	if _, err := w.Write(big); !errors.Is(err, boom) {
		t.Fatalf("Write error = %v, want %v", err, boom)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, boom) {
		t.Fatalf("later Write error = %v", err)
	}
	if err := w.Close(); !errors.Is(err, boom) {
		t.Fatalf("Close error = %v", err)
	}

	var out bytes.Buffer
	w = New(DefaultRules()).NewWriter(&out)
	_, _ = w.Write([]byte("password=x"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	if _, err := w.Write([]byte("more")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Write after Close = %v", err)
	}
	if out.String() != "password="+Marker(RulePasswordAssignment) {
		t.Fatalf("got %q", out.String())
	}
}

func TestConcurrentWriters(t *testing.T) {
	r := New(DefaultRules())
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out bytes.Buffer
			w := r.NewWriter(&out)
			for j := 0; j < len(streamDoc); j += 1 + i {
				_, _ = w.Write([]byte(streamDoc[j:min(j+1+i, len(streamDoc))]))
			}
			_ = w.Close()
			if out.String() != streamDocWant || !maps.Equal(w.Counts(), streamDocCounts) {
				errs <- fmt.Errorf("writer %d: wrong output or counts %v", i, w.Counts())
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestUserRulesWithDefaults(t *testing.T) {
	user, err := NewRule("customer-id", `cust-(?P<secret>[0-9]{6})`)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := NewRule("internal-host", `[a-z0-9]+\.corp\.example`)
	if err != nil {
		t.Fatal(err)
	}
	r := New(append(DefaultRules(), user, whole))
	got, counts := r.Bytes([]byte("cust-123456 on db1.corp.example password=x\n"))
	want := "cust-" + Marker("customer-id") + " on " + Marker("internal-host") + " password=" + Marker(RulePasswordAssignment) + "\n"
	if string(got) != want {
		t.Fatalf("got %q", got)
	}
	if counts["customer-id"] != 1 || counts["internal-host"] != 1 {
		t.Fatalf("counts %v", counts)
	}
	names := r.RuleNames()
	if names[0] != RulePrivateKey || names[len(names)-1] != "internal-host" {
		t.Fatalf("RuleNames = %v", names)
	}
	// A greedy user rule must not eat markers: redacting again is stable.
	greedy, _ := NewRule("greedy", `[A-Za-z:\[\]-]{4,}`)
	r = New(append(DefaultRules(), greedy))
	once, _ := r.Bytes([]byte("token=" + fakeJWT + " and words\n"))
	twice, _ := r.Bytes(once)
	if !bytes.Equal(once, twice) || !bytes.Contains(once, []byte(Marker(RuleJWT))) {
		t.Fatalf("once %q twice %q", once, twice)
	}
}

func TestWithoutKeyRule(t *testing.T) {
	user, _ := NewRule("word", `secretword`)
	got, _ := New([]Rule{user}).Bytes([]byte("-----BEGIN PRIVATE KEY-----\nsecretword\n-----END PRIVATE KEY-----\n"))
	want := "-----BEGIN PRIVATE KEY-----\n" + Marker("word") + "\n-----END PRIVATE KEY-----\n"
	if string(got) != want {
		t.Fatalf("got %q", got)
	}
}

// journalLines are typical node log lines; a few mention tokens, keys or
// URLs without holding a secret, as real logs do.
var journalLines = []string{
	`Jun 06 19:33:04 ip-10-150-127-198 kubelet[3214]: I0606 19:33:04.000001    3214 kubelet.go:2455] "SyncLoop (PLEG): event for pod" pod="kube-system/aws-node-7xk2p" event={"ID":"8c2d7c1e-3b7a-4d1e-9f1e-2b3c4d5e6f70","Type":"ContainerStarted","Data":"a1b2c3d4e5f67890a1b2c3d4e5f67890a1b2c3d4e5f67890a1b2c3d4e5f67890"}`,
	`Jun 06 19:33:04 ip-10-150-127-198 kubelet[3214]: I0606 19:33:04.100000    3214 reconciler_common.go:258] "operationExecutor.VerifyControllerAttachedVolume started for volume \"kube-api-access-x2x4z\" (UniqueName: \"kubernetes.io/projected/8c2d7c1e-kube-api-access-x2x4z\") pod \"aws-node-7xk2p\""`,
	`Jun 06 19:33:05 ip-10-150-127-198 containerd[2901]: time="2024-06-06T19:33:05.123456789Z" level=info msg="CreateContainer within sandbox \"0f3b1c2d4e5f\" for container &ContainerMetadata{Name:aws-node,Attempt:0,}"`,
	`Jun 06 19:33:05 ip-10-150-127-198 containerd[2901]: time="2024-06-06T19:33:05.223456789Z" level=info msg="PullImage \"602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.18.1-eksbuild.1\""`,
	`Jun 06 19:33:06 ip-10-150-127-198 kernel: IPv6: ADDRCONF(NETDEV_CHANGE): eni8a3b2c1d0e9: link becomes ready`,
	`Jun 06 19:33:06 ip-10-150-127-198 systemd[1]: Started cri-containerd-a1b2c3d4e5f67890a1b2c3d4e5f67890a1b2c3d4e5f67890a1b2c3d4e5f67890.scope - libcontainer container a1b2c3d4e5f6.`,
	`{"level":"info","ts":"2024-06-06T19:33:08.000Z","caller":"ipamd/ipamd.go:500","msg":"Added ENI(eni-0a1b2c3d4e5f67890)'s IP 10.150.120.15 to datastore"}`,
	`{"level":"debug","ts":"2024-06-06T19:33:08.100Z","caller":"datastore/data_store.go:700","msg":"AssignPodIPv4Address: Assign IP 10.150.120.16 to sandbox aws-cni/0f3b1c2d4e5f/eth0"}`,
	`Jun 06 19:33:07 ip-10-150-127-198 kubelet[3214]: E0606 19:33:07.400000    3214 nestedpendingoperations.go:348] Operation for volume failed. Error: MountVolume.SetUp failed for volume "aws-iam-token" : failed to fetch token: serviceaccounts "app" is forbidden`,
	`Jun 06 19:33:07 ip-10-150-127-198 kubelet[3214]: I0606 19:33:07.500000    3214 controller.go:42] "Processing item" key="kube-system/coredns-5d78c9869d-abcde"`,
	`Jun 06 19:33:08 ip-10-150-127-198 kubelet[3214]: I0606 19:33:08.000000    3214 request.go:697] Waited for 1.0s due to client-side throttling, request: GET:https://0123456789ABCDEF.gr7.us-west-2.eks.amazonaws.com/api/v1/namespaces/kube-system/pods`,
	`Jun 06 19:33:09 ip-10-150-127-198 kubelet[3214]: I0606 19:33:09.000000    3214 prober.go:107] "Probe failed" probeType="Readiness" pod="default/web-6d4cf56db6-2xk9p" containerName="web" probeResult="failure" output="Get \"http://10.150.120.17:8080/healthz\": dial tcp 10.150.120.17:8080: connect: connection refused"`,
}

func benchmarkCorpus(lines []string, size int) []byte {
	var corpus []byte
	for i := 0; len(corpus) < size; i++ {
		corpus = append(corpus, lines[i%len(lines)]...)
		corpus = append(corpus, '\n')
	}
	return corpus
}

func benchmarkRedactor(b *testing.B, corpus []byte) {
	r := New(DefaultRules())
	b.SetBytes(int64(len(corpus)))
	b.ResetTimer()
	for b.Loop() {
		w := r.NewWriter(io.Discard)
		_, _ = w.Write(corpus)
		_ = w.Close()
	}
}

// BenchmarkWriter measures typical node logs: most lines hold no
// secret-looking word.
func BenchmarkWriter(b *testing.B) {
	benchmarkRedactor(b, benchmarkCorpus(journalLines, 4<<20))
}

// BenchmarkWriterDense measures the look-alike corpus, where nearly every
// line mentions a key, token, certificate or URL.
func BenchmarkWriterDense(b *testing.B) {
	clean, err := os.ReadFile("testdata/clean-node-logs.txt")
	if err != nil {
		b.Fatal(err)
	}
	benchmarkRedactor(b, benchmarkCorpus(strings.Split(string(clean), "\n"), 4<<20))
}
