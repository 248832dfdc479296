package upload

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxRetryAfter bounds what a Retry-After header can ask for; Put caps the
// wait at Options.MaxDelay anyway, this only keeps the arithmetic sane.
const maxRetryAfter = 24 * time.Hour

// ParseRetryAfter reads a Retry-After header value: either a number of
// seconds or an HTTP date, which is turned into the time left after now. It
// reports false for an empty or malformed value. The result is never negative
// and never more than a day.
func ParseRetryAfter(value string, now time.Time) (time.Duration, bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, false
	}
	if isDigits(value) {
		if len(value) > 6 { // more than about eleven days
			return maxRetryAfter, true
		}
		secs, err := strconv.Atoi(value)
		if err != nil {
			return 0, false
		}
		return min(time.Duration(secs)*time.Second, maxRetryAfter), true
	}
	at, err := http.ParseTime(value)
	if err != nil {
		return 0, false
	}
	left := at.Sub(now)
	return min(max(left, 0), maxRetryAfter), true
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// Redact returns the URL without what makes a presigned URL a credential:
// the query string (signature, security token), the fragment and any user
// name or password. Scheme, host and path stay, so a message still says
// where the upload went. A string that does not parse as a URL comes back as
// a fixed placeholder.
func Redact(rawURL string) string {
	base, _, _ := strings.Cut(rawURL, "?")
	base, _, _ = strings.Cut(base, "#")
	u, err := url.Parse(base)
	if err != nil {
		return "(malformed URL)"
	}
	u.User = nil
	u.RawQuery = ""
	u.ForceQuery = false
	u.Fragment = ""
	u.RawFragment = ""
	return u.String()
}

// isCertificateError reports whether err comes from verifying the server's
// certificate chain or name.
func isCertificateError(err error) bool {
	var verify *tls.CertificateVerificationError
	var authority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &verify) || errors.As(err, &authority) ||
		errors.As(err, &hostname) || errors.As(err, &invalid)
}
