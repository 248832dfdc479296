package probe

import "net/netip"

// Values of Result.AddressClass.
const (
	ClassPrivate = "private"
	ClassPublic  = "public"
	ClassMixed   = "mixed"
	ClassNone    = "none"
)

// sharedAddressSpace is 100.64.0.0/10 (RFC 6598), used inside VPCs as a
// secondary CIDR.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// IsPrivate reports whether addr is reachable only inside a private
// network: RFC 1918, 100.64.0.0/10, fc00::/7, link-local, and loopback.
func IsPrivate(addr netip.Addr) bool {
	addr = addr.Unmap()
	return addr.IsPrivate() || sharedAddressSpace.Contains(addr) ||
		addr.IsLinkLocalUnicast() || addr.IsLoopback()
}

// ClassifyAddresses says whether addrs are all private, all public, both
// (mixed), or none at all. Strings that are not IP addresses are ignored.
// A private answer for a regional AWS endpoint usually means a VPC
// endpoint; a private API server address means private endpoint access.
func ClassifyAddresses(addrs []string) string {
	var private, public bool
	for _, s := range addrs {
		addr, err := netip.ParseAddr(s)
		if err != nil {
			continue
		}
		if IsPrivate(addr) {
			private = true
		} else {
			public = true
		}
	}
	switch {
	case private && public:
		return ClassMixed
	case private:
		return ClassPrivate
	case public:
		return ClassPublic
	}
	return ClassNone
}
