package redact

import (
	"bytes"
	"io"
	"regexp"
	"slices"
	"sort"
)

const (
	markerPrefix = "[REDACTED:"
	// maxPasses bounds how often the rules are re-run on a line whose
	// redaction uncovered a new match (for example a key id that became
	// word-bounded once its neighbour was replaced).
	maxPasses = 8
	// maxKeyLines ends a private key block that never shows its END line,
	// so a stray BEGIN line cannot swallow the rest of a log. A 16384-bit
	// RSA key in PEM is about 200 lines.
	maxKeyLines = 512
	// keyEndTail is how many bytes are kept when dropping a huge line inside
	// a key block, so an END marker split across pieces is still found.
	keyEndTail = 128
)

// Marker returns the text that replaces a secret found by the named rule.
func Marker(ruleName string) string { return markerPrefix + ruleName + "]" }

// Redactor applies a fixed set of rules. It is safe for concurrent use; each
// stream gets its own Writer.
type Redactor struct {
	matchers []boundMatcher
	keywords *keywordSet
	gates    []boundGate
	names    map[string]bool
	// keyRule is the rule that removes multi-line private key blocks, or
	// empty when no rule asks for it.
	keyRule   string
	keyMarker []byte
	// envRule is the rule that redacts the values of name/value pairs
	// (container and exec environments), or empty.
	envRule   string
	envMarker []byte
	window    int
	overlap   int
}

// boundMatcher is a matcher tied to its rule and to the Redactor's keyword
// table.
type boundMatcher struct {
	rule   string
	marker []byte
	m      *matcher
	kw     []int
	gate   int // index into Redactor.gates, or -1
}

// boundGate is a gate and the keyword indexes that must occur for it to
// run at all.
type boundGate struct {
	g  *gate
	kw []int
}

// New builds a Redactor from rules, applied in order. Rules may share a
// name; their counts add up.
func New(rules []Rule) *Redactor {
	r := &Redactor{names: map[string]bool{}, keywords: &keywordSet{}, window: defaultWindow, overlap: defaultOverlap}
	for i := range rules {
		rule := &rules[i]
		r.names[rule.Name] = true
		if rule.keyBlock && r.keyRule == "" {
			r.keyRule = rule.Name
			r.keyMarker = []byte(Marker(rule.Name))
		}
		if rule.envPairs && r.envRule == "" {
			r.envRule = rule.Name
			r.envMarker = []byte(Marker(rule.Name))
		}
		for j := range rule.matchers {
			m := &rule.matchers[j]
			bm := boundMatcher{rule: rule.Name, marker: []byte(Marker(rule.Name)), m: m, gate: -1}
			if m.gate != nil {
				bm.gate = r.bindGate(m.gate)
			}
			for _, kw := range m.keywords {
				bm.kw = append(bm.kw, r.keywords.add(kw))
			}
			r.matchers = append(r.matchers, bm)
		}
	}
	return r
}

func (r *Redactor) bindGate(g *gate) int {
	for i, bg := range r.gates {
		if bg.g == g {
			return i
		}
	}
	bg := boundGate{g: g}
	for _, kw := range g.keywords {
		bg.kw = append(bg.kw, r.keywords.add(kw))
	}
	r.gates = append(r.gates, bg)
	return len(r.gates) - 1
}

// RuleNames returns the names of the rules, in order, without repeats.
func (r *Redactor) RuleNames() []string {
	var names []string
	for _, bm := range r.matchers {
		if !slices.Contains(names, bm.rule) {
			names = append(names, bm.rule)
		}
	}
	return names
}

// NewWriter returns a Writer that redacts everything written to it and
// passes the result to dst.
func (r *Redactor) NewWriter(dst io.Writer) *Writer {
	s := r.newStream()
	return newWriter(dst, s, s.counts, r.window, r.overlap)
}

// Bytes redacts b as one stream and returns the result and the per-rule
// counts.
func (r *Redactor) Bytes(b []byte) ([]byte, map[string]int) {
	var buf bytes.Buffer
	buf.Grow(len(b))
	w := r.NewWriter(&buf)
	_, _ = w.Write(b) // a bytes.Buffer does not fail
	_ = w.Close()
	return buf.Bytes(), w.Counts()
}

// redactStream is the per-stream state of a Redactor: counts, the private
// key block state and scratch buffers.
type redactStream struct {
	r        *Redactor
	counts   map[string]int
	inKey    bool
	keyLines int
	lower    []byte
	present  []bool
	gateBits []uint64
	spans    []span
	bufs     [2][]byte
	// envIndent is the column of the "name" key of the previous line when
	// that line named a secret in a name/value list; -1 otherwise.
	envIndent int
	envBuf    []byte
}

func (r *Redactor) newStream() *redactStream {
	return &redactStream{
		r:         r,
		counts:    map[string]int{},
		present:   make([]bool, len(r.keywords.words)),
		gateBits:  make([]uint64, len(r.gates)),
		envIndent: -1,
	}
}

func (s *redactStream) filterLine(out, content, eol []byte) []byte {
	if s.inKey {
		s.envIndent = -1
		rest, ended := s.skipKeyBody(content)
		if !ended {
			return out
		}
		if rest == nil {
			// The END line held nothing else: drop it with its newline, so
			// the whole block collapses into the marker line.
			return out
		}
		content = rest
	}
	if s.r.keyRule != "" {
		if begin, _ := openKeyBlock(content); begin >= 0 {
			out = s.redactText(out, content[:begin])
			out = s.startKeyBlock(out)
			return append(out, eol...)
		}
	}
	start := len(out)
	out = s.redactText(out, content)
	if s.r.envRule != "" {
		out = s.redactEnvPair(out, start)
	}
	return append(out, eol...)
}

func (s *redactStream) filterChunk(out, buf []byte, minCut int) ([]byte, int) {
	s.envIndent = -1
	if s.inKey {
		if end := keyEnd(buf); end >= 0 {
			s.inKey = false
			return out, end
		}
		return out, max(len(buf)-keyEndTail, 1)
	}
	cut := s.safeCut(buf, minCut)
	if s.r.keyRule != "" {
		if begin, beginEnd := openKeyBlock(buf); begin >= 0 && begin < cut {
			out = s.redactText(out, buf[:begin])
			return s.startKeyBlock(out), beginEnd
		}
	}
	return s.redactText(out, buf[:cut]), cut
}

func (s *redactStream) startKeyBlock(out []byte) []byte {
	s.counts[s.r.keyRule]++
	s.inKey, s.keyLines = true, 0
	return append(out, s.r.keyMarker...)
}

// skipKeyBody consumes one line inside a private key block. It reports
// whether the block ended on this line and what follows the END marker (nil
// when nothing does). A block that runs past maxKeyLines ends before the
// current line, which is then returned whole.
func (s *redactStream) skipKeyBody(content []byte) (rest []byte, ended bool) {
	if end := keyEnd(content); end >= 0 {
		s.inKey = false
		if end == len(content) {
			return nil, true
		}
		return content[end:], true
	}
	if begin, _ := openKeyBlock(content); begin >= 0 {
		s.keyLines = 0 // a new key starts inside the block
	}
	s.keyLines++
	if s.keyLines > maxKeyLines {
		s.inKey = false
		return content, true
	}
	return nil, false
}

// safeCut moves minCut forward past every match that starts before it, so a
// piece of a long line never ends inside a match.
func (s *redactStream) safeCut(buf []byte, minCut int) int {
	s.findKeywords(buf)
	var spans [][2]int
	for i := range s.r.matchers {
		bm := &s.r.matchers[i]
		if !s.wanted(bm) {
			continue
		}
		for _, loc := range bm.m.findAll(buf) {
			spans = append(spans, [2]int{loc[0], loc[1]})
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	cut := minCut
	for _, sp := range spans {
		if sp[0] >= cut {
			break
		}
		cut = max(cut, sp[1])
	}
	return cut
}

// redactText applies all rules to text and appends the result to out. In
// each pass every rule looks at the same text; the spans they find are
// merged and replaced together, so one rule cannot hide another's secret by
// replacing its context (" token: --password x"). Passes repeat until the
// text no longer changes, which makes redaction idempotent.
func (s *redactStream) redactText(out, text []byte) []byte {
	if len(text) == 0 {
		return out
	}
	cur, curBuf := text, -1
	for pass := 0; pass < maxPasses; pass++ {
		spans := s.findSpans(cur)
		if len(spans) == 0 {
			break
		}
		next := (curBuf + 1) % 2 // never the buffer cur lives in
		res, changed := s.replaceSpans(cur, s.bufs[next][:0], spans)
		s.bufs[next] = res
		if !changed {
			break
		}
		cur, curBuf = res, next
	}
	return append(out, cur...)
}

// span is a stretch of text to replace and the matcher that found it.
type span struct {
	start, end int
	matcher    int
}

// findSpans runs every wanted matcher on text and returns the merged spans
// to replace, in order. Overlapping spans become one, credited to the rule
// of the first of them (by position, then by rule order).
func (s *redactStream) findSpans(text []byte) []span {
	s.findKeywords(text)
	found := s.spans[:0]
	for i := range s.r.matchers {
		bm := &s.r.matchers[i]
		if !s.wanted(bm) {
			continue
		}
		for _, loc := range bm.m.findAll(text) {
			if start, end, ok := bm.m.span(text, loc); ok && start < end {
				found = append(found, span{start, end, i})
			}
		}
	}
	s.spans = found
	if len(found) == 0 {
		return nil
	}
	slices.SortFunc(found, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.matcher - b.matcher
	})
	merged := found[:1]
	for _, sp := range found[1:] {
		last := &merged[len(merged)-1]
		if sp.start < last.end {
			last.end = max(last.end, sp.end)
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}

// replaceSpans copies src to dst with each span replaced by its rule's
// marker, counting replacements. Markers already in src are kept byte for
// byte: a span that covers markers has only the text between them
// replaced, and a span that is all marker changes nothing.
func (s *redactStream) replaceSpans(src, dst []byte, spans []span) ([]byte, bool) {
	markers := s.r.markerSpans(src)
	last, changed := 0, false
	for _, sp := range spans {
		bm := &s.r.matchers[sp.matcher]
		dst = append(dst, src[last:sp.start]...)
		var replaced bool
		dst, replaced = appendMasked(dst, src, sp.start, sp.end, markers, bm.marker)
		if replaced {
			s.counts[bm.rule]++
			changed = true
		}
		last = sp.end
	}
	return append(dst, src[last:]...), changed
}

// findKeywords records which keywords occur in text, ignoring ASCII case,
// and which gates pass.
func (s *redactStream) findKeywords(text []byte) {
	s.lower = appendLowerASCII(s.lower[:0], text)
	s.r.keywords.find(s.lower, s.present)
	for i, bg := range s.r.gates {
		s.gateBits[i] = 0
		if len(bg.kw) == 0 || s.anyPresent(bg.kw) {
			s.gateBits[i] = bg.g.check(text, s.lower)
		}
	}
}

func (s *redactStream) anyPresent(kw []int) bool {
	for _, k := range kw {
		if s.present[k] {
			return true
		}
	}
	return false
}

// wanted tells whether a matcher's prefilter lets it run. It relies on the
// last findKeywords call having seen the text.
func (s *redactStream) wanted(bm *boundMatcher) bool {
	if bm.gate >= 0 {
		return s.gateBits[bm.gate]&bm.m.gateMask != 0
	}
	return len(bm.kw) == 0 || s.anyPresent(bm.kw)
}

// appendMasked appends src[start:end] with every stretch outside markers
// replaced by marker, and reports whether anything was replaced. When the
// span touches markers, stretches of blanks next to them carry nothing and
// are kept.
//
// markers are in text order and do not overlap (markerSpans finds them so);
// only those that may touch the span are looked at, so a line with
// thousands of secrets costs a binary search per secret, not a scan.
func appendMasked(dst, src []byte, start, end int, markers [][2]int, marker []byte) ([]byte, bool) {
	first, _ := slices.BinarySearchFunc(markers, start, func(mk [2]int, start int) int {
		if mk[1] <= start {
			return -1
		}
		return 1
	})
	markers = markers[first:]
	if len(markers) == 0 || markers[0][0] >= end {
		return append(dst, marker...), true
	}
	replaced := false
	pos := start
	mask := func(stretch []byte) {
		if len(bytes.Trim(stretch, " \t")) == 0 {
			dst = append(dst, stretch...)
			return
		}
		dst = append(dst, marker...)
		replaced = true
	}
	for _, mk := range markers {
		if mk[0] >= end {
			break
		}
		if mk[1] <= pos {
			continue
		}
		if mk[0] > pos {
			mask(src[pos:mk[0]])
		}
		keepTo := min(mk[1], end)
		dst = append(dst, src[max(mk[0], pos):keepTo]...)
		pos = keepTo
	}
	if pos < end {
		mask(src[pos:end])
	}
	return dst, replaced
}

// markerSpans finds the markers of this Redactor's rules in text. A
// bracketed text naming an unknown rule is not a marker, so a secret cannot
// hide inside a fake one.
func (r *Redactor) markerSpans(text []byte) [][2]int {
	var spans [][2]int
	off := 0
	for {
		i := bytes.Index(text[off:], []byte(markerPrefix))
		if i < 0 {
			return spans
		}
		start := off + i
		nameStart := start + len(markerPrefix)
		j := bytes.IndexByte(text[nameStart:], ']')
		if j > 0 && j <= maxRuleNameLen && r.names[string(text[nameStart:nameStart+j])] {
			end := nameStart + j + 1
			spans = append(spans, [2]int{start, end})
			off = end
			continue
		}
		off = nameStart
	}
}

// PEM private key block markers. The label before "PRIVATE KEY" names the
// key type (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP ... BLOCK) or is empty.
var (
	keyBeginRe = regexp.MustCompile(`-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----`)
	keyEndRe   = regexp.MustCompile(`-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----`)
)

// openKeyBlock finds the first BEGIN private key marker in text that has no
// END marker after it, and returns where that marker starts and ends, or
// -1. Blocks that end on the same line are left to the inline rule.
func openKeyBlock(text []byte) (begin, beginEnd int) {
	if !bytes.Contains(text, []byte("PRIVATE KEY")) {
		return -1, -1
	}
	off := 0
	for {
		loc := keyBeginRe.FindIndex(text[off:])
		if loc == nil {
			return -1, -1
		}
		afterBegin := off + loc[1]
		end := keyEndRe.FindIndex(text[afterBegin:])
		if end == nil {
			return off + loc[0], afterBegin
		}
		off = afterBegin + end[1]
	}
}

// keyEnd returns the offset just past the first END private key marker in
// text, or -1.
func keyEnd(text []byte) int {
	if !bytes.Contains(text, []byte("-----END ")) {
		return -1
	}
	loc := keyEndRe.FindIndex(text)
	if loc == nil {
		return -1
	}
	return loc[1]
}

func appendLowerASCII(dst, src []byte) []byte {
	dst = slices.Grow(dst, len(src))
	for _, c := range src {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
