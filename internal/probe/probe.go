// Package probe checks, from the node itself, whether the endpoints a worker
// needs to join its cluster can be reached: the cluster's API server and the
// regional AWS endpoints. Each target goes through up to three steps, name
// resolution, TCP connect and (for the API server) a TLS handshake verified
// against the cluster CA; the result names the first step that failed.
//
// Probes use the node's resolver and dial directly; proxy settings of the
// node are not applied.
package probe

import (
	"context"
	"net"
	"strconv"
	"sync"
	"time"
)

// DefaultStepTimeout bounds each step (DNS, TCP, TLS) of one target.
const DefaultStepTimeout = 3 * time.Second

// Step outcomes, used in Result.TCP and Result.TLS.
const (
	StatusOK             = "ok"
	StatusSkipped        = "skipped"
	StatusTimeout        = "timeout"
	StatusRefused        = "refused"
	StatusUnreachable    = "unreachable"
	StatusError          = "error"
	StatusX509           = "x509"
	StatusHandshakeError = "handshake_error"
)

// Verdicts: the first failing step, or VerdictOK.
const (
	VerdictOK  = "ok"
	VerdictDNS = "dns"
	VerdictTCP = "tcp"
	VerdictTLS = "tls"
)

// Target is one endpoint to check.
type Target struct {
	Name string
	Host string // a DNS name or an IP address
	Port int
	TLS  bool // also perform a TLS handshake
	// CAPEM holds the certificates to verify the server against; when empty
	// the system roots are used.
	CAPEM []byte
	// ServerName is the name verified in the server certificate and sent as
	// SNI; Host when empty.
	ServerName string
	// VersionPath, when set on a TLS target, is fetched with an anonymous
	// GET after a verified handshake to learn the Kubernetes version
	// ("/version" for an API server).
	VersionPath string
}

// Resolver turns a host name into addresses; *net.Resolver is one.
type Resolver interface {
	LookupHost(ctx context.Context, host string) ([]string, error)
}

// Dialer opens connections; *net.Dialer is one.
type Dialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// Options tune Run. Zero values mean the defaults.
type Options struct {
	Resolver    Resolver      // default net.DefaultResolver
	Dialer      Dialer        // default a plain *net.Dialer
	StepTimeout time.Duration // default DefaultStepTimeout
}

func (o Options) withDefaults() Options {
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	if o.Dialer == nil {
		o.Dialer = &net.Dialer{}
	}
	if o.StepTimeout <= 0 {
		o.StepTimeout = DefaultStepTimeout
	}
	return o
}

// Result is what one target's probe found.
type Result struct {
	Name         string   `json:"name"`
	Host         string   `json:"host"`
	Port         int      `json:"port"`
	Addresses    []string `json:"addresses"`
	AddressClass string   `json:"address_class"`
	DNSError     string   `json:"dns_error,omitempty"`
	DNSMS        float64  `json:"dns_ms"`
	TCP          string   `json:"tcp"`
	TCPError     string   `json:"tcp_error,omitempty"`
	// Connected is the address the TCP connect reached.
	Connected string  `json:"connected,omitempty"`
	ConnectMS float64 `json:"connect_ms"`
	TLS       string  `json:"tls"`
	TLSError  string  `json:"tls_error,omitempty"`
	TLSMS     float64 `json:"tls_ms"`
	Verdict   string  `json:"verdict"`
	// ServerVersion is the gitVersion the API server reported, when the
	// target asked for it; VersionError says why it is missing (an HTTP
	// status when anonymous reads are forbidden). Neither changes the
	// verdict.
	ServerVersion string `json:"server_version,omitempty"`
	VersionError  string `json:"version_error,omitempty"`
}

// Run probes all targets in parallel and returns their results in the order
// of targets. Every step of every target has its own timeout, so Run returns
// within about three step timeouts (more when a name has several addresses
// that all time out).
func Run(ctx context.Context, targets []Target, opt Options) []Result {
	opt = opt.withDefaults()
	results := make([]Result, len(targets))
	var wg sync.WaitGroup
	for i, target := range targets {
		wg.Go(func() { results[i] = probe(ctx, target, opt) })
	}
	wg.Wait()
	return results
}

func probe(ctx context.Context, t Target, opt Options) Result {
	r := Result{Name: t.Name, Host: t.Host, Port: t.Port, TCP: StatusSkipped, TLS: StatusSkipped}
	if !r.resolve(ctx, opt) {
		r.Verdict = VerdictDNS
		return r
	}
	conn := r.connect(ctx, opt)
	if conn == nil {
		r.Verdict = VerdictTCP
		return r
	}
	defer conn.Close()
	if !t.TLS {
		r.Verdict = VerdictOK
		return r
	}
	tlsConn := r.handshake(ctx, conn, t, opt.StepTimeout)
	if tlsConn == nil {
		r.Verdict = VerdictTLS
		return r
	}
	r.Verdict = VerdictOK
	if t.VersionPath != "" {
		r.serverVersion(ctx, tlsConn, t, opt.StepTimeout)
	}
	return r
}

// millis turns a duration into milliseconds with microsecond precision.
func millis(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

func hostPort(addr string, port int) string {
	return net.JoinHostPort(addr, strconv.Itoa(port))
}
