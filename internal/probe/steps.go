package probe

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// resolve fills the address fields; it reports whether there is anything
// to connect to. An IP address as host needs no lookup.
func (r *Result) resolve(ctx context.Context, opt Options) bool {
	r.Addresses = []string{}
	r.AddressClass = ClassNone
	if r.Host == "" {
		r.DNSError = "empty host name"
		return false
	}
	if _, err := netip.ParseAddr(r.Host); err == nil {
		r.Addresses = []string{r.Host}
		r.AddressClass = ClassifyAddresses(r.Addresses)
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, opt.StepTimeout)
	defer cancel()
	start := time.Now()
	addrs, err := opt.Resolver.LookupHost(ctx, r.Host)
	r.DNSMS = millis(time.Since(start))
	if err == nil && len(addrs) == 0 {
		err = fmt.Errorf("lookup %s: no addresses", r.Host)
	}
	if err != nil {
		r.DNSError = err.Error()
		return false
	}
	r.Addresses = addrs
	r.AddressClass = ClassifyAddresses(addrs)
	return true
}

// connect tries the addresses in order, each with the step timeout, and
// returns the first connection made. On failure the outcome is that of the
// first address, and TCPError lists every attempt.
func (r *Result) connect(ctx context.Context, opt Options) net.Conn {
	if r.Port < 1 || r.Port > 65535 {
		r.TCP = StatusError
		r.TCPError = fmt.Sprintf("invalid port %d", r.Port)
		return nil
	}
	var failures []string
	r.TCP = ""
	for _, addr := range r.Addresses {
		conn, elapsed, err := dial(ctx, opt, hostPort(addr, r.Port))
		r.ConnectMS = millis(elapsed)
		if err == nil {
			r.TCP = StatusOK
			r.TCPError = ""
			r.Connected = addr
			return conn
		}
		if r.TCP == "" {
			r.TCP = classifyDialError(err)
		}
		failures = append(failures, err.Error())
	}
	r.TCPError = strings.Join(failures, "; ")
	return nil
}

func dial(ctx context.Context, opt Options, address string) (net.Conn, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, opt.StepTimeout)
	defer cancel()
	start := time.Now()
	conn, err := opt.Dialer.DialContext(ctx, "tcp", address)
	return conn, time.Since(start), err
}

// classifyDialError names why a TCP connect failed.
func classifyDialError(err error) string {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return StatusRefused
	case isTimeout(err):
		return StatusTimeout
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH),
		errors.Is(err, syscall.EHOSTDOWN), errors.Is(err, syscall.ENETDOWN):
		return StatusUnreachable
	default:
		return StatusError
	}
}

func isTimeout(err error) bool {
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ETIMEDOUT) ||
		errors.As(err, &netErr) && netErr.Timeout()
}

// handshake runs a TLS handshake over conn and returns the TLS connection
// when it and the verification of the server certificate succeeded, or nil.
func (r *Result) handshake(ctx context.Context, conn net.Conn, t Target, timeout time.Duration) *tls.Conn {
	cfg, err := tlsConfig(t)
	if err != nil {
		r.TLS = StatusX509
		r.TLSError = err.Error()
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	tlsConn := tls.Client(conn, cfg)
	err = tlsConn.HandshakeContext(ctx)
	r.TLSMS = millis(time.Since(start))
	if err != nil {
		r.TLS = classifyTLSError(err)
		r.TLSError = err.Error()
		return nil
	}
	r.TLS = StatusOK
	return tlsConn
}

// maxVersionBody bounds the /version answer read.
const maxVersionBody = 64 << 10

// serverVersion sends an anonymous GET of t.VersionPath over the verified
// connection and records the gitVersion of the answer. EKS lets anyone read
// /version (the system:public-info-viewer role); a cluster that turned
// anonymous access off answers 401 or 403, recorded as the reason.
func (r *Result) serverVersion(ctx context.Context, conn *tls.Conn, t Target, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := conn.SetDeadline(deadline); err != nil {
		r.VersionError = err.Error()
		return
	}
	host := t.ServerName
	if host == "" {
		host = t.Host
	}
	req := "GET " + t.VersionPath + " HTTP/1.1\r\nHost: " + host + "\r\nAccept: application/json\r\n" +
		"User-Agent: nodetriage-collect\r\nConnection: close\r\n\r\n"
	if _, err := io.WriteString(conn, req); err != nil {
		r.VersionError = fmt.Sprintf("GET %s: %v", t.VersionPath, err)
		return
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		r.VersionError = fmt.Sprintf("GET %s: %v", t.VersionPath, err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		r.VersionError = fmt.Sprintf("GET %s: HTTP %d", t.VersionPath, resp.StatusCode)
		return
	}
	var v struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxVersionBody)).Decode(&v); err != nil || v.GitVersion == "" {
		r.VersionError = fmt.Sprintf("GET %s: no gitVersion in the answer", t.VersionPath)
		return
	}
	r.ServerVersion = v.GitVersion
}

func tlsConfig(t Target) (*tls.Config, error) {
	cfg := &tls.Config{ServerName: t.ServerName, MinVersion: tls.VersionTLS12}
	if cfg.ServerName == "" {
		cfg.ServerName = t.Host
	}
	if len(t.CAPEM) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(t.CAPEM) {
			return nil, errors.New("the CA PEM holds no certificate")
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}

// classifyTLSError tells a certificate problem (unknown authority, expired,
// wrong name) from a timeout and from any other handshake failure.
func classifyTLSError(err error) string {
	var (
		verifyErr   *tls.CertificateVerificationError
		authority   x509.UnknownAuthorityError
		invalid     x509.CertificateInvalidError
		hostname    x509.HostnameError
		constraints x509.ConstraintViolationError
	)
	switch {
	case errors.As(err, &verifyErr), errors.As(err, &authority), errors.As(err, &invalid),
		errors.As(err, &hostname), errors.As(err, &constraints):
		return StatusX509
	case isTimeout(err):
		return StatusTimeout
	default:
		return StatusHandshakeError
	}
}
