package redact

import (
	"bytes"
	"regexp"
)

// Kubernetes and kubeconfig write environments as lists of name/value
// pairs, one key per line:
//
//	env:
//	  - name: AWS_SECRET_ACCESS_KEY
//	    value: <secret>
//
// The secret word is in the name's value, and the secret on the next line,
// so no single-line rule sees both. The stream remembers a "name:" line
// whose value passes sensitiveName, and on the next line redacts the value
// of a "value:" key at the same column. Only this order is handled (the one
// kubectl and client-go write); a JSON object on one line is not.

var envValueLine = regexp.MustCompile(`^([ \t]*)value[ \t]*:[ \t]*([^ \t\r].*?)[ \t]*\r?$`)

// envNameColumn returns the column of the "name" key when line is a
// "name: <NAME>" list entry (NAME bare or quoted) whose NAME announces a
// secret, or -1. It runs on every line, so it is a plain scan.
func envNameColumn(line []byte) int {
	col := skipBlanks(line, 0)
	if col < len(line) && line[col] == '-' {
		if col = skipBlanks(line, col+1); col == 0 || line[col-1] != ' ' && line[col-1] != '\t' {
			return -1
		}
	}
	if !hasPrefixAt(line, col, "name") {
		return -1
	}
	i := skipBlanks(line, col+len("name"))
	if i >= len(line) || line[i] != ':' {
		return -1
	}
	i = skipBlanks(line, i+1)
	var quote byte
	if i < len(line) && (line[i] == '"' || line[i] == '\'') {
		quote = line[i]
		i++
	}
	start := i
	for i < len(line) && (isNameByte(line[i]) && (i > start || !isDigit(line[i]) && line[i] != '.' && line[i] != '-')) {
		i++
	}
	name := line[start:i]
	if quote != 0 {
		if i >= len(line) || line[i] != quote {
			return -1
		}
		i++
	}
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
		i++
	}
	if len(name) == 0 || i != len(line) || !hasSensitiveKeyword(name) || !sensitiveName(name) {
		return -1
	}
	return col
}

// hasSensitiveKeyword is a cheap test that sensitiveName can only pass:
// the name holds one of sensitiveKeywords, ignoring case.
func hasSensitiveKeyword(name []byte) bool {
	var buf [128]byte
	if len(name) > len(buf) {
		return false // sensitiveName refuses such names too
	}
	lower := appendLowerASCII(buf[:0], name)
	for _, kw := range sensitiveKeywords {
		if bytes.Contains(lower, []byte(kw)) {
			return true
		}
	}
	return false
}

// envValueSpan returns the value of a "value: <x>" line whose key is at
// column col, without quotes, when it may be a secret.
func envValueSpan(line []byte, col int) (start, end int, ok bool) {
	m := envValueLine.FindSubmatchIndex(line)
	if m == nil || m[3]-m[2] != col {
		return 0, 0, false
	}
	start, end = trimValue(line, m[4], m[5])
	if start >= end {
		return 0, 0, false
	}
	v := line[start:end]
	if v[0] == '|' || v[0] == '>' || v[0] == '&' || v[0] == '*' || isPlaceholder(v) || isPathLike(v) {
		return 0, 0, false
	}
	return start, end, true
}

// redactEnvPair looks at the line just redacted into out[start:]: it
// redacts the value of a pair announced by the previous line, then
// remembers whether this line announces one. Markers already in the value
// are kept, so a second pass changes nothing.
func (s *redactStream) redactEnvPair(out []byte, start int) []byte {
	line := out[start:]
	col := s.envIndent
	s.envIndent = envNameColumn(line)
	if col < 0 {
		return out
	}
	vs, ve, ok := envValueSpan(line, col)
	if !ok {
		return out
	}
	buf := append(s.envBuf[:0], line[:vs]...)
	buf, replaced := appendMasked(buf, line, vs, ve, s.r.markerSpans(line), s.r.envMarker)
	buf = append(buf, line[ve:]...)
	s.envBuf = buf
	if replaced {
		s.counts[s.r.envRule]++
	}
	return append(out[:start], buf...)
}
