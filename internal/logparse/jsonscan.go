package logparse

import (
	"unicode/utf16"
	"unicode/utf8"
)

// A small JSON reader for one flat object per line. It finds the spans of
// the top-level members without decoding values it does not need and
// without allocating. It is lenient: it only needs to be right for valid
// JSON and must never panic on anything else.

// span is a half-open range of bytes of the line.
type span struct{ start, end int }

// jsonMember is one "key": value pair; key includes its quotes.
type jsonMember struct {
	key, value span
	keyEscaped bool
}

// jsonObject walks the members of the object that starts at b[0].
type jsonObject struct {
	b   []byte
	i   int
	bad bool
}

func newJSONObject(b []byte) (jsonObject, bool) {
	if len(b) == 0 || b[0] != '{' {
		return jsonObject{}, false
	}
	return jsonObject{b: b, i: 1}, true
}

// next returns the next member; ok is false at the end of the object or
// when the input stops making sense (then o.bad is set).
func (o *jsonObject) next() (m jsonMember, ok bool) {
	if o.bad {
		return m, false
	}
	b := o.b
	i := skipJSONSpace(b, o.i)
	if i < len(b) && b[i] == ',' {
		i = skipJSONSpace(b, i+1)
	}
	if i >= len(b) {
		o.bad = true
		return m, false
	}
	if b[i] == '}' {
		o.i = i + 1
		return m, false
	}
	if b[i] != '"' {
		o.bad = true
		return m, false
	}
	end, escaped, ok := scanJSONString(b, i)
	if !ok {
		o.bad = true
		return m, false
	}
	m.key, m.keyEscaped = span{i, end}, escaped
	i = skipJSONSpace(b, end)
	if i >= len(b) || b[i] != ':' {
		o.bad = true
		return m, false
	}
	i = skipJSONSpace(b, i+1)
	end, ok = scanJSONValue(b, i)
	if !ok {
		o.bad = true
		return m, false
	}
	m.value = span{i, end}
	o.i = end
	return m, true
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanJSONString takes b[i] == '"' and returns the index after the closing
// quote and whether the string holds escapes.
func scanJSONString(b []byte, i int) (end int, escaped, ok bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1, escaped, true
		case '\\':
			escaped = true
			j++
		}
	}
	return len(b), escaped, false
}

// scanJSONValue returns the index after the value that starts at b[i].
// Objects and arrays are skipped by counting brackets outside strings.
func scanJSONValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		end, _, ok := scanJSONString(b, i)
		return end, ok
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _, ok := scanJSONString(b, j)
				if !ok {
					return len(b), false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return len(b), false
	}
	j := i
	for j < len(b) && !isJSONDelimiter(b[j]) {
		j++
	}
	return j, j > i
}

func isJSONDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r', '"', '{', '[':
		return true
	}
	return false
}

// jsonChar steps through the contents of a JSON string (without quotes).
// At s[i] it returns either a decoded rune (isRune) or a raw byte to copy,
// and the index of the next step.
func jsonChar(s []byte, i int) (r rune, raw byte, isRune bool, next int) {
	if s[i] != '\\' || i+1 >= len(s) {
		return 0, s[i], false, i + 1
	}
	switch c := s[i+1]; c {
	case '"', '\\', '/':
		return 0, c, false, i + 2
	case 'b':
		return 0, '\b', false, i + 2
	case 'f':
		return 0, '\f', false, i + 2
	case 'n':
		return 0, '\n', false, i + 2
	case 'r':
		return 0, '\r', false, i + 2
	case 't':
		return 0, '\t', false, i + 2
	case 'u':
		r1, ok := hex4(s, i+2)
		if !ok {
			return 0, s[i], false, i + 1
		}
		next = i + 6
		if !utf16.IsSurrogate(r1) {
			return r1, 0, true, next
		}
		if next+1 < len(s) && s[next] == '\\' && s[next+1] == 'u' {
			if r2, ok := hex4(s, next+2); ok {
				if r := utf16.DecodeRune(r1, r2); r != utf8.RuneError {
					return r, 0, true, next + 6
				}
			}
		}
		return utf8.RuneError, 0, true, next
	}
	return 0, s[i], false, i + 1
}

func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// smallJSONString decodes a short JSON string (quotes included in sp) into
// buf, for comparing keys and level words. Longer strings give nil.
func smallJSONString(b []byte, sp span, escaped bool, buf *[32]byte) []byte {
	if sp.end-sp.start < 2 {
		return nil
	}
	inner := b[sp.start+1 : sp.end-1]
	if !escaped {
		return inner
	}
	out := buf[:0]
	for i := 0; i < len(inner); {
		r, raw, isRune, next := jsonChar(inner, i)
		i = next
		if !isRune {
			if len(out) == len(buf) {
				return nil
			}
			out = append(out, raw)
			continue
		}
		if len(out)+utf8.RuneLen(r) > len(buf) {
			return nil
		}
		out = utf8.AppendRune(out, r)
	}
	return out
}
