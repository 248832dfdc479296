package redact

import (
	"bytes"
	"slices"
)

// findAssignments is the finder of the password-assignment rule. It looks
// for sensitive key names (see sensitiveName) and, for each, parses the
// forms in which a value can follow:
//
//	"name": "value"   'name': 'value'   \"name\": \"value\"   "name" => "value"
//	name=value  name="a b"  --name=value  export NAME=value  (one token or a quoted string)
//	name = rest of line           (ini, toml: blanks around '=' at the line start)
//	name: value                   (YAML at a key start: line start, "- ", "prog[pid]: ", "\n")
//	{name: value, other: x}       (YAML flow mappings)
//	-H 'Name: value'              (curl headers)
//	--name value                  (flags)
//	{Name:value}                  (Go's %+v)
//
// It works in one pass over the candidates, in linear time, so long texts
// stay cheap. Each result holds the match span and, as group 1, the value
// span to replace, already checked by checkValue.
func findAssignments(text []byte) [][]int {
	lower := appendLowerASCII(nil, text)
	var locs [][]int
	last := 0
	for _, c := range assignmentCandidates(text, lower) {
		if c[0] < last || !sensitiveName(text[c[0]:c[1]]) {
			continue
		}
		if loc, ok := parseAssignment(text, c[0], c[1]); ok {
			if loc, ok = credsPassword(text, c[0], c[1], loc); ok {
				locs = append(locs, loc)
			}
			last = loc[1]
		}
	}
	return locs
}

// credsPassword narrows the value of a flag that takes "user:password"
// (--creds, --src-creds, --dest-creds of crictl, podman, buildah and
// skopeo) to the password: the user stays, it helps diagnosis ("AWS" says
// it was an ECR token). A password that is a reference ($VAR, $(cmd ...))
// is not a secret, and the match is dropped. Other names, and values
// without a plausible user, are returned as they are.
func credsPassword(text []byte, ns, ne int, loc []int) ([]int, bool) {
	name := text[ns:ne]
	if name[0] != '-' || !(hasSuffixFold(name, "creds") || hasSuffixFold(name, "credentials")) {
		return loc, true
	}
	v := text[loc[2]:loc[3]]
	colon, ok := userPasswordColon(v)
	if !ok || colon == 0 || v[colon+1] == '/' {
		return loc, true
	}
	if isReference(v[colon+1:]) {
		return loc, false
	}
	return []int{loc[0], loc[1], loc[2] + colon + 1, loc[3]}, true
}

func hasSuffixFold(b []byte, suffix string) bool {
	return len(b) >= len(suffix) && bytes.EqualFold(b[len(b)-len(suffix):], []byte(suffix))
}

// assignmentCandidates returns the spans of names around keyword
// occurrences, sorted and without repeats.
func assignmentCandidates(text, lower []byte) [][2]int {
	var cands [][2]int
	for _, kw := range sensitiveKeywords {
		for off := 0; off < len(lower); {
			i := bytes.Index(lower[off:], []byte(kw))
			if i < 0 {
				break
			}
			start, end := nameAround(text, off+i, off+i+len(kw))
			cands = append(cands, [2]int{start, end})
			off = end
		}
	}
	slices.SortFunc(cands, func(a, b [2]int) int { return a[0] - b[0] })
	return slices.Compact(cands)
}

// nameAround widens text[start:end] to the whole key name, leaving out an
// escaped newline ("\n") just before it.
func nameAround(text []byte, start, end int) (int, int) {
	kwStart := start
	for start > 0 && isNameByte(text[start-1]) {
		start--
	}
	for end < len(text) && isNameByte(text[end]) {
		end++
	}
	if start > 0 && text[start-1] == '\\' && text[start] == 'n' && start < kwStart {
		start++
	}
	return start, end
}

// Forms of "name <separator> value", told apart by assignmentForms so a
// gate can say which matchers may find something.
const (
	formEq       uint64 = 1 << iota // name=value, "name"=value, name = value
	formQuoted                      // "name": "value", 'name': 'value', \"name\": \"value\"
	formYAML                        // name: value at a YAML key start
	formCurl                        // -H 'Name: value'
	formFlag                        // --name value
	formGoStruct                    // {Name:value}
)

// sensitiveAssignmentGate lets findAssignments run only where a sensitive
// key name is in one of the assignment forms. Most lines that merely
// mention a token or a key ("failed to get token: ...", klog's
// key="ns/name") stop here, before any allocation. It must accept every
// text in which findAssignments finds something.
var sensitiveAssignmentGate = &gate{name: "sensitive-assignment", keywords: sensitiveKeywords, check: func(text, lower []byte) uint64 {
	return scanAssignments(text, lower, sensitiveKeywords, sensitiveName)
}}

// kubeconfigGate does the same for the kubeconfig credential names and
// their expressions.
var kubeconfigGate = &gate{name: "kubeconfig-credential", keywords: kubeconfigKeywords, check: func(text, lower []byte) uint64 {
	return scanAssignments(text, lower, kubeconfigKeywords, isKubeconfigCredentialName)
}}

var kubeconfigKeywords = []string{"token", "client-key-data", "client-certificate-data"}

func isKubeconfigCredentialName(name []byte) bool {
	switch string(name) {
	case "token", "client-key-data", "client-certificate-data", "id-token", "refresh-token", "access-token":
		return true
	}
	return false
}

// scanAssignments finds the names around each keyword occurrence and
// returns the forms in which accepted names are assigned a value.
func scanAssignments(text, lower []byte, keywords []string, accept func(name []byte) bool) uint64 {
	var forms uint64
	for _, kw := range keywords {
		for off := 0; off < len(lower); {
			i := bytes.Index(lower[off:], []byte(kw))
			if i < 0 {
				break
			}
			start, end := nameAround(text, off+i, off+i+len(kw))
			if f := assignmentForms(text, start, end); f != 0 && accept(text[start:end]) {
				forms |= f
			}
			off = end
		}
	}
	return forms
}

func isNameByte(c byte) bool {
	return isASCIIAlnum(c) || c == '_' || c == '.' || c == '-'
}

// assignmentForms tells how the name text[start:end] is given a value,
// from what surrounds it (see the form constants); 0 means it is not.
func assignmentForms(text []byte, start, end int) uint64 {
	i := end
	for i < len(text) && i < end+2 && (text[i] == '"' || text[i] == '\\' || text[i] == '\'') {
		i++
	}
	j := i
	for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
		j++
	}
	if j >= len(text) {
		return 0
	}
	switch text[j] {
	case '=':
		return formEq
	case ':':
		return colonForms(text, start, end, j)
	case ',':
		if text[start] == '-' {
			return formFlag // an argument list: '--flag', 'value'
		}
	}
	if j > i && text[start] == '-' {
		return formFlag
	}
	return 0
}

func colonForms(text []byte, start, end, colon int) uint64 {
	var forms uint64
	keyStart := start
	if start > 0 && (text[start-1] == '"' || text[start-1] == '\'') {
		keyStart = start - 1
		if keyStart > 0 && text[keyStart-1] == '\\' {
			keyStart--
		}
		v := colon + 1
		for v < len(text) && (text[v] == ' ' || text[v] == '\t') {
			v++
		}
		if v < len(text) && (text[v] == '"' || text[v] == '\'' || text[v] == '\\') {
			forms |= formQuoted
		}
		if k := skipBlanksBack(text, start-1); k >= 2 && text[k-2] == '-' && text[k-1] == 'H' {
			forms |= formCurl
		}
	}
	if colon == end && colon+1 < len(text) && text[colon+1] != ' ' && text[colon+1] != '\t' {
		forms |= formGoStruct
	}
	if atYAMLKeyStart(text, keyStart) {
		forms |= formYAML
	}
	return forms
}

// atYAMLKeyStart reports whether only indentation, a list dash, or one of
// the prefixes of yamlKeyStart (and flow mappings) comes before start.
func atYAMLKeyStart(text []byte, start int) bool {
	k := skipBlanksBack(text, start)
	if k > 0 && text[k-1] == '-' {
		k = skipBlanksBack(text, k-1)
	}
	if k == 0 {
		return true
	}
	switch text[k-1] {
	case '{', ',':
		return true
	case ':':
		return k >= 2 && text[k-2] == ']'
	case 'n':
		return k >= 2 && text[k-2] == '\\'
	}
	return false
}

func skipBlanksBack(text []byte, i int) int {
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	return i
}

func parseAssignment(text []byte, ns, ne int) ([]int, bool) {
	if ns > 0 && (text[ns-1] == '"' || text[ns-1] == '\'') {
		if loc, ok := quotedNameAssignment(text, ns, ne); ok {
			return loc, true
		}
	}
	if loc, ok := equalsAssignment(text, ns, ne); ok {
		return loc, true
	}
	if loc, ok := colonAssignment(text, ns, ne); ok {
		return loc, true
	}
	return flagAssignment(text, ns, ne)
}

// quotedNameAssignment handles "name": "value", "name" => "value",
// \"name\": \"value\" and "name": value at a YAML key start.
func quotedNameAssignment(text []byte, ns, ne int) ([]int, bool) {
	q := text[ns-1]
	open := ns - 1
	escaped := q == '"' && open > 0 && text[open-1] == '\\'
	i := ne
	switch {
	case escaped && hasPrefixAt(text, i, `\"`):
		open--
		i += 2
	case i < len(text) && text[i] == q:
		i++
	default:
		return nil, false
	}
	j := skipBlanks(text, i)
	if j >= len(text) || (text[j] != ':' && text[j] != '=') {
		return nil, false
	}
	sep := text[j]
	j++
	if sep == '=' && j < len(text) && text[j] == '>' {
		j++
	}
	k := skipBlanks(text, j)
	switch {
	case k >= len(text):
		return nil, false
	case escaped:
		if !hasPrefixAt(text, k, `\"`) {
			return nil, false
		}
		return escapedQuotedValue(text, open, k)
	case text[k] == '"' || text[k] == '\'':
		vs, ve, end := quotedString(text, k)
		return checkValue(text, open, vs, ve, end)
	case sep == '=':
		return tokenValue(text, open, k)
	case k > j && atYAMLKeyStart(text, open):
		return yamlValue(text, open, k)
	}
	return nil, false
}

// equalsAssignment handles name=value anywhere and name = value (rest of the
// line) at the start of a line.
func equalsAssignment(text []byte, ns, ne int) ([]int, bool) {
	i := ne
	if i < len(text) && text[i] == '\\' {
		i++
	}
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		i++
	}
	j := skipBlanks(text, i)
	if j >= len(text) || text[j] != '=' || (j+1 < len(text) && text[j+1] == '=') {
		return nil, false
	}
	k := skipBlanks(text, j+1)
	if k >= len(text) {
		return nil, false
	}
	spaced := j > i || k > j+1
	if spaced && i == ne && skipBlanksBack(text, ns) == 0 && text[k] != '=' {
		return checkValue(text, ns, k, lineEnd(text, k), lineEnd(text, k))
	}
	if k > j+1 && text[k] == '-' {
		// "NAME= --flag value": NAME is empty and the next word is a flag,
		// whose own value the flag form must see.
		return nil, false
	}
	if text[k] == '"' || text[k] == '\'' {
		vs, ve, end := quotedString(text, k)
		return checkValue(text, ns, vs, ve, end)
	}
	if hasPrefixAt(text, k, `\"`) {
		// name = \"value\" inside a JSON string (a TOML file nodeadm
		// logs or caches as JSON).
		return escapedQuotedValue(text, ns, k)
	}
	if ve, ok := elementEnd(text, ns, k); ok {
		return checkValue(text, ns, k, ve, ve)
	}
	return tokenValue(text, ns, k)
}

// elementEnd handles NAME=value as a string of a JSON or Python list, as
// container runtimes print environments ("Env": ["A=1", "API_TOKEN=a b"],
// and the same escaped inside a JSON string): the value runs to the
// string's closing quote, blanks included. The name at ns must open the
// string, and the string must be a list element (after '[', ',', an
// escaped newline, or at the start of a line). It returns where the value
// ends.
func elementEnd(text []byte, ns, k int) (int, bool) {
	if ns == 0 || (text[ns-1] != '"' && text[ns-1] != '\'') || bytes.IndexByte([]byte("=&\"'\\"), text[k]) >= 0 || isSpace(text[k]) {
		return 0, false
	}
	q := text[ns-1]
	open := ns - 1
	escaped := q == '"' && open > 0 && text[open-1] == '\\'
	if escaped {
		open--
	}
	b := skipBlanksBack(text, open)
	if b > 0 && text[b-1] != '[' && text[b-1] != ',' && !(text[b-1] == 'n' && b >= 2 && text[b-2] == '\\') {
		return 0, false
	}
	if escaped {
		if end := bytes.Index(text[k:], []byte(`\"`)); end >= 0 {
			return k + end, true
		}
		return len(text), true
	}
	for e := k; e < len(text); e++ {
		switch text[e] {
		case '\\':
			e++
		case q:
			return e, true
		}
	}
	return len(text), true
}

// escapedQuotedValue reads a value written as \"value\" starting at k.
func escapedQuotedValue(text []byte, start, k int) ([]int, bool) {
	end := bytes.Index(text[k+2:], []byte(`\"`))
	if end < 0 {
		return checkValue(text, start, k+2, len(text), len(text))
	}
	return checkValue(text, start, k+2, k+2+end, k+4+end)
}

// tokenValue reads one token: no blanks, quotes, '&' (query strings) or
// backslashes (escaped JSON around it), and not starting with '='.
func tokenValue(text []byte, start, k int) ([]int, bool) {
	if bytes.IndexByte([]byte("=&\"'\\"), text[k]) >= 0 || isSpace(text[k]) {
		return nil, false
	}
	ve := k
	for ve < len(text) && !isSpace(text[ve]) && bytes.IndexByte([]byte("&\"'\\"), text[ve]) < 0 {
		ve++
	}
	return checkValue(text, start, k, ve, ve)
}

// colonAssignment handles {Name:value}, -H 'Name: value' and name: value
// at a YAML key start.
func colonAssignment(text []byte, ns, ne int) ([]int, bool) {
	if ne+1 < len(text) && text[ne] == ':' && !isSpace(text[ne+1]) && isUpper(text[ns]) &&
		(ns == 0 || text[ns-1] == '{' || text[ns-1] == ' ') {
		return goFieldValue(text, ns, ne+1)
	}
	j := skipBlanks(text, ne)
	if j >= len(text) || text[j] != ':' {
		return nil, false
	}
	k := skipBlanks(text, j+1)
	if k >= len(text) {
		return nil, false
	}
	if ns > 0 && (text[ns-1] == '\'' || text[ns-1] == '"') {
		if b := skipBlanksBack(text, ns-1); b >= 2 && text[b-2] == '-' && text[b-1] == 'H' {
			end := bytes.IndexByte(text[k:], text[ns-1])
			if end < 0 {
				return checkValue(text, ns, k, len(text), len(text))
			}
			return checkValue(text, ns, k, k+end, k+end+1)
		}
	}
	if k > j+1 && atYAMLKeyStart(text, ns) {
		return yamlValue(text, ns, k)
	}
	return nil, false
}

func goFieldValue(text []byte, ns, k int) ([]int, bool) {
	if bytes.IndexByte([]byte("{}[]\"'"), text[k]) >= 0 {
		return nil, false
	}
	ve := k
	for ve < len(text) && !isSpace(text[ve]) && text[ve] != '{' && text[ve] != '}' {
		ve++
	}
	return checkValue(text, ns, k, ve, ve)
}

// yamlValue reads a YAML scalar: a quoted string, or plain text to the end
// of the line (or to an escaped newline), or in a flow mapping to the next
// ',' or '}'. Block scalars (| >), anchors, aliases, tags and nested
// collections are not values.
func yamlValue(text []byte, start, k int) ([]int, bool) {
	c := text[k]
	if c == '"' || c == '\'' {
		vs, ve, end := quotedString(text, k)
		return checkValue(text, start, vs, ve, end)
	}
	if bytes.IndexByte([]byte("#|>{[&*!\\,}"), c) >= 0 {
		return nil, false
	}
	ve := k
	if flowContext(text, start) {
		for ve < len(text) && text[ve] != ',' && text[ve] != '}' && text[ve] != '\r' && text[ve] != '\n' {
			ve++
		}
		return checkValue(text, start, k, ve, ve)
	}
	for ve < len(text) && text[ve] != '\r' && text[ve] != '\n' && !hasPrefixAt(text, ve, `\n`) {
		ve++
	}
	return checkValue(text, start, k, ve, ve)
}

// flagAssignment handles --name value (and -name value), and the same in
// argument lists: '--name', 'value' (Python, JSON) or --name, value (YAML
// flow sequences).
func flagAssignment(text []byte, ns, ne int) ([]int, bool) {
	if text[ns] != '-' || (ns > 0 && !isSpace(text[ns-1]) && text[ns-1] != '"' && text[ns-1] != '\'') {
		return nil, false
	}
	k := skipBlanks(text, ne)
	listed := false
	if k == ne {
		next, ok := nextListElement(text, ns, ne)
		if !ok {
			return nil, false
		}
		k, listed = next, true
	}
	if k >= len(text) {
		return nil, false
	}
	if text[k] == '"' || text[k] == '\'' {
		vs, ve, end := quotedString(text, k)
		return checkValue(text, ns, vs, ve, end)
	}
	if listed && hasPrefixAt(text, k, `\"`) {
		return escapedQuotedValue(text, ns, k) // a JSON list inside a JSON string
	}
	if text[k] == '-' || text[k] == '\\' {
		return nil, false
	}
	ve := k
	for ve < len(text) && !isSpace(text[ve]) && text[ve] != '"' && text[ve] != '\'' && text[ve] != '\\' &&
		!(listed && (text[ve] == ',' || text[ve] == ']')) {
		ve++
	}
	return checkValue(text, ns, k, ve, ve)
}

// nextListElement returns where the element after a flag (ending at ne)
// starts when the flag is an element of an argument list: its closing
// quote (or \" in a list escaped inside a JSON string), if it has one,
// then a comma.
func nextListElement(text []byte, ns, ne int) (int, bool) {
	i := ne
	switch {
	case ns > 1 && text[ns-1] == '"' && text[ns-2] == '\\' && hasPrefixAt(text, i, `\"`):
		i += 2 // [\"--flag\", \"value\"] inside a JSON string
	case ns > 0 && (text[ns-1] == '"' || text[ns-1] == '\'') && i < len(text) && text[i] == text[ns-1]:
		i++
	}
	i = skipBlanks(text, i)
	if i >= len(text) || text[i] != ',' {
		return 0, false
	}
	return skipBlanks(text, i+1), true
}

// quotedString reads a string opened by the quote at text[k], with
// backslash escapes. It returns the inside and the end after the closing
// quote. An unterminated string runs to the end of the text, so a value
// cut short by a length limit is still hidden.
func quotedString(text []byte, k int) (vs, ve, end int) {
	q := text[k]
	for i := k + 1; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++
		case q:
			return k + 1, i, i + 1
		}
	}
	return k + 1, len(text), len(text)
}

// checkValue trims the value span and rejects values that are not
// secrets; it returns the match span (start to end) and the value span.
func checkValue(text []byte, start, vs, ve, end int) ([]int, bool) {
	vs, ve = trimValue(text, vs, min(ve, len(text)))
	if vs >= ve || isPlaceholder(text[vs:ve]) || isPathLike(text[vs:ve]) {
		return nil, false
	}
	return []int{start, max(end, ve), vs, ve}, true
}

// flowContext reports a key inside a YAML flow mapping ('{' or ',' before
// it).
func flowContext(text []byte, start int) bool {
	k := skipBlanksBack(text, start)
	return k > 0 && (text[k-1] == '{' || text[k-1] == ',')
}

func skipBlanks(text []byte, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i
}

func lineEnd(text []byte, i int) int {
	for i < len(text) && text[i] != '\r' && text[i] != '\n' {
		i++
	}
	return i
}

func hasPrefixAt(text []byte, i int, prefix string) bool {
	return i >= 0 && i <= len(text) && bytes.HasPrefix(text[i:], []byte(prefix))
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
