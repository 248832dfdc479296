package redact

import (
	"bytes"
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func TestPseudonymizerForms(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"private ipv4", "node 10.0.1.2 up", "node 10.255.0.1 up"},
		{"hostname follows ip", "ip-10-0-1-2.ec2.internal has 10.0.1.2", "ip-10-255-0-1.ec2.internal has 10.255.0.1"},
		{"regional hostname", "ip-10-0-1-2.us-west-2.compute.internal", "ip-10-255-0-1.us-west-2.compute.internal"},
		{"bare hostname", "Jun 06 ip-10-0-1-2 kubelet[1]: x", "Jun 06 ip-10-255-0-1 kubelet[1]: x"},
		{"public dns", "ec2-54-12-34-56.us-west-2.compute.amazonaws.com 54.12.34.56", "ec2-198-18-0-1.us-west-2.compute.amazonaws.com 198.18.0.1"},
		{"ranges kept", "a 172.16.5.4 b 192.168.1.10 c 100.64.3.3", "a 172.31.0.1 b 192.168.255.1 c 100.127.0.1"},
		{"port and brackets", "dial tcp 10.0.1.2:443 [10.0.1.2]", "dial tcp 10.255.0.1:443 [10.255.0.1]"},
		{"interface cidr", "inet 10.0.1.2/19 brd 10.0.31.255", "inet 10.255.0.1/19 brd 10.255.0.2"},
		{"special kept", "imds 169.254.169.254 lo 127.0.0.1 any 0.0.0.0 mask 255.255.240.0 mc 224.0.0.251", ""},
		{"network cidr kept", "vpc 10.0.0.0/16 svc 172.20.0.0/16 all 0.0.0.0/0", ""},
		{"versions kept", "kernel 6.1.90-99.173.amzn2023 v1.2.3.4.5 1.2.3.4.5", ""},
		{"invalid octets", "999.1.1.1 ip-300-1-1-1", ""},
		{"account in arn", "arn:aws:iam::123456789012:role/eks", "arn:aws:iam::999900000001:role/eks"},
		{"account in ecr host", "123456789012.dkr.ecr.us-west-2.amazonaws.com/app", "999900000001.dkr.ecr.us-west-2.amazonaws.com/app"},
		{"account alone", `"Account": "123456789012"`, `"Account": "999900000001"`},
		{"uuid and decimals kept", "123e4567-e89b-12d3-a456-426614174000 0.123456789012 1234567890123", ""},
		{"instance ids", "i-0123456789abcdef0 and i-0abc1234", "i-f0000000000000001 and i-f0000002"},
		{"instance in arn", "arn:aws:sts::123456789012:assumed-role/r/i-0123456789abcdef0", "arn:aws:sts::999900000001:assumed-role/r/i-f0000000000000001"},
		{"ipv6", "inet6 2600:1f14:abc:de00:1234:5678:9abc:def0/128 fe80::8ff:4bff:fe12:3456", "inet6 2001:db8:ffff::1/128 fe80::ffff:0:1"},
		{"ipv6 ula", "fd12:3456:789a::1", "fd00::ffff:0:1"},
		{"ipv6 kept", "::1 :: ff02::1 time 12:34:56 mac 0a:1b:2c:3d:4e:5f std::string", ""},
		{"ipv4 mapped", "::ffff:10.0.1.2", "::ffff:10.255.0.1"},
		{"eni and ami kept", "eni-0a1b2c3d4e5f67890 ami-0abcdef1234567890 sha256:" + strings.Repeat("ab", 32), ""},
		{"markers untouched", Marker(RuleJWT) + " " + Marker(RuleAWSAccessKeyID), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := NewPseudonymizer().Bytes([]byte(tc.in))
			want := tc.want
			if want == "" {
				want = tc.in
			}
			if string(got) != want {
				t.Fatalf("got  %q\nwant %q", got, want)
			}
		})
	}
}

func TestPseudonymizerConsistentAcrossStreams(t *testing.T) {
	p := NewPseudonymizer()
	files := []string{
		"kubelet: node ip-10-0-1-2.ec2.internal registered, ip 10.0.1.2, instance i-0123456789abcdef0\n",
		"ipamd: 10.0.7.7 assigned; peer 10.0.1.2; account 123456789012\n",
		"imds: {\"privateIp\": \"10.0.1.2\", \"accountId\": \"123456789012\", \"instanceId\": \"i-0123456789abcdef0\"}\n",
	}
	var outs []string
	var wg sync.WaitGroup
	results := make([]string, len(files))
	for round := 0; round < 2; round++ {
		for i, f := range files {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var b bytes.Buffer
				w := p.NewWriter(&b)
				for j := 0; j < len(f); j++ { // byte by byte
					_, _ = w.Write([]byte{f[j]})
				}
				_ = w.Close()
				results[i] = b.String()
			}()
		}
		wg.Wait()
		outs = append(outs, results...)
	}
	m := p.Map()
	ip, acct, inst := m["10.0.1.2"], m["123456789012"], m["i-0123456789abcdef0"]
	if ip == "" || acct == "" || inst == "" {
		t.Fatalf("map misses entries: %v", m)
	}
	host := "ip-" + strings.ReplaceAll(ip, ".", "-")
	if m["ip-10-0-1-2"] != host {
		t.Fatalf("hostname pseudonym %q does not follow ip pseudonym %q", m["ip-10-0-1-2"], ip)
	}
	for i, out := range outs {
		for original := range m {
			if strings.Contains(out, original) {
				t.Errorf("output %d still holds %q: %s", i, original, out)
			}
		}
		if i%len(files) == 0 && !strings.Contains(out, host+".ec2.internal") {
			t.Errorf("output %d lacks %s: %s", i, host, out)
		}
		if i >= len(files) && out != outs[i-len(files)] {
			t.Errorf("second round differs: %q vs %q", out, outs[i-len(files)])
		}
	}
	for original, alias := range m {
		if strings.Count(original, ".") == 3 {
			a, err := netip.ParseAddr(alias)
			if err != nil || !a.Is4() {
				t.Errorf("pseudonym %q of %q is not an IPv4 address", alias, original)
			}
			if netip.MustParseAddr(original).IsPrivate() != a.IsPrivate() {
				t.Errorf("pseudonym %q of %q changed private/public", alias, original)
			}
		}
	}
}

func TestPseudonymizerMapIsCopyAndCounts(t *testing.T) {
	p := NewPseudonymizer()
	_, counts := p.Bytes([]byte("10.0.1.2 10.0.1.3 ip-10-0-1-2 i-0abc1234 123456789012 fe80::1\n"))
	want := map[string]int{KindIPv4: 2, KindEC2Hostname: 1, KindInstanceID: 1, KindAccountID: 1, KindIPv6: 1}
	if !maps.Equal(counts, want) {
		t.Fatalf("counts %v, want %v", counts, want)
	}
	m := p.Map()
	m["10.0.1.2"] = "changed"
	if p.Map()["10.0.1.2"] == "changed" {
		t.Fatal("Map returned the internal map")
	}
	if got, _ := p.Bytes([]byte("10.0.1.3")); string(got) != "10.255.0.2" {
		t.Fatalf("second call got %q", got)
	}
}

func TestPseudonymizerSkipsPoolEdges(t *testing.T) {
	p := NewPseudonymizer()
	var in strings.Builder
	for i := range 300 {
		fmt.Fprintf(&in, "10.1.%d.%d ", i/250, i%250+1)
	}
	out, _ := p.Bytes([]byte(in.String()))
	seen := map[string]bool{}
	for _, f := range strings.Fields(string(out)) {
		if seen[f] {
			t.Fatalf("pseudonym %s given twice", f)
		}
		seen[f] = true
		if strings.HasSuffix(f, ".0") || strings.HasSuffix(f, ".255") {
			t.Fatalf("pseudonym %s ends in .0 or .255", f)
		}
	}
}

func TestPseudonymizerLongLine(t *testing.T) {
	p := NewPseudonymizer()
	p.window, p.overlap = 1024, 128
	var in strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&in, "peer=10.0.%d.%d ", i/200, i%200+1)
	}
	var out bytes.Buffer
	w := p.NewWriter(&out)
	s := in.String()
	for len(s) > 0 {
		n := min(333, len(s))
		_, _ = w.Write([]byte(s[:n]))
		s = s[n:]
	}
	_ = w.Close()
	if regexp.MustCompile(`10\.0\.`).Match(out.Bytes()) {
		t.Fatal("an address survived a piece border")
	}
	if got := strings.Count(out.String(), "peer=10.255."); got != 2000 {
		t.Fatalf("%d pseudonyms, want 2000", got)
	}
}
