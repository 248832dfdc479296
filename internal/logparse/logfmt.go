package logparse

import (
	"strings"
	"unicode/utf8"
)

// logfmt reads key=value lines as containerd (logrus) writes them:
// time="2026-11-29T14:26:31.123456789Z" level=error msg="..." error="...".
// Text is the unquoted message followed by the other pairs as written,
// `failed to pull image error="..." image="..."`. The line must start with
// a pair and hold a level or a msg.
func (p *parser) logfmt(rec *Record, b []byte) bool {
	f, ok := scanLogfmt(b)
	if !ok {
		return false
	}
	if f.level.end > 0 {
		rec.Level = levelFromWord(unquoted(b, f.level))
	}
	if f.time.end > 0 {
		if t, n, _, ok := isoAt(unquoted(b, f.time), 0, "T ", p.loc); ok && n == len(unquoted(b, f.time)) {
			refineTime(rec, t)
		}
	}
	rec.Text = logfmtText(b, f)
	return true
}

// logfmtPair is one key=value; value includes its quotes when quoted.
type logfmtPair struct {
	key, value span
}

type logfmtScanner struct {
	b []byte
	i int
	// rest is where the text stopped being pairs; -1 while it still is.
	rest int
}

func (s *logfmtScanner) next() (logfmtPair, bool) {
	b := s.b
	i := skipSpaces(b, s.i)
	if i >= len(b) || s.rest >= 0 {
		return logfmtPair{}, false
	}
	keyEnd := i
	for keyEnd < len(b) && isLogfmtKeyByte(b[keyEnd]) {
		keyEnd++
	}
	if keyEnd == i || keyEnd >= len(b) || b[keyEnd] != '=' {
		s.rest = i
		return logfmtPair{}, false
	}
	v := keyEnd + 1
	end := v
	if v < len(b) && b[v] == '"' {
		var ok bool
		end, ok = scanQuoted(b, v)
		if !ok {
			s.rest = i
			return logfmtPair{}, false
		}
	} else {
		end = fieldEnd(b, v)
	}
	s.i = end
	return logfmtPair{key: span{i, keyEnd}, value: span{v, end}}, true
}

func isLogfmtKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '-' || c == '.' || c == '/'
}

// scanQuoted takes b[i] == '"' and returns the index after the closing quote.
func scanQuoted(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1, true
		case '\\':
			j++
		}
	}
	return len(b), false
}

type logfmtFields struct {
	time, level, msg span
	extrasBytes      int
}

func scanLogfmt(b []byte) (logfmtFields, bool) {
	var f logfmtFields
	s := logfmtScanner{b: b, rest: -1}
	pairs := 0
	for {
		pair, ok := s.next()
		if !ok {
			break
		}
		pairs++
		switch string(b[pair.key.start:pair.key.end]) {
		case "time", "ts":
			f.time = pair.value
		case "level", "lvl":
			f.level = pair.value
		case "msg":
			f.msg = pair.value
		default:
			f.extrasBytes += pair.value.end - pair.key.start + 1
		}
	}
	if pairs == 0 || f.level.end == 0 && f.msg.end == 0 {
		return f, false
	}
	if s.rest >= 0 {
		f.extrasBytes += len(b) - s.rest + 1
	}
	return f, true
}

// unquoted returns a value without its quotes (escapes left in place).
func unquoted(b []byte, sp span) []byte {
	v := b[sp.start:sp.end]
	if len(v) >= 2 && v[0] == '"' {
		return v[1 : len(v)-1]
	}
	return v
}

func logfmtText(b []byte, f logfmtFields) string {
	var sb strings.Builder
	sb.Grow(f.msg.end - f.msg.start + f.extrasBytes + 1)
	if msg := b[f.msg.start:f.msg.end]; len(msg) >= 2 && msg[0] == '"' {
		writeGoUnquoted(&sb, msg[1:len(msg)-1])
	} else {
		sb.Write(msg)
	}
	s := logfmtScanner{b: b, rest: -1}
	for {
		pair, ok := s.next()
		if !ok {
			break
		}
		switch string(b[pair.key.start:pair.key.end]) {
		case "time", "ts", "level", "lvl", "msg":
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.Write(b[pair.key.start:pair.value.end])
	}
	if s.rest >= 0 {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.Write(b[s.rest:])
	}
	return sb.String()
}

// writeGoUnquoted writes the contents of a Go-quoted string (as logrus
// writes with %q) with its escapes decoded.
func writeGoUnquoted(sb *strings.Builder, s []byte) {
	for i := 0; i < len(s); {
		if s[i] != '\\' || i+1 >= len(s) {
			sb.WriteByte(s[i])
			i++
			continue
		}
		r, raw, isRune, next := goEscape(s, i)
		i = next
		if isRune {
			var buf [utf8.UTFMax]byte
			sb.Write(utf8.AppendRune(buf[:0], r))
		} else {
			sb.WriteByte(raw)
		}
	}
}

// goEscape decodes the Go escape at s[i] == '\\'. Escapes it does not know
// are kept as they are (the backslash is returned as a raw byte).
func goEscape(s []byte, i int) (r rune, raw byte, isRune bool, next int) {
	switch c := s[i+1]; c {
	case '"', '\\', '\'':
		return 0, c, false, i + 2
	case 'n':
		return 0, '\n', false, i + 2
	case 't':
		return 0, '\t', false, i + 2
	case 'r':
		return 0, '\r', false, i + 2
	case 'a':
		return 0, '\a', false, i + 2
	case 'b':
		return 0, '\b', false, i + 2
	case 'f':
		return 0, '\f', false, i + 2
	case 'v':
		return 0, '\v', false, i + 2
	case 'x':
		if v, ok := hexN(s, i+2, 2); ok {
			return 0, byte(v), false, i + 4
		}
	case 'u':
		if v, ok := hexN(s, i+2, 4); ok {
			return rune(v), 0, true, i + 6
		}
	case 'U':
		if v, ok := hexN(s, i+2, 8); ok && v <= utf8.MaxRune {
			return rune(v), 0, true, i + 10
		}
	case '0', '1', '2', '3':
		if v, ok := octal3(s, i+1); ok {
			return 0, v, false, i + 4
		}
	}
	return 0, '\\', false, i + 1
}

func hexN(s []byte, i, n int) (uint32, bool) {
	if i+n > len(s) {
		return 0, false
	}
	var v uint32
	for _, c := range s[i : i+n] {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | uint32(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | uint32(c-'a'+10)
		case 'A' <= c && c <= 'F':
			v = v<<4 | uint32(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// octal3 reads the three octal digits of an escape like \101.
func octal3(s []byte, i int) (byte, bool) {
	if i+3 > len(s) {
		return 0, false
	}
	var v byte
	for _, c := range s[i : i+3] {
		if c < '0' || c > '7' {
			return 0, false
		}
		v = v<<3 | (c - '0')
	}
	return v, true
}
