package userdata

import (
	"bytes"
	"mime"
	"strings"
)

// line is one line of a byte slice: data[start:end] without its line break,
// next is where the following line starts.
type line struct {
	start, end, next int
}

// lineAt returns the line starting at pos. pos must be < len(data).
func lineAt(data []byte, pos int) line {
	i := bytes.IndexByte(data[pos:], '\n')
	if i < 0 {
		return line{start: pos, end: trimCR(data, pos, len(data)), next: len(data)}
	}
	return line{start: pos, end: trimCR(data, pos, pos+i), next: pos + i + 1}
}

func trimCR(data []byte, start, end int) int {
	if end > start && data[end-1] == '\r' {
		return end - 1
	}
	return end
}

func (l line) text(data []byte) []byte { return data[l.start:l.end] }

func isBlank(b []byte) bool { return len(bytes.Trim(b, " \t")) == 0 }

// header is one "Name: value" field of a MIME header block.
type header struct {
	name, value string
	line        int
}

func headerValue(hs []header, name string) (string, bool) {
	for _, h := range hs {
		if strings.EqualFold(h.name, name) {
			return h.value, true
		}
	}
	return "", false
}

// splitHeader splits "Name: value". ok is false when the line has no colon
// or the name is not an RFC 822 field name.
func splitHeader(b []byte) (name, value string, ok bool) {
	i := bytes.IndexByte(b, ':')
	if i <= 0 {
		return "", "", false
	}
	for _, c := range b[:i] {
		if c <= ' ' || c >= 0x7f {
			return "", "", false
		}
	}
	return string(b[:i]), strings.TrimSpace(string(b[i+1:])), true
}

// isPartHeaderName reports whether a field name belongs in a part header.
// Anything else (apiVersion, kind, spec...) means the body started without
// the blank line that must separate it from the headers.
func isPartHeaderName(name string) bool {
	n := strings.ToLower(name)
	switch {
	case strings.HasPrefix(n, "content-"), strings.HasPrefix(n, "mime-"), strings.HasPrefix(n, "x-"):
		return true
	case n == "merge-type", n == "merge_type", n == "launch-index":
		return true
	}
	return false
}

// message is the top of a MIME message: where its header block was found
// and what it declares.
type message struct {
	data      []byte // the text that was parsed (possibly de-indented)
	headers   []header
	bodyPos   int
	bodyLine  int
	nodeadmOK bool // false when nodeadm's RFC 822 reader would not see multipart
}

// parseMultipart splits Decoded into parts when it is a multipart message.
// It returns false when the blob is not multipart, leaving u untouched.
func (u *UserData) parseMultipart(b *budget) bool {
	msg, probs, ok := readMessageHeader(u.Decoded)
	if !ok {
		return false
	}
	ct, glued := contentType(msg.headers)
	if glued != nil {
		probs = append(probs, *glued)
		msg.nodeadmOK = false
	}
	media, params, err := mime.ParseMediaType(ct)
	if err != nil || !strings.HasPrefix(media, "multipart/") {
		return false
	}
	u.MIME = true
	u.Problems = append(u.Problems, probs...)
	boundary, found := u.chooseBoundary(msg, params["boundary"])
	if !found {
		return true
	}
	if boundary != params["boundary"] {
		msg.nodeadmOK = false
	}
	u.Boundary = boundary
	u.splitParts(msg, b)
	return true
}

// readMessageHeader finds the top-level header block, recovering from the
// two layout mistakes that hide it from nodeadm: blank lines before it and
// indented header lines. ok is false when there is no header block.
func readMessageHeader(data []byte) (message, []Problem, bool) {
	msg := message{data: data, nodeadmOK: true}
	var probs []Problem
	pos, lineNo := 0, 1
	for pos < len(data) {
		l := lineAt(data, pos)
		if !isBlank(l.text(data)) {
			break
		}
		pos, lineNo = l.next, lineNo+1
	}
	if pos >= len(data) {
		return msg, nil, false
	}
	first := lineAt(data, pos).text(data)
	trimmed := bytes.TrimLeft(first, " \t")
	if !hasMIMEHeaderStart(trimmed) {
		if pos > 0 {
			return msg, nil, false
		}
		m, ok := readHeaderBlock(msg, pos, lineNo)
		return m, nil, ok
	}
	if pos > 0 {
		probs = append(probs, problem(CodeMIMELeadingBlank, SeverityError, 1,
			"user data starts with %d blank line(s) before the MIME headers, so nodeadm reads an empty header block, does not see multipart and fails to decode the blob (could not find NodeConfig within UserData / no config in chain); remove the leading blank lines", lineNo-1))
		msg.nodeadmOK = false
	}
	if indent := len(first) - len(trimmed); indent > 0 {
		probs = append(probs, problem(CodeMIMEIndentedHeaders, SeverityError, lineNo,
			"the MIME headers are indented by %d character(s) (a heredoc that kept its indentation?); nodeadm rejects the message (malformed initial line) and does not see multipart; remove the indentation", indent))
		msg.nodeadmOK = false
		msg.data = dedent(data, string(first[:indent]))
	}
	m, ok := readHeaderBlock(msg, pos, lineNo)
	return m, probs, ok
}

// readHeaderBlock reads "Name: value" lines up to the first blank line.
func readHeaderBlock(msg message, pos, lineNo int) (message, bool) {
	data := msg.data
	for pos < len(data) {
		l := lineAt(data, pos)
		text := l.text(data)
		pos = l.next
		lineNo++
		if isBlank(text) {
			msg.bodyPos, msg.bodyLine = pos, lineNo
			return msg, len(msg.headers) > 0
		}
		if (text[0] == ' ' || text[0] == '\t') && len(msg.headers) > 0 {
			last := &msg.headers[len(msg.headers)-1]
			last.value += " " + strings.TrimSpace(string(text))
			continue
		}
		name, value, ok := splitHeader(text)
		if !ok {
			return msg, false
		}
		msg.headers = append(msg.headers, header{name: name, value: value, line: lineNo - 1})
	}
	msg.bodyPos, msg.bodyLine = len(data), lineNo
	return msg, len(msg.headers) > 0
}

// dedent removes prefix from the start of every line that has it.
func dedent(data []byte, prefix string) []byte {
	out := make([]byte, 0, len(data))
	for pos := 0; pos < len(data); {
		l := lineAt(data, pos)
		chunk := data[l.start:l.next]
		out = append(out, bytes.TrimPrefix(chunk, []byte(prefix))...)
		pos = l.next
	}
	return out
}

// contentType returns the message's Content-Type. When the header is glued
// onto the previous one ("MIME-Version: 1.0Content-Type: multipart/...")
// it is recovered and a Problem explains that nodeadm will not see it.
func contentType(hs []header) (string, *Problem) {
	if ct, ok := headerValue(hs, "Content-Type"); ok {
		return ct, nil
	}
	for _, h := range hs {
		i := strings.Index(strings.ToLower(h.value), "content-type:")
		if i < 0 {
			continue
		}
		p := problem(CodeMIMEGluedHeaders, SeverityError, h.line,
			"the %s header runs into Content-Type on the same line (%q); nodeadm then sees no Content-Type, does not treat the user data as multipart, fails to decode it as YAML and reports no NodeConfig (could not find NodeConfig within UserData / no config in chain); put Content-Type on its own line",
			h.name, h.name+": "+h.value)
		return strings.TrimSpace(h.value[i+len("content-type:"):]), &p
	}
	return "", nil
}

// chooseBoundary returns the boundary to split with. When the declared one
// is missing or never used, it infers one from the first "--xxx" line and
// records a Problem. found is false when no boundary can be used at all.
func (u *UserData) chooseBoundary(msg message, declared string) (string, bool) {
	if declared != "" && countDelimiters(msg.data[msg.bodyPos:], declared) > 0 {
		return declared, true
	}
	inferred := inferBoundary(msg.data[msg.bodyPos:])
	if declared == "" {
		u.Problems = append(u.Problems, problem(CodeMIMENoBoundary, SeverityError, ctLine(msg),
			"the multipart Content-Type declares no boundary; nodeadm stops with \"multipart: boundary is empty\"%s", inferredNote(inferred)))
	} else {
		u.Problems = append(u.Problems, problem(CodeMIMEBoundaryNotFound, SeverityError, ctLine(msg),
			"boundary %q is declared but no line \"--%s\" follows; nodeadm stops with \"multipart: NextPart: EOF\"%s", declared, declared, inferredNote(inferred)))
	}
	return inferred, inferred != ""
}

func inferredNote(inferred string) string {
	if inferred == "" {
		return "; no part delimiter could be found either"
	}
	return "; the parts below were split at the delimiter lines actually used (\"--" + inferred + "\")"
}

func ctLine(msg message) int {
	for _, h := range msg.headers {
		if strings.EqualFold(h.name, "Content-Type") || strings.Contains(strings.ToLower(h.value), "content-type:") {
			return h.line
		}
	}
	return 0
}

// inferBoundary takes the first line that looks like a part delimiter.
// YAML document markers ("---") are not delimiters.
func inferBoundary(body []byte) string {
	for pos := 0; pos < len(body); {
		l := lineAt(body, pos)
		text := strings.TrimRight(string(l.text(body)), " \t")
		pos = l.next
		if !strings.HasPrefix(text, "--") || strings.Trim(text, "-") == "" {
			continue
		}
		if strings.HasPrefix(text, "---") {
			continue
		}
		return strings.TrimSuffix(text[2:], "--")
	}
	return ""
}

// delimiterKind tells whether a line opens a part (1), closes the multipart
// body (2) or is content (0). Trailing white space is allowed, as in RFC 2046.
func delimiterKind(text []byte, boundary string) int {
	t := bytes.TrimRight(text, " \t")
	if len(t) < 2+len(boundary) || t[0] != '-' || t[1] != '-' || string(t[2:2+len(boundary)]) != boundary {
		return 0
	}
	switch rest := t[2+len(boundary):]; {
	case len(rest) == 0:
		return 1
	case string(rest) == "--":
		return 2
	}
	return 0
}

// countDelimiters counts the lines that open or close a part.
func countDelimiters(body []byte, boundary string) int {
	n := 0
	for pos := 0; pos < len(body); {
		l := lineAt(body, pos)
		if delimiterKind(l.text(body), boundary) != 0 {
			n++
		}
		pos = l.next
	}
	return n
}

// span is the raw text of one part between two delimiter lines.
type span struct {
	start, end int // content, without the line break before the next delimiter
	line       int // 1-based line of start
}

// splitParts cuts the body at delimiter lines and decodes each part.
func (u *UserData) splitParts(msg message, b *budget) {
	data := msg.data
	var spans []span
	open := -1
	closed := false
	lineNo := msg.bodyLine
	for pos := msg.bodyPos; pos < len(data) && !closed; {
		l := lineAt(data, pos)
		kind := delimiterKind(l.text(data), u.Boundary)
		if kind != 0 && open >= 0 {
			spans[open].end = contentEnd(data, spans[open].start, l.start)
		}
		switch kind {
		case 1:
			spans = append(spans, span{start: l.next, end: len(data), line: lineNo + 1})
			open = len(spans) - 1
		case 2:
			closed, open = true, -1
		}
		pos = l.next
		lineNo++
	}
	if !closed && len(spans) > 0 {
		u.Problems = append(u.Problems, problem(CodeMIMEMissingClose, SeverityError, lineNo,
			"the multipart body never ends with \"--%s--\"; nodeadm's MIME reader hits the end of data (unexpected EOF / multipart: NextPart: EOF) and fails; add the closing delimiter", u.Boundary))
		msg.nodeadmOK = false
	}
	fatal := false
	for i, s := range spans {
		p, breaksNodeadm := readPart(data, s, i+1, b)
		fatal = fatal || breaksNodeadm
		u.Parts = append(u.Parts, p)
	}
	if fatal || !msg.nodeadmOK {
		for i := range u.Parts {
			u.Parts[i].SeenByNodeadm = false
		}
	}
}

// contentEnd drops the line break that belongs to the next delimiter.
func contentEnd(data []byte, start, delimStart int) int {
	end := delimStart
	if end > start && data[end-1] == '\n' {
		end--
		if end > start && data[end-1] == '\r' {
			end--
		}
	}
	return end
}

// readPart parses one part's headers and decodes its body. breaksNodeadm is
// true when the part's layout makes nodeadm's MIME reader fail as a whole.
func readPart(data []byte, s span, index int, b *budget) (Part, bool) {
	hs, bodyStart, bodyLine, headerProb, breaksNodeadm := readPartHeaders(data, s)
	p := Part{Index: index, Line: bodyLine}
	if headerProb != nil {
		p.Problems = append(p.Problems, *headerProb)
	}
	p.ContentType, _ = headerValue(hs, "Content-Type")
	if p.ContentType != "" {
		media, _, err := mime.ParseMediaType(p.ContentType)
		if err != nil {
			p.Problems = append(p.Problems, problem(CodeMIMEBadContentType, SeverityError, 0,
				"Content-Type %q cannot be parsed (%v); nodeadm's MIME reader fails on it", p.ContentType, err))
			breaksNodeadm = true
			media = strings.ToLower(strings.TrimSpace(strings.SplitN(p.ContentType, ";", 2)[0]))
		}
		p.MediaType = media
	}
	cte, _ := headerValue(hs, "Content-Transfer-Encoding")
	p.Body, p.Encoding = decodePartBody(&p, data[bodyStart:max(bodyStart, s.end)], strings.ToLower(strings.TrimSpace(cte)), b)
	p.Kind = classifyPart(&p)
	p.SeenByNodeadm = p.MediaType == NodeConfigMediaType && headerProb == nil
	return p, breaksNodeadm
}

// readPartHeaders reads the part header block. When a line that is not a
// part header appears before any blank line, the body is taken to start
// there and a Problem describes what nodeadm makes of it.
func readPartHeaders(data []byte, s span) (hs []header, bodyStart, bodyLine int, prob *Problem, breaksNodeadm bool) {
	pos, lineNo := s.start, s.line
	for pos < s.end {
		l := lineAt(data[:s.end], pos)
		text := l.text(data)
		if isBlank(text) {
			return hs, l.next, lineNo + 1, nil, false
		}
		if (text[0] == ' ' || text[0] == '\t') && len(hs) > 0 {
			hs[len(hs)-1].value += " " + strings.TrimSpace(string(text))
			pos, lineNo = l.next, lineNo+1
			continue
		}
		name, value, ok := splitHeader(text)
		if ok && isPartHeaderName(name) {
			hs = append(hs, header{name: name, value: value, line: lineNo})
			pos, lineNo = l.next, lineNo+1
			continue
		}
		p := missingBlankLine(text, ok, lineNo)
		return hs, l.start, lineNo, &p, !ok
	}
	return hs, s.end, lineNo, nil, false
}

func missingBlankLine(text []byte, hasColon bool, lineNo int) Problem {
	shown := string(text)
	if len(shown) > 60 {
		shown = shown[:60] + "..."
	}
	effect := "nodeadm's MIME reader fails with \"malformed MIME header: missing colon\""
	if hasColon {
		effect = "nodeadm reads it and the following lines as part headers, so the NodeConfig it gets is empty or cut"
	}
	return problem(CodeMIMEMissingBlankLine, SeverityError, lineNo,
		"the part headers are not followed by a blank line: %q is body text, but %s (amazon-eks-ami issue #2318); add an empty line after the headers", shown, effect)
}

// decodePartBody applies Content-Transfer-Encoding, then the base64 and gzip
// sniffing nodeadm does, within the budget.
func decodePartBody(p *Part, body []byte, cte string, b *budget) ([]byte, string) {
	allow := b.allowance()
	encoding := ""
	switch cte {
	case "base64":
		dec, err := lenientBase64(body)
		if err != nil {
			p.Problems = append(p.Problems, problem(CodeBadTransferEncode, SeverityWarning, 0,
				"Content-Transfer-Encoding is base64 but the body is not valid base64 (%v); nodeadm ignores the header and reads the body as it is, cloud-init may not", err))
		} else {
			body, encoding = dec, "base64"
		}
	case "quoted-printable":
		dec, err := decodeQuotedPrintable(body, allow)
		if err == errOverLimit {
			p.Problems = append(p.Problems, problem(CodeDecodeLimit, SeverityWarning, 0,
				"the quoted-printable part expands beyond %d bytes; the rest is ignored", allow))
		}
		if err != nil && err != errOverLimit {
			p.Problems = append(p.Problems, problem(CodeBadTransferEncode, SeverityError, 0,
				"Content-Transfer-Encoding is quoted-printable but the body does not decode (%v)", err))
		} else {
			body, encoding = dec, "quoted-printable"
		}
	default:
		if dec, ok := strictBase64(body); ok && (p.MediaType == NodeConfigMediaType || looksDecodedWorthy(dec)) {
			body, encoding = dec, "base64"
		}
	}
	if isGzip(body) {
		out, err := gunzip(body, allow)
		switch {
		case err == errOverLimit:
			p.Problems = append(p.Problems, problem(CodeDecodeLimit, SeverityWarning, 0,
				"the gzip-compressed part expands beyond %d bytes; the rest is ignored", len(out)))
			body, encoding = out, joinEncoding(encoding, "gzip")
		case err != nil:
			p.Problems = append(p.Problems, problem(CodeDecodeGzip, SeverityError, 0,
				"the part starts like gzip but does not decompress (%v)", err))
		default:
			body, encoding = out, joinEncoding(encoding, "gzip")
		}
	}
	limit := allow
	if encoding == "" {
		limit = b.limits.PartBytes // a slice of Decoded: no new memory
	}
	if len(body) > limit {
		p.Problems = append(p.Problems, problem(CodeDecodeLimit, SeverityWarning, 0,
			"the part is %d bytes after decoding; only the first %d are kept", len(body), limit))
		body = body[:limit]
	}
	if encoding != "" {
		b.spend(len(body))
	}
	return body, encoding
}

// mediaKinds maps the Content-Types whose meaning is fixed to kinds.
var mediaKinds = map[string]Kind{
	NodeConfigMediaType:  KindNodeConfig,
	"text/x-shellscript": KindShell,
	"text/cloud-config":  KindCloudConfig,
}

// classifyPart decides the part's kind from its content, falling back to
// its media type, and flags NodeConfig content under another type.
func classifyPart(p *Part) Kind {
	sniffed, _ := sniffKind(p.Body)
	declared, known := mediaKinds[p.MediaType]
	if strings.HasPrefix(p.MediaType, "multipart/") {
		p.Problems = append(p.Problems, problem(CodeMIMENested, SeverityInfo, 0,
			"nested %s part: cloud-init reads it, nodeadm does not look inside", p.MediaType))
		return KindMIME
	}
	switch {
	case sniffed == KindNodeConfig && p.MediaType != NodeConfigMediaType:
		p.Problems = append(p.Problems, wrongTypeForNodeConfig(p.ContentType))
		return KindNodeConfig
	case known && declared == KindNodeConfig && (sniffed == KindShell || sniffed == KindCloudConfig):
		p.Problems = append(p.Problems, problem(CodeMIMEWrongContentType, SeverityError, 0,
			"the part is labelled %s but holds a %s; nodeadm tries to decode it as a NodeConfig and fails (failed to decode node config)", NodeConfigMediaType, sniffed))
		return sniffed
	case sniffed == KindUnknown && known:
		return declared
	}
	return sniffed
}

func wrongTypeForNodeConfig(contentType string) Problem {
	what := "has no Content-Type"
	if contentType != "" {
		what = "has Content-Type " + contentType
	}
	return problem(CodeMIMEWrongContentType, SeverityError, 0,
		"this part holds a NodeConfig but %s; nodeadm only reads parts of type %s and skips it (could not find NodeConfig within UserData); set Content-Type: %s", what, NodeConfigMediaType, NodeConfigMediaType)
}
