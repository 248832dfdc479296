package probe

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// serve listens on 127.0.0.1 and hands every connection to handle. It
// returns the port; connections and listener are closed at cleanup.
func serve(t *testing.T, handle func(net.Conn)) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			go handle(conn)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().(*net.TCPAddr).Port
}

func acceptAndClose(conn net.Conn) { conn.Close() }

func neverAnswer(net.Conn) {} // the connection stays open until cleanup

func answerHTTP(conn net.Conn) {
	fmt.Fprint(conn, "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")
	conn.Close()
}

func tlsHandler(cert tls.Certificate) func(net.Conn) {
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	return func(conn net.Conn) {
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		tlsConn := tls.Server(conn, cfg)
		tlsConn.Handshake() // a client that rejects the certificate makes this fail
		tlsConn.Close()
	}
}

func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T, name string) testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue signs a server certificate for names valid until notAfter.
func (ca testCA) issue(t *testing.T, notAfter time.Time, names ...string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    notAfter.Add(-48 * time.Hour),
		NotAfter:     notAfter,
		DNSNames:     names,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// fakeResolver answers from a table and says "no such host" for the rest,
// without any DNS traffic.
type fakeResolver map[string][]string

func (f fakeResolver) LookupHost(_ context.Context, host string) ([]string, error) {
	if addrs, ok := f[host]; ok {
		return addrs, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// loopbackDialer sends made-up addresses to ports on 127.0.0.1 and refuses
// to dial anything else, so no test traffic leaves the machine.
type loopbackDialer struct {
	routes map[string]int // "10.0.0.5:443" → a port on 127.0.0.1
}

func (d loopbackDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	to := address
	if port, ok := d.routes[address]; ok {
		to = fmt.Sprintf("127.0.0.1:%d", port)
	}
	if host, _, _ := net.SplitHostPort(to); host != "127.0.0.1" {
		return nil, fmt.Errorf("test dialer: %s is not on 127.0.0.1", address)
	}
	var dialer net.Dialer
	return dialer.DialContext(ctx, network, to)
}

func TestRun(t *testing.T) {
	ca := newTestCA(t, "cluster-ca")
	otherCA := newTestCA(t, "some-other-ca")
	good := serve(t, tlsHandler(ca.issue(t, time.Now().Add(24*time.Hour), "apiserver.test")))
	expired := serve(t, tlsHandler(ca.issue(t, time.Now().Add(-time.Hour), "apiserver.test")))
	open := serve(t, acceptAndClose)
	silent := serve(t, neverAnswer)
	plainHTTP := serve(t, answerHTTP)
	refused := closedPort(t)

	opt := Options{
		StepTimeout: 300 * time.Millisecond,
		Resolver: fakeResolver{
			"apiserver.test":              {"127.0.0.1"},
			"sts.us-west-2.amazonaws.com": {"10.0.0.5", "54.1.2.3"},
			"empty.test":                  {},
		},
		Dialer: loopbackDialer{routes: map[string]int{
			"10.0.0.5:443": refused,
			"54.1.2.3:443": open,
		}},
	}
	tlsTarget := func(name string, port int, caPEM []byte, serverName string) Target {
		return Target{Name: name, Host: "127.0.0.1", Port: port, TLS: true, CAPEM: caPEM, ServerName: serverName}
	}
	tests := []struct {
		target      Target
		wantVerdict string
		wantTCP     string
		wantTLS     string
		wantClass   string
		wantErrPart string // in the error of the failing step
	}{
		{Target{Name: "open", Host: "127.0.0.1", Port: open}, VerdictOK, StatusOK, StatusSkipped, ClassPrivate, ""},
		{Target{Name: "refused", Host: "127.0.0.1", Port: refused}, VerdictTCP, StatusRefused, StatusSkipped, ClassPrivate, "refused"},
		{Target{Name: "bad port", Host: "127.0.0.1", Port: 0}, VerdictTCP, StatusError, StatusSkipped, ClassPrivate, "invalid port"},
		{tlsTarget("silent", silent, ca.pem, "apiserver.test"), VerdictTLS, StatusOK, StatusTimeout, ClassPrivate, "deadline"},
		{tlsTarget("right ca", good, ca.pem, "apiserver.test"), VerdictOK, StatusOK, StatusOK, ClassPrivate, ""},
		{tlsTarget("wrong ca", good, otherCA.pem, "apiserver.test"), VerdictTLS, StatusOK, StatusX509, ClassPrivate, "unknown authority"},
		{tlsTarget("expired", expired, ca.pem, "apiserver.test"), VerdictTLS, StatusOK, StatusX509, ClassPrivate, "expired"},
		{tlsTarget("wrong name", good, ca.pem, "other.test"), VerdictTLS, StatusOK, StatusX509, ClassPrivate, "other.test"},
		{tlsTarget("no CA in PEM", good, []byte("not a pem"), "apiserver.test"), VerdictTLS, StatusOK, StatusX509, ClassPrivate, "no certificate"},
		{tlsTarget("not TLS", plainHTTP, ca.pem, "apiserver.test"), VerdictTLS, StatusOK, StatusHandshakeError, ClassPrivate, ""},
		{Target{Name: "by name", Host: "apiserver.test", Port: good, TLS: true, CAPEM: ca.pem}, VerdictOK, StatusOK, StatusOK, ClassPrivate, ""},
		{Target{Name: "no such host", Host: "missing.test", Port: 443}, VerdictDNS, StatusSkipped, StatusSkipped, ClassNone, "no such host"},
		{Target{Name: "no addresses", Host: "empty.test", Port: 443}, VerdictDNS, StatusSkipped, StatusSkipped, ClassNone, "no addresses"},
		{Target{Name: "empty host", Port: 443}, VerdictDNS, StatusSkipped, StatusSkipped, ClassNone, "empty host"},
		{Target{Name: "second address answers", Host: "sts.us-west-2.amazonaws.com", Port: 443}, VerdictOK, StatusOK, StatusSkipped, ClassMixed, ""},
	}
	targets := make([]Target, len(tests))
	for i, tt := range tests {
		targets[i] = tt.target
	}
	results := Run(t.Context(), targets, opt)
	if len(results) != len(tests) {
		t.Fatalf("%d results for %d targets", len(results), len(tests))
	}
	for i, tt := range tests {
		r := results[i]
		t.Run(tt.target.Name, func(t *testing.T) {
			if r.Name != tt.target.Name {
				t.Fatalf("result %d is %q, want %q (order)", i, r.Name, tt.target.Name)
			}
			if r.Verdict != tt.wantVerdict || r.TCP != tt.wantTCP || r.TLS != tt.wantTLS || r.AddressClass != tt.wantClass {
				t.Errorf("verdict/tcp/tls/class = %s/%s/%s/%s, want %s/%s/%s/%s (result %+v)",
					r.Verdict, r.TCP, r.TLS, r.AddressClass, tt.wantVerdict, tt.wantTCP, tt.wantTLS, tt.wantClass, r)
			}
			stepErr := map[string]string{VerdictDNS: r.DNSError, VerdictTCP: r.TCPError, VerdictTLS: r.TLSError, VerdictOK: ""}[r.Verdict]
			if tt.wantVerdict != VerdictOK && stepErr == "" {
				t.Errorf("failing step %s has no error text", r.Verdict)
			}
			if !strings.Contains(stepErr, tt.wantErrPart) {
				t.Errorf("error %q does not mention %q", stepErr, tt.wantErrPart)
			}
			if r.Addresses == nil {
				t.Errorf("addresses is nil, want a list")
			}
		})
	}
	if r := results[len(results)-1]; r.Connected != "54.1.2.3" || r.TCPError != "" {
		t.Errorf("multi-address target connected to %q, tcp error %q", r.Connected, r.TCPError)
	}
}

// versionHandler is an API server that answers every request over TLS with
// status and body.
func versionHandler(cert tls.Certificate, status int, body string) func(net.Conn) {
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	return func(conn net.Conn) {
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		tlsConn := tls.Server(conn, cfg)
		defer tlsConn.Close()
		req, err := http.ReadRequest(bufio.NewReader(tlsConn))
		if err != nil {
			return
		}
		if req.URL.Path != "/version" || req.Header.Get("Authorization") != "" {
			status, body = http.StatusTeapot, "unexpected request"
		}
		fmt.Fprintf(tlsConn, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
			status, http.StatusText(status), len(body), body)
	}
}

func TestServerVersion(t *testing.T) {
	ca := newTestCA(t, "cluster-ca")
	cert := ca.issue(t, time.Now().Add(time.Hour), "apiserver.test")
	tests := []struct {
		name        string
		handle      func(net.Conn)
		want        string
		wantErrPart string
	}{
		{"eks answer", versionHandler(cert, http.StatusOK, `{"major":"1","minor":"31","gitVersion":"v1.31.4-eks-2d5f260","platform":"linux/amd64"}`), "v1.31.4-eks-2d5f260", ""},
		{"anonymous forbidden", versionHandler(cert, http.StatusForbidden, `{"kind":"Status","code":403}`), "", "HTTP 403"},
		{"unauthorized", versionHandler(cert, http.StatusUnauthorized, `{}`), "", "HTTP 401"},
		{"not json", versionHandler(cert, http.StatusOK, `ok`), "", "no gitVersion"},
		{"closes after handshake", tlsHandler(cert), "", "GET /version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			port := serve(t, tt.handle)
			target := Target{Name: "apiserver", Host: "127.0.0.1", Port: port, TLS: true, CAPEM: ca.pem,
				ServerName: "apiserver.test", VersionPath: "/version"}
			r := Run(t.Context(), []Target{target}, Options{StepTimeout: time.Second})[0]
			if r.Verdict != VerdictOK {
				t.Fatalf("verdict %s (%+v): a /version answer must not change it", r.Verdict, r)
			}
			if r.ServerVersion != tt.want || !strings.Contains(r.VersionError, tt.wantErrPart) || (tt.want == "") == (r.VersionError == "") {
				t.Errorf("server version %q, error %q; want %q, error with %q", r.ServerVersion, r.VersionError, tt.want, tt.wantErrPart)
			}
		})
	}
}

func TestResultJSON(t *testing.T) {
	port := serve(t, acceptAndClose)
	results := Run(t.Context(), []Target{{Name: "x", Host: "127.0.0.1", Port: port}}, Options{})
	data, err := json.Marshal(results[0])
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(data, &fields); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"name", "host", "port", "addresses", "address_class", "tcp", "connect_ms", "tls", "tls_ms", "verdict"} {
		if _, ok := fields[key]; !ok {
			t.Errorf("JSON %s lacks %q", data, key)
		}
	}
	if fields["verdict"] != VerdictOK || fields["tls"] != StatusSkipped {
		t.Errorf("JSON %s: want verdict ok and tls skipped", data)
	}
}

func TestClassifyAddresses(t *testing.T) {
	tests := []struct {
		addrs []string
		want  string
	}{
		{nil, ClassNone},
		{[]string{"not-an-ip"}, ClassNone},
		{[]string{"10.1.2.3"}, ClassPrivate},
		{[]string{"172.16.0.1", "172.31.255.255"}, ClassPrivate},
		{[]string{"172.32.0.1"}, ClassPublic},
		{[]string{"192.168.1.1"}, ClassPrivate},
		{[]string{"100.64.0.1", "100.127.255.254"}, ClassPrivate},
		{[]string{"100.128.0.1"}, ClassPublic},
		{[]string{"169.254.169.254"}, ClassPrivate},
		{[]string{"127.0.0.1"}, ClassPrivate},
		{[]string{"fd00:ec2::254"}, ClassPrivate},
		{[]string{"fc00::1"}, ClassPrivate},
		{[]string{"fe80::1%eth0"}, ClassPrivate},
		{[]string{"::ffff:10.0.0.1"}, ClassPrivate},
		{[]string{"52.94.1.1"}, ClassPublic},
		{[]string{"2600:1f14::1"}, ClassPublic},
		{[]string{"10.0.0.1", "52.94.1.1"}, ClassMixed},
		{[]string{"bogus", "52.94.1.1"}, ClassPublic},
	}
	for _, tt := range tests {
		if got := ClassifyAddresses(tt.addrs); got != tt.want {
			t.Errorf("ClassifyAddresses(%q) = %s, want %s", tt.addrs, got, tt.want)
		}
	}
}

func TestClassifyDialError(t *testing.T) {
	opErr := func(errno syscall.Errno) error {
		return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errno)}
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"refused", opErr(syscall.ECONNREFUSED), StatusRefused},
		{"network unreachable", opErr(syscall.ENETUNREACH), StatusUnreachable},
		{"host unreachable", opErr(syscall.EHOSTUNREACH), StatusUnreachable},
		{"kernel timeout", opErr(syscall.ETIMEDOUT), StatusTimeout},
		{"deadline", fmt.Errorf("dial: %w", context.DeadlineExceeded), StatusTimeout},
		{"other", errors.New("something else"), StatusError},
	}
	for _, tt := range tests {
		if got := classifyDialError(tt.err); got != tt.want {
			t.Errorf("%s: classifyDialError = %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestRegional(t *testing.T) {
	ca := []byte("ca")
	names := func(ts []Target) []string {
		var out []string
		for _, t := range ts {
			out = append(out, fmt.Sprintf("%s=%s:%d/%v", t.Name, t.Host, t.Port, t.TLS))
		}
		return out
	}
	tests := []struct {
		name, region, url string
		want              []string
	}{
		{"commercial", "us-west-2", "https://ABC.gr7.us-west-2.eks.amazonaws.com", []string{
			"apiserver=ABC.gr7.us-west-2.eks.amazonaws.com:443/true",
			"sts=sts.us-west-2.amazonaws.com:443/false",
			"ec2=ec2.us-west-2.amazonaws.com:443/false",
			"ecr-api=api.ecr.us-west-2.amazonaws.com:443/false",
			"s3=s3.us-west-2.amazonaws.com:443/false",
		}},
		{"china", "cn-north-1", "https://10.0.0.10:6443/", []string{
			"apiserver=10.0.0.10:6443/true",
			"sts=sts.cn-north-1.amazonaws.com.cn:443/false",
			"ec2=ec2.cn-north-1.amazonaws.com.cn:443/false",
			"ecr-api=api.ecr.cn-north-1.amazonaws.com.cn:443/false",
			"s3=s3.cn-north-1.amazonaws.com.cn:443/false",
		}},
		{"no api server", "us-gov-west-1", "", []string{
			"sts=sts.us-gov-west-1.amazonaws.com:443/false",
			"ec2=ec2.us-gov-west-1.amazonaws.com:443/false",
			"ecr-api=api.ecr.us-gov-west-1.amazonaws.com:443/false",
			"s3=s3.us-gov-west-1.amazonaws.com:443/false",
		}},
		{"no region", "", "https://[fd00::1]:443", []string{"apiserver=fd00::1:443/true"}},
		{"odd region", "evil.com/x", "http://plain.example", nil},
	}
	for _, tt := range tests {
		got := Regional(tt.region, tt.url, ca)
		if !slices.Equal(names(got), tt.want) {
			t.Errorf("%s: Regional = %q, want %q", tt.name, names(got), tt.want)
		}
		for _, target := range got {
			if target.Name == "apiserver" && (string(target.CAPEM) != "ca" || target.ServerName != target.Host) {
				t.Errorf("%s: apiserver target %+v lacks CA or server name", tt.name, target)
			}
		}
	}
}

func TestAPIServerErrors(t *testing.T) {
	for _, raw := range []string{"", "http://x", "https://", "https://x:0", "https://x:99999", "https://x:port", "://"} {
		if _, err := APIServer(raw, nil); !errors.Is(err, ErrBadURL) {
			t.Errorf("APIServer(%q) error = %v, want ErrBadURL", raw, err)
		}
	}
}

func FuzzAPIServer(f *testing.F) {
	for _, seed := range []string{"https://ABC.gr7.us-west-2.eks.amazonaws.com", "https://10.0.0.1:6443",
		"https://[::1]:443/", " https://x ", "http://x", "https://x:65536", "https://%zz"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		target, err := APIServer(raw, nil)
		if err != nil {
			if !errors.Is(err, ErrBadURL) {
				t.Fatalf("error %v is not ErrBadURL", err)
			}
			return
		}
		if target.Host == "" || target.Port < 1 || target.Port > 65535 || !target.TLS {
			t.Fatalf("APIServer(%q) = %+v", raw, target)
		}
	})
}

func FuzzClassifyAddresses(f *testing.F) {
	f.Add("10.0.0.1,52.1.1.1")
	f.Add("fe80::1%eth0")
	f.Add("::ffff:100.64.0.1,,x")
	f.Fuzz(func(t *testing.T, list string) {
		addrs := strings.Split(list, ",")
		got := ClassifyAddresses(addrs)
		if !slices.Contains([]string{ClassPrivate, ClassPublic, ClassMixed, ClassNone}, got) {
			t.Fatalf("class %q", got)
		}
		// The class does not depend on the order of the addresses.
		slices.Reverse(addrs)
		if again := ClassifyAddresses(addrs); again != got {
			t.Fatalf("class %s, reversed %s", got, again)
		}
	})
}

func FuzzRegional(f *testing.F) {
	f.Add("us-west-2")
	f.Add("cn-northwest-1")
	f.Add("us-gov-east-1")
	f.Add("x-y-z")
	f.Add("../x-1")
	f.Fuzz(func(t *testing.T, region string) {
		for _, target := range Regional(region, "", nil) {
			if !strings.HasSuffix(target.Host, ".amazonaws.com") && !strings.HasSuffix(target.Host, ".amazonaws.com.cn") {
				t.Fatalf("region %q gives host %q", region, target.Host)
			}
			if strings.ContainsAny(target.Host, "/:@ ") || target.Port != 443 {
				t.Fatalf("region %q gives target %+v", region, target)
			}
		}
	})
}

func TestEndpointRegion(t *testing.T) {
	for in, want := range map[string]string{
		"https://8D2E4F6A0B1C3D5E7F9A1B3C5D7E9F10.gr7.ap-northeast-1.eks.amazonaws.com": "ap-northeast-1",
		"ABC.yl4.cn-north-1.eks.amazonaws.com.cn":                                       "cn-north-1",
		"https://ABC.GR7.US-GOV-WEST-1.EKS.AMAZONAWS.COM:443":                           "us-gov-west-1",
		"https://api.example.com:6443":                                                  "",
		"https://eks.us-west-2.amazonaws.com":                                           "",
		"https://x.not-a-region.eks.amazonaws.com":                                      "",
		"https://127.0.0.1:6443":                                                        "",
		"://":                                                                           "",
		"":                                                                              "",
	} {
		if got := EndpointRegion(in); got != want {
			t.Errorf("EndpointRegion(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzEndpointRegion(f *testing.F) {
	f.Add("https://ABC.gr7.us-west-2.eks.amazonaws.com")
	f.Add("https://127.0.0.1:6443")
	f.Add("://")
	f.Fuzz(func(t *testing.T, s string) {
		r := EndpointRegion(s)
		if r != "" && (!strings.Contains(strings.ToLower(s), r) || !validRegion(r)) {
			t.Fatalf("region %q from %q", r, s)
		}
	})
}
