package redact

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"net/netip"
	"regexp"
	"strconv"
	"sync"
)

// Pseudonym kinds, used as keys of Writer.Counts for a Pseudonymizer.
const (
	KindIPv4        = "ipv4"
	KindIPv6        = "ipv6"
	KindEC2Hostname = "ec2-hostname"
	KindAccountID   = "aws-account-id"
	KindInstanceID  = "instance-id"
)

// Pseudonymizer replaces network and account identifiers with consistent
// stand-ins: the same input always gets the same pseudonym, across every
// stream of one Pseudonymizer, and a pseudonym keeps the form of what it
// replaces (an IPv4 address stays an IPv4 address in the same private or
// public range), so analysis still works on the result. An EC2 host name
// that embeds an address (ip-10-0-1-2.ec2.internal) gets the pseudonym of
// that address. Map returns the mapping, which must be stored outside the
// bundle. It is safe for concurrent use.
type Pseudonymizer struct {
	mu      sync.Mutex
	forward map[string]string
	v4next  map[netip.Prefix]uint32
	v6next  map[string]uint64
	nextID  map[string]uint64
	window  int
	overlap int
}

// NewPseudonymizer returns an empty Pseudonymizer.
func NewPseudonymizer() *Pseudonymizer {
	return &Pseudonymizer{
		forward: map[string]string{},
		v4next:  map[netip.Prefix]uint32{},
		v6next:  map[string]uint64{},
		nextID:  map[string]uint64{},
		window:  defaultWindow,
		overlap: defaultOverlap,
	}
}

// NewWriter returns a Writer that pseudonymizes everything written to it
// and passes the result to dst. Its Counts are keyed by kind (KindIPv4 ...).
func (p *Pseudonymizer) NewWriter(dst io.Writer) *Writer {
	s := &pseudoStream{p: p, counts: map[string]int{}}
	return newWriter(dst, s, s.counts, p.window, p.overlap)
}

// Bytes pseudonymizes b as one stream and returns the result and the counts
// per kind.
func (p *Pseudonymizer) Bytes(b []byte) ([]byte, map[string]int) {
	var buf bytes.Buffer
	buf.Grow(len(b))
	w := p.NewWriter(&buf)
	_, _ = w.Write(b) // a bytes.Buffer does not fail
	_ = w.Close()
	return buf.Bytes(), w.Counts()
}

// Map returns every original value seen so far and its pseudonym. Host
// names appear as their "ip-a-b-c-d" part.
func (p *Pseudonymizer) Map() map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.forward)
}

var (
	ec2HostRe    = regexp.MustCompile(`\b(ip|ec2)-(\d{1,3})-(\d{1,3})-(\d{1,3})-(\d{1,3})\b`)
	ipv4Re       = regexp.MustCompile(`\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b`)
	ipv6Re       = regexp.MustCompile(`(?i)(?:[0-9a-f]{1,4}|:)(?::[0-9a-f]{0,4}){1,7}`)
	instanceIDRe = regexp.MustCompile(`\bi-(?:[0-9a-f]{17}|[0-9a-f]{8})\b`)
	accountIDRe  = regexp.MustCompile(`\b\d{12}\b`)
)

// pseudoStream is the per-stream state of a Pseudonymizer.
type pseudoStream struct {
	p      *Pseudonymizer
	counts map[string]int
	bufs   [2][]byte
}

func (s *pseudoStream) filterLine(out, content, eol []byte) []byte {
	out = s.pseudonymize(out, content)
	return append(out, eol...)
}

// filterChunk cuts at the first byte from minCut on that cannot be part of
// an identifier, so none is split.
func (s *pseudoStream) filterChunk(out, buf []byte, minCut int) ([]byte, int) {
	cut := minCut
	for cut < len(buf) && isIdentByte(buf[cut]) {
		cut++
	}
	if cut == len(buf) {
		cut = minCut
	}
	return s.pseudonymize(out, buf[:cut]), cut
}

func isIdentByte(c byte) bool {
	return isASCIIAlnum(c) || c == '.' || c == ':' || c == '-' || c == '%'
}

// pseudonymize runs each kind over text, host names first so their embedded
// address is handled as one piece.
func (s *pseudoStream) pseudonymize(out, text []byte) []byte {
	cur, curBuf := text, -1
	step := func(kind string, gate bool, re *regexp.Regexp, swap func(text []byte, m []int) (string, bool)) {
		if !gate {
			return
		}
		next := (curBuf + 1) % 2
		res, n := replaceEach(cur, s.bufs[next][:0], re, swap)
		if n == 0 {
			return
		}
		s.bufs[next], cur, curBuf = res, res, next
		s.counts[kind] += n
	}
	step(KindEC2Hostname, bytes.Contains(cur, []byte("ip-")) || bytes.Contains(cur, []byte("ec2-")), ec2HostRe, s.p.swapHostname)
	step(KindIPv4, bytes.IndexByte(cur, '.') >= 0, ipv4Re, s.p.swapIPv4)
	step(KindIPv6, bytes.Contains(cur, []byte("::")) || bytes.Count(cur, []byte(":")) >= 7, ipv6Re, s.p.swapIPv6)
	step(KindInstanceID, bytes.Contains(cur, []byte("i-")), instanceIDRe, s.p.swapInstanceID)
	step(KindAccountID, hasDigitRun(cur, 12), accountIDRe, s.p.swapAccountID)
	return append(out, cur...)
}

// replaceEach replaces every match that swap accepts and returns the
// result (appended to dst) and the number of replacements.
func replaceEach(src, dst []byte, re *regexp.Regexp, swap func(text []byte, m []int) (string, bool)) ([]byte, int) {
	locs := re.FindAllSubmatchIndex(src, -1)
	last, n := 0, 0
	for _, m := range locs {
		repl, ok := swap(src, m)
		if !ok {
			continue
		}
		dst = append(dst, src[last:m[0]]...)
		dst = append(dst, repl...)
		last = m[1]
		n++
	}
	if n == 0 {
		return dst, 0
	}
	return append(dst, src[last:]...), n
}

func hasDigitRun(b []byte, n int) bool {
	run := 0
	for _, c := range b {
		if isDigit(c) {
			run++
			if run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// lookup returns the pseudonym of original, creating it with make under the
// lock when it is new.
func (p *Pseudonymizer) lookup(original string, make func() string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if v, ok := p.forward[original]; ok {
		return v
	}
	v := make()
	p.forward[original] = v
	return v
}

// swapIPv4 replaces an IPv4 address unless it is special (loopback, link
// local such as IMDS 169.254.169.254, multicast, reserved, netmasks), is a
// network address written as a CIDR (10.0.0.0/16 stays, so subnet
// layout is still readable), or looks like part of a version string
// (1.2.3.4.5).
func (p *Pseudonymizer) swapIPv4(text []byte, m []int) (string, bool) {
	if m[0] > 0 && text[m[0]-1] == '.' {
		return "", false
	}
	if m[1]+1 < len(text) && text[m[1]] == '.' && isDigit(text[m[1]+1]) {
		return "", false
	}
	addr, err := netip.ParseAddr(string(text[m[0]:m[1]]))
	if err != nil || keepIPv4(addr) || isNetworkCIDR(text, m[1], addr) {
		return "", false
	}
	return p.ipv4Pseudonym(addr).String(), true
}

func keepIPv4(a netip.Addr) bool {
	b := a.As4()
	return a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsMulticast() || b[0] == 0 || b[0] >= 240
}

// isNetworkCIDR reports "addr/len" where addr has no host bits set.
func isNetworkCIDR(text []byte, end int, addr netip.Addr) bool {
	if end >= len(text) || text[end] != '/' {
		return false
	}
	i := end + 1
	for i < len(text) && i-end <= 3 && isDigit(text[i]) {
		i++
	}
	bits, err := strconv.Atoi(string(text[end+1 : i]))
	if err != nil || bits >= 32 || bits < 0 {
		return false
	}
	prefix, err := addr.Prefix(bits)
	return err == nil && prefix.Addr() == addr
}

// ipv4Pools keep each address in its kind of range: 10/8, 172.16/12,
// 192.168/16 and 100.64/10 (pod networks) map into themselves, counting
// from a high start so pseudonyms stand out (10.0.1.2 -> 10.255.0.1);
// public addresses map into 198.18.0.0/15, a range reserved for testing.
var ipv4Pools = []struct {
	from  netip.Prefix
	to    netip.Prefix
	start uint32
}{
	{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8"), 0xff0000},
	{netip.MustParsePrefix("172.16.0.0/12"), netip.MustParsePrefix("172.16.0.0/12"), 0xf0000},
	{netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("192.168.0.0/16"), 0xff00},
	{netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("100.64.0.0/10"), 0x3f0000},
	{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("198.18.0.0/15"), 0},
}

func (p *Pseudonymizer) ipv4Pseudonym(addr netip.Addr) netip.Addr {
	s := p.lookup(addr.String(), func() string { return p.nextIPv4(addr).String() })
	return netip.MustParseAddr(s)
}

// nextIPv4 allocates the next address of addr's pool, skipping host parts
// ending in .0 or .255. It runs under the lock.
func (p *Pseudonymizer) nextIPv4(addr netip.Addr) netip.Addr {
	for _, pool := range ipv4Pools {
		if !pool.from.Contains(addr) {
			continue
		}
		size := uint32(1) << (32 - pool.to.Bits())
		base := binary.BigEndian.Uint32(pool.to.Addr().AsSlice())
		for {
			p.v4next[pool.to]++
			host := (pool.start + p.v4next[pool.to]) % size
			if last := host & 0xff; last != 0 && last != 0xff {
				var b [4]byte
				binary.BigEndian.PutUint32(b[:], base+host)
				return netip.AddrFrom4(b)
			}
		}
	}
	return addr // not reached: the last pool holds every address
}

// swapHostname replaces the address inside ip-a-b-c-d / ec2-a-b-c-d host
// names with its pseudonym, so the name and the address stay linked.
func (p *Pseudonymizer) swapHostname(text []byte, m []int) (string, bool) {
	var b [4]byte
	for i := range 4 {
		v, err := strconv.Atoi(string(text[m[4+2*i]:m[5+2*i]]))
		if err != nil || v > 255 {
			return "", false
		}
		b[i] = byte(v)
	}
	addr := netip.AddrFrom4(b)
	if keepIPv4(addr) {
		return "", false
	}
	alias := p.ipv4Pseudonym(addr).As4()
	prefix := string(text[m[2]:m[3]])
	name := fmt.Sprintf("%s-%d-%d-%d-%d", prefix, alias[0], alias[1], alias[2], alias[3])
	original := fmt.Sprintf("%s-%d-%d-%d-%d", prefix, b[0], b[1], b[2], b[3])
	p.lookup(original, func() string { return name })
	return name, true
}

// swapIPv6 replaces an IPv6 address that parses as one and is not
// unspecified, loopback or multicast. Link-local addresses map to fe80::/64,
// unique local ones to fd00::/64, the rest to 2001:db8::/32 (documentation
// range). An address followed by a '.' (an embedded IPv4 tail) is left to
// the IPv4 step.
func (p *Pseudonymizer) swapIPv6(text []byte, m []int) (string, bool) {
	start, end := m[0], m[1]
	if start > 0 && (isASCIIAlnum(text[start-1]) || text[start-1] == ':' || text[start-1] == '.') {
		return "", false
	}
	if end < len(text) && (isASCIIAlnum(text[end]) || text[end] == '.') {
		return "", false
	}
	candidate := string(text[start:end])
	if bytes.Count(text[start:end], []byte(":")) < 2 {
		return "", false
	}
	addr, err := netip.ParseAddr(candidate)
	if err != nil || !addr.Is6() || addr.Is4In6() || addr.IsUnspecified() || addr.IsLoopback() || addr.IsMulticast() {
		return "", false
	}
	return p.lookup(addr.String(), func() string { return p.nextIPv6(addr).String() }), true
}

func (p *Pseudonymizer) nextIPv6(addr netip.Addr) netip.Addr {
	base := "2001:db8:ffff::"
	switch {
	case addr.IsLinkLocalUnicast():
		base = "fe80::ffff:0:0"
	case addr.IsPrivate():
		base = "fd00::ffff:0:0"
	}
	p.v6next[base]++
	b := netip.MustParseAddr(base).As16()
	binary.BigEndian.PutUint32(b[12:], uint32(p.v6next[base]))
	return netip.AddrFrom16(b)
}

// swapInstanceID replaces an EC2 instance id with one of the same length
// that starts with "f" (real ids start with 0).
func (p *Pseudonymizer) swapInstanceID(text []byte, m []int) (string, bool) {
	id := string(text[m[0]:m[1]])
	return p.lookup(id, func() string {
		p.nextID[KindInstanceID]++
		digits := len(id) - len("i-") - 1
		return fmt.Sprintf("i-f%0*x", digits, p.nextID[KindInstanceID])
	}), true
}

// swapAccountID replaces a 12-digit number: an AWS account id in an ARN,
// an ECR registry host or alone. It is skipped inside UUIDs and decimals
// (a neighbouring '-' or '.'-digit).
func (p *Pseudonymizer) swapAccountID(text []byte, m []int) (string, bool) {
	if m[0] > 0 && (text[m[0]-1] == '-' || text[m[0]-1] == '.') {
		return "", false
	}
	if m[1] < len(text) && text[m[1]] == '-' {
		return "", false
	}
	if m[1]+1 < len(text) && text[m[1]] == '.' && isDigit(text[m[1]+1]) {
		return "", false
	}
	id := string(text[m[0]:m[1]])
	return p.lookup(id, func() string {
		p.nextID[KindAccountID]++
		return fmt.Sprintf("9999%08d", p.nextID[KindAccountID]%100000000)
	}), true
}
