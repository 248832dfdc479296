package source

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/nodetriage/nodetriage/internal/userdata"
)

// User data may hold MIME parts that are base64 or gzip+base64 encoded, or
// be base64 as a whole. The stage redacts text line by line and cannot see
// inside an encoded part, so the copy of the user data is staged with every
// encoded part decoded, redacted and encoded again the same way. The copy
// still parses to the same parts (kinds, encodings, NodeConfig, scripts), so
// the analysis of the bundle is unchanged, and it holds no value the
// redactor would remove from the plain text.

// ErrReencode means encoded user data could not be rebuilt with its parts
// redacted; its raw copy is then left out of the bundle (the decoded parts
// are still staged one by one).
var ErrReencode = errors.New("encoded user data could not be redacted")

// StageUserData stages a copy of the user data raw at name: the raw text,
// or the decoded text when the raw data is binary (gzip), with encoded
// parts redacted as described above when out can filter text (TextFilter).
// parsed is userdata.Parse(raw), or nil to parse here. It returns an error
// wrapping ErrNotText, and stages nothing, when neither form is text.
func StageUserData(out Sink, name string, raw []byte, parsed *userdata.UserData) error {
	if parsed == nil {
		parsed, _ = userdata.Parse(raw)
	}
	text := raw
	if !isText(raw) {
		if parsed == nil || !isText(parsed.Decoded) {
			return fmt.Errorf("%s: %w", name, ErrNotText)
		}
		text = parsed.Decoded
	}
	filter, ok := out.(TextFilter)
	if !ok || parsed == nil || !hasEncoding(parsed) {
		return writeFile(out, name, text)
	}
	safe, counts, err := redactEncoded(filter, raw, parsed)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	f, err := out.Create(name)
	if err != nil {
		return err
	}
	f.AddRedactions(counts)
	_, werr := f.Write(safe)
	return errors.Join(werr, f.Close())
}

// hasEncoding tells whether the user data or one of its parts was decoded
// from base64 or gzip.
func hasEncoding(u *userdata.UserData) bool {
	if u.Encoding != "" {
		return true
	}
	for _, p := range u.Parts {
		if reencodable(p.Encoding) {
			return true
		}
	}
	return false
}

// reencodable tells whether a part encoding can be written again as text.
// A bare gzip part is binary (the user data is then not staged as text) and
// quoted-printable keeps text readable, so the stage redacts it as it is.
func reencodable(encoding string) bool {
	return encoding == "base64" || encoding == "base64+gzip"
}

// redactEncoded returns the copy of the user data to stage and the
// replacements made while building it.
func redactEncoded(filter TextFilter, raw []byte, parsed *userdata.UserData) ([]byte, map[string]int, error) {
	counts := map[string]int{}
	inner, changed, err := redactEncodedParts(filter, parsed, counts)
	if err != nil {
		return nil, nil, err
	}
	var result []byte
	wantEncoding := parsed.Encoding
	switch {
	case parsed.Encoding == "" || !isText(raw):
		// Plain, or a gzip blob that is staged decoded: the stage redacts
		// the rest of the text.
		result, wantEncoding = inner, ""
	default:
		// A base64 blob: redact the whole decoded text here, then encode it
		// again the same way.
		red, c, err := filter.FilterText(inner)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrReencode, err)
		}
		addCounts(counts, c)
		if !changed && bytes.Equal(red, parsed.Decoded) {
			return raw, counts, nil
		}
		if result, err = encodeBlob(red, parsed.Encoding, raw); err != nil {
			return nil, nil, err
		}
	}
	if err := checkReencoded(result, wantEncoding, parsed); err != nil {
		return nil, nil, err
	}
	return result, counts, nil
}

// redactEncodedParts rewrites, in parsed.Decoded, the body of every base64
// or gzip+base64 part whose redacted text differs from its decoded text.
func redactEncodedParts(filter TextFilter, parsed *userdata.UserData, counts map[string]int) ([]byte, bool, error) {
	data := parsed.Decoded
	if !parsed.MIME {
		return data, false, nil
	}
	var b bytes.Buffer
	last, changed := 0, false
	for _, p := range parsed.Parts {
		if !reencodable(p.Encoding) {
			continue
		}
		start, end, ok := partBodySpan(data, parsed.Boundary, p.Line)
		if !ok || start < last {
			return nil, false, fmt.Errorf("%w: the body of part %d was not found", ErrReencode, p.Index)
		}
		red, c, err := filter.FilterText(p.Body)
		if err != nil {
			return nil, false, fmt.Errorf("%w: part %d: %w", ErrReencode, p.Index, err)
		}
		addCounts(counts, c)
		if bytes.Equal(red, p.Body) {
			continue
		}
		b.Write(data[last:start])
		b.Write(encodeLike(red, p.Encoding, data[start:end]))
		last, changed = end, true
	}
	if !changed {
		return data, false, nil
	}
	b.Write(data[last:])
	return b.Bytes(), true, nil
}

func addCounts(dst, src map[string]int) {
	for rule, n := range src {
		dst[rule] += n
	}
}

// partBodySpan finds the body of a MIME part that starts on line (1-based)
// of data: up to the line break before the next delimiter line, or to the
// end of data.
func partBodySpan(data []byte, boundary string, line int) (start, end int, ok bool) {
	if boundary == "" || line < 1 {
		return 0, 0, false
	}
	start = 0
	for n := 1; n < line; n++ {
		i := bytes.IndexByte(data[start:], '\n')
		if i < 0 {
			return 0, 0, false
		}
		start += i + 1
	}
	delim, closing := []byte("--"+boundary), []byte("--"+boundary+"--")
	for pos := start; pos < len(data); {
		next := len(data)
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			next = pos + i + 1
		}
		text := bytes.TrimSpace(data[pos:next])
		if bytes.Equal(text, delim) || bytes.Equal(text, closing) {
			end = pos
			if end > start && data[end-1] == '\n' {
				end--
				if end > start && data[end-1] == '\r' {
					end--
				}
			}
			return start, end, true
		}
		pos = next
	}
	return start, len(data), true
}

// encodeLike encodes text as a part body of the given encoding, laid out
// like the original body: same indentation, line length and line ends.
func encodeLike(text []byte, encoding string, orig []byte) []byte {
	payload := text
	if strings.HasSuffix(encoding, "gzip") {
		payload = gzipText(text)
	}
	return layoutLike(base64.StdEncoding.EncodeToString(payload), orig)
}

func gzipText(text []byte) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write(text) // a bytes.Buffer does not fail
	_ = zw.Close()
	return b.Bytes()
}

// layoutLike wraps encoded text the way orig is wrapped.
func layoutLike(encoded string, orig []byte) []byte {
	first, rest, multi := bytes.Cut(orig, []byte("\n"))
	eol := "\n"
	if bytes.HasSuffix(first, []byte("\r")) {
		eol = "\r\n"
	}
	first = bytes.TrimRight(first, "\r")
	indent := string(first[:len(first)-len(bytes.TrimLeft(first, " \t"))])
	width := len(first) - len(indent)
	var b strings.Builder
	if !multi || len(bytes.TrimSpace(rest)) == 0 || width < 4 {
		width = len(encoded) // one line
	}
	for len(encoded) > 0 {
		n := min(width, len(encoded))
		b.WriteString(indent + encoded[:n])
		encoded = encoded[n:]
		if len(encoded) > 0 {
			b.WriteString(eol)
		}
	}
	if bytes.HasSuffix(orig, []byte("\n")) {
		b.WriteString(eol)
	}
	return []byte(b.String())
}

// encodeBlob encodes the redacted text of a base64 blob again: gzip if it
// was compressed, then as many base64 layers as it had.
func encodeBlob(text []byte, encoding string, raw []byte) ([]byte, error) {
	layers := strings.Count(encoding, "base64")
	if layers == 0 {
		return nil, fmt.Errorf("%w: blob encoding %q is not text", ErrReencode, encoding)
	}
	payload := text
	if strings.HasSuffix(encoding, "gzip") {
		payload = gzipText(text)
	}
	for range layers - 1 {
		payload = []byte(base64.StdEncoding.EncodeToString(payload))
	}
	return layoutLike(base64.StdEncoding.EncodeToString(payload), raw), nil
}

// checkReencoded parses the rebuilt copy and makes sure it reads like the
// original: the blob encoding expected, and the same parts of the same
// kinds and encodings.
func checkReencoded(result []byte, encoding string, orig *userdata.UserData) error {
	got, err := userdata.Parse(result)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrReencode, err)
	}
	same := got.Encoding == encoding && got.MIME == orig.MIME && len(got.Parts) == len(orig.Parts)
	for i := 0; same && i < len(got.Parts); i++ {
		a, b := got.Parts[i], orig.Parts[i]
		same = a.Kind == b.Kind && a.MediaType == b.MediaType && a.Encoding == b.Encoding
	}
	if !same {
		return fmt.Errorf("%w: the rebuilt user data no longer parses like the original", ErrReencode)
	}
	return nil
}
