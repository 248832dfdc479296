package userdata

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"io"
	"mime/quotedprintable"
)

// Limits bound how much memory decoding may use. Real user data is at most
// 16 KiB before base64, so the defaults are generous; they exist so that a
// gzip bomb cannot take the analyzer down.
type Limits struct {
	// PartBytes caps the decoded size of one part (and of the blob itself
	// when it is gzip-compressed as a whole).
	PartBytes int
	// TotalBytes caps the decoded blob plus every decoded part together.
	TotalBytes int
}

// DefaultLimits are used by Parse.
var DefaultLimits = Limits{PartBytes: 16 << 20, TotalBytes: 64 << 20}

func (l Limits) normalized() Limits {
	if l.PartBytes <= 0 {
		l.PartBytes = DefaultLimits.PartBytes
	}
	if l.TotalBytes <= 0 {
		l.TotalBytes = DefaultLimits.TotalBytes
	}
	if l.PartBytes > l.TotalBytes {
		l.PartBytes = l.TotalBytes
	}
	return l
}

// budget hands out decoded bytes until Limits.TotalBytes is spent.
type budget struct {
	limits Limits
	used   int
}

// allowance is how many bytes the next decode may produce.
func (b *budget) allowance() int {
	left := b.limits.TotalBytes - b.used
	if left < 0 {
		left = 0
	}
	if left > b.limits.PartBytes {
		left = b.limits.PartBytes
	}
	return left
}

func (b *budget) spend(n int) { b.used += n }

// errOverLimit means the decoded data was cut at the allowance.
var errOverLimit = errors.New("decoded data exceeds the size limit")

// gzipMagic starts every gzip stream.
var gzipMagic = []byte{0x1f, 0x8b}

func isGzip(b []byte) bool { return bytes.HasPrefix(b, gzipMagic) }

// strictBase64 decodes b the way nodeadm sniffs base64: the whole input must
// be standard, padded base64; line breaks are skipped by the decoder. ok is
// false when b is not base64 (or decodes to nothing).
func strictBase64(b []byte) (decoded []byte, ok bool) {
	trimmed := bytes.TrimRight(b, "\r\n")
	if len(trimmed) == 0 {
		return nil, false
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(trimmed)))
	n, err := base64.StdEncoding.Decode(out, trimmed)
	if err != nil || n == 0 {
		return nil, false
	}
	return out[:n], true
}

// lenientBase64 decodes a body declared as base64 by its headers: spaces and
// tabs are dropped as well as line breaks, and missing padding is accepted.
func lenientBase64(b []byte) ([]byte, error) {
	clean := make([]byte, 0, len(b))
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			clean = append(clean, c)
		}
	}
	clean = bytes.TrimRight(clean, "=")
	return base64.RawStdEncoding.DecodeString(string(clean))
}

// gunzip decompresses b, stopping after max bytes. On errOverLimit the
// returned data holds the first max bytes.
func gunzip(b []byte, max int) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return readCapped(zr, max)
}

func readCapped(r io.Reader, max int) ([]byte, error) {
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r, int64(max)+1))
	if err != nil {
		return buf.Bytes(), err
	}
	if n > int64(max) {
		return buf.Bytes()[:max], errOverLimit
	}
	return buf.Bytes(), nil
}

func decodeQuotedPrintable(b []byte, max int) ([]byte, error) {
	return readCapped(quotedprintable.NewReader(bytes.NewReader(b)), max)
}

// joinEncoding appends step to an encoding chain such as "base64+gzip".
func joinEncoding(chain, step string) string {
	if chain == "" {
		return step
	}
	return chain + "+" + step
}
