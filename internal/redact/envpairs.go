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
// and pretty-printed JSON (kubectl -o json, ECS task definitions) does the
// same with quoted keys:
//
//	{
//	  "name": "AWS_SECRET_ACCESS_KEY",
//	  "value": "<secret>"
//	}
//
// The secret word is in the name's value, and the secret on the next line,
// so no single-line rule sees both. The stream remembers a "name:" line
// (key bare or quoted, a trailing comma allowed after a quoted value) whose
// value passes sensitiveName, and on the next line redacts the value of a
// "value:" key at the same column. Only this order is handled (the one
// kubectl, client-go and the AWS APIs write): "value" before "name" on
// separate lines would mean holding a line back.
//
// A JSON object on one line, {"name":"X","value":"..."} in any key order,
// is the job of findJSONEnvPairs below.

// envValueLine splits a "value: <x>" line (key bare or quoted) into the
// indentation and the rest after the colon.
var envValueLine = regexp.MustCompile(`^([ \t]*)(?:value|"value"|'value')[ \t]*:[ \t]*([^ \t\r].*?)[ \t]*\r?$`)

// envNameColumn returns the column of the "name" key when line is a
// "name: <NAME>" list entry (key and NAME bare or quoted) whose NAME
// announces a secret, or -1. It runs on every line, so it is a plain scan.
func envNameColumn(line []byte) int {
	col := skipBlanks(line, 0)
	if col < len(line) && line[col] == '-' {
		if col = skipBlanks(line, col+1); col == 0 || line[col-1] != ' ' && line[col-1] != '\t' {
			return -1
		}
	}
	i := col
	if i < len(line) && (line[i] == '"' || line[i] == '\'') {
		if !hasPrefixAt(line, i+1, "name") || i+5 >= len(line) || line[i+5] != line[i] {
			return -1
		}
		i += 6
	} else {
		if !hasPrefixAt(line, i, "name") {
			return -1
		}
		i += len("name")
	}
	i = skipBlanks(line, i)
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
		i = skipBlanks(line, i+1)
		if i < len(line) && line[i] == ',' { // JSON: more keys follow
			i++
		}
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
// column col, without quotes, when it may be a secret. A quoted value ends
// at its closing quote, so the comma of a JSON object stays outside.
func envValueSpan(line []byte, col int) (start, end int, ok bool) {
	m := envValueLine.FindSubmatchIndex(line)
	if m == nil || m[3]-m[2] != col {
		return 0, 0, false
	}
	start, end = trimValue(line, m[4], m[5])
	if c := line[m[4]]; c == '"' || c == '\'' {
		if vs, ve, _ := quotedString(line, m[4]); ve < len(line) {
			start, end = vs, ve
		}
	}
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

// findJSONEnvPairs is a finder of the password-assignment rule. It looks
// for JSON objects with a "name" and a "value" string member, in either
// order and with other scalar members around them (Kubernetes env, ECS
// environment, CodeBuild variables), written plainly or escaped inside a
// JSON string (\"name\"), and returns, when the name announces a secret,
// the span from the first of the two keys to the end of the object and, as
// group 1, the value span:
//
//	{"name":"DB_PASSWORD","value":"<secret>"}
//	{"value": "<secret>", "name": "API_TOKEN"}
//
// The search starts at each "name" or "value" key rather than at '{', so
// a stray quote earlier on the line cannot make it read the pair as the
// inside of a string. From a key, members are read forwards to the end of
// the object, or to a member that is an object or an array (not a value:
// {"name":"X","valueFrom":{...}} has none). At most maxPairMembers members
// are read from one key, and keys already read from an earlier one are
// not read again, so long texts stay cheap.
func findJSONEnvPairs(text []byte) [][]int {
	var locs [][]int
	var read pairKeys // keys the last reading went through
	for off := 0; off < len(text); {
		i := bytes.IndexByte(text[off:], '"')
		if i < 0 {
			break
		}
		q := off + i
		off = q + 1
		escaped := q > 0 && text[q-1] == '\\'
		if !isPairKeyAt(text, q+1, escaped) {
			continue
		}
		start := q
		if escaped {
			start--
		}
		if read.has(start) {
			// Read as a key of the same object already: whatever follows
			// it was seen then.
			continue
		}
		locs = jsonText{text: text, escaped: escaped}.envPair(locs, start, &read)
	}
	return locs
}

// pairKeys records where the keys read from one key start.
type pairKeys struct {
	at [maxPairMembers]int
	n  int
}

func (k *pairKeys) has(i int) bool {
	for _, at := range k.at[:k.n] {
		if at == i {
			return true
		}
	}
	return false
}

// maxPairMembers bounds the members read from one key: env objects have
// two or three (name, value, type or valueFrom).
const maxPairMembers = 16

// isPairKeyAt reports whether text[i:] starts with name or value (any
// case) and the closing quote of a key (\" when escaped).
func isPairKeyAt(text []byte, i int, escaped bool) bool {
	for _, key := range []string{"name", "value"} {
		e := i + len(key)
		if e > len(text) || !bytes.EqualFold(text[i:e], []byte(key)) {
			continue
		}
		if escaped {
			return hasPrefixAt(text, e, `\"`)
		}
		return e < len(text) && text[e] == '"'
	}
	return false
}

// jsonText reads JSON written plainly, or escaped inside a JSON string, in
// which case every backslash pair stands for one character and a bare
// quote ends the text.
type jsonText struct {
	text    []byte
	escaped bool
}

// at returns the character at i and how many bytes of text it takes; a
// width of 0 means the JSON cannot go on there.
func (j jsonText) at(i int) (byte, int) {
	t := j.text
	if i >= len(t) {
		return 0, 0
	}
	c := t[i]
	if !j.escaped {
		return c, 1
	}
	switch {
	case c == '"':
		return 0, 0 // the string that holds the JSON ends
	case c != '\\':
		return c, 1
	case i+1 >= len(t):
		return 0, 0
	}
	switch t[i+1] {
	case 'n':
		return '\n', 2
	case 't':
		return '\t', 2
	case 'r':
		return '\r', 2
	case 'u':
		return 0x01, min(6, len(t)-i) // \uXXXX: a character with no meaning here
	}
	return t[i+1], 2
}

func (j jsonText) skipSpace(i int) int {
	for {
		c, w := j.at(i)
		if w == 0 || c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return i
		}
		i += w
	}
}

// str reads the string whose opening quote is at i. It returns the span
// of its contents and where the text goes on after the closing quote, or
// ok false when the string does not end.
func (j jsonText) str(i int) (cs, ce, after int, ok bool) {
	_, w := j.at(i)
	cs = i + w
	for k := cs; ; {
		c, w := j.at(k)
		switch {
		case w == 0:
			return cs, k, k, false
		case c == '\\':
			_, w2 := j.at(k + w)
			if w2 == 0 {
				return cs, k, k, false
			}
			k += w + w2
		case c == '"':
			return cs, k, k + w, true
		default:
			k += w
		}
	}
}

// envPair reads the members of an object from the key at text[start]
// onwards and appends a match for each value of a secret name/value pair
// to locs.
func (j jsonText) envPair(locs [][]int, start int, read *pairKeys) [][]int {
	name, values, end := j.pairMembers(start, read)
	if len(values) == 0 || len(name) == 0 || !hasSensitiveKeyword(name) || !sensitiveName(name) {
		return locs
	}
	for _, v := range values {
		if loc, ok := checkValue(j.text, start, v[0], v[1], end); ok {
			locs = append(locs, loc)
		}
	}
	return locs
}

// pairMembers reads members from the key at text[i]: up to the end of the
// object, the end of the text (a line cut short, or a line of
// pretty-printed JSON), a member that is an object or an array, or
// maxPairMembers members. Everything read so far belongs to one object,
// so it returns the string value of the last "name" key, the spans of the
// string values of "value" keys, and where reading stopped; read gets
// where the keys start.
func (j jsonText) pairMembers(i int, read *pairKeys) (name []byte, values [][2]int, end int) {
	read.n = 0
	for n := 0; n < maxPairMembers; n++ {
		c, w := j.at(i)
		if c != '"' {
			return name, values, i
		}
		read.at[n], read.n = i, n+1
		ks, ke, after, ok := j.str(i)
		if !ok {
			return name, values, i
		}
		i = j.skipSpace(after)
		if c, w = j.at(i); c != ':' {
			return name, values, i
		}
		i = j.skipSpace(i + w)
		key := j.text[ks:ke]
		switch c, w = j.at(i); {
		case w == 0 || c == '{' || c == '[':
			return name, values, i
		case c == '"':
			vs, ve, after, ok := j.str(i)
			switch {
			case bytes.EqualFold(key, []byte("name")):
				name = j.text[vs:ve]
			case bytes.EqualFold(key, []byte("value")):
				values = append(values, [2]int{vs, ve})
			}
			if !ok {
				// Cut short (a length limit): the rest may be the secret.
				return name, values, after
			}
			i = after
		default:
			for w > 0 && c != ',' && c != '}' && c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				i += w
				c, w = j.at(i)
			}
		}
		i = j.skipSpace(i)
		c, w = j.at(i)
		if c != ',' {
			if c == '}' {
				i += w
			}
			return name, values, i
		}
		i = j.skipSpace(i + w)
	}
	return name, values, i
}

// findGoEnvVars is a finder of the password-assignment rule for the form
// kubelet prints a container spec in when it fails to start one (the
// generated String method of the Kubernetes API types):
//
//	Env:[]EnvVar{EnvVar{Name:DB_PASSWORD,Value:<secret>,ValueFrom:nil,},...}
//
// Values are not quoted and may hold commas, so a value runs to the
// ",ValueFrom:" that always follows it (or to the end of a text cut short).
func findGoEnvVars(text []byte) [][]int {
	const head, valueKey, next = "EnvVar{Name:", ",Value:", ",ValueFrom:"
	var locs [][]int
	for off := 0; off < len(text); {
		i := bytes.Index(text[off:], []byte(head))
		if i < 0 {
			break
		}
		start := off + i
		ns := start + len(head)
		off = ns
		ne := ns
		for ne < len(text) && isNameByte(text[ne]) {
			ne++
		}
		if !hasPrefixAt(text, ne, valueKey) {
			continue
		}
		name := text[ns:ne]
		if !hasSensitiveKeyword(name) || !sensitiveName(name) {
			continue
		}
		vs := ne + len(valueKey)
		ve, end := len(text), len(text)
		if j := bytes.Index(text[vs:], []byte(next)); j >= 0 {
			ve, end = vs+j, vs+j+len(next)
		}
		if loc, ok := checkValue(text, start, vs, ve, end); ok {
			locs = append(locs, loc)
			off = ve
		}
	}
	return locs
}
