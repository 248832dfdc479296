package upload

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	tests := []struct {
		value  string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{" 7 ", 7 * time.Second, true},
		{"120", 2 * time.Minute, true},
		{"99999999999999999999", maxRetryAfter, true},
		{"-5", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"Wed, 04 Mar 2026 05:06:37 GMT", 30 * time.Second, true},
		{"Wed, 04 Mar 2026 05:00:00 GMT", 0, true},
		{"Fri, 04 Mar 2033 05:06:37 GMT", maxRetryAfter, true},
	}
	for _, tt := range tests {
		got, ok := ParseRetryAfter(tt.value, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.value, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://b.s3.us-west-2.amazonaws.com/nodetriage/x.tar.gz?X-Amz-Signature=abc&X-Amz-Security-Token=t", "https://b.s3.us-west-2.amazonaws.com/nodetriage/x.tar.gz"},
		{"https://user:pw@host.example/p#frag", "https://host.example/p"},
		{"https://host.example:8443/a%20b?", "https://host.example:8443/a%20b"},
		{"https://[::1/x?sig", "(malformed URL)"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, seed := range []string{"", "0", "30", "86401", "Wed, 21 Oct 2015 07:28:00 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "-1", "1e9"} {
		f.Add(seed)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, value string) {
		got, ok := ParseRetryAfter(value, now)
		if got < 0 || got > maxRetryAfter {
			t.Fatalf("ParseRetryAfter(%q) = %v, outside [0, %v]", value, got, maxRetryAfter)
		}
		if !ok && got != 0 {
			t.Fatalf("ParseRetryAfter(%q) = %v with ok=false", value, got)
		}
	})
}

func FuzzRedact(f *testing.F) {
	for _, seed := range []string{
		"https://b.s3.amazonaws.com/k?X-Amz-Signature=abc",
		"https://u:p@h/p#f",
		"http://127.0.0.1:8080/x",
		"https://[::1]:443/a%2Fb",
		"%zz",
		"",
	} {
		f.Add(seed)
	}
	const secret = "QQSIGNATUREQQ"
	f.Fuzz(func(t *testing.T, raw string) {
		got := Redact(raw)
		if strings.ContainsAny(got, "?#") {
			t.Fatalf("Redact(%q) = %q still has a query or fragment", raw, got)
		}
		if u, err := url.Parse(got); err == nil && u.User != nil {
			t.Fatalf("Redact(%q) = %q still has user info", raw, got)
		}
		if !strings.Contains(raw, secret) {
			if leaked := Redact(raw + "?sig=" + secret); strings.Contains(leaked, secret) {
				t.Fatalf("Redact(%q) leaks the query: %q", raw+"?sig="+secret, leaked)
			}
		}
	})
}
