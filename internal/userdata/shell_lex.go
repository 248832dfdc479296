package userdata

import (
	"strings"
)

// This file is a small shell lexer: enough of POSIX sh and bash quoting to
// find commands, words, redirections and heredocs in user-data scripts. It
// never expands anything.

// maxNesting bounds the quote/substitution stack; deeper input is treated
// as plain text rather than rejected.
const maxNesting = 256

// context kinds on the nesting stack.
const (
	ctxSingle   = 'S' // '...'
	ctxDouble   = 'D' // "..."
	ctxParen    = 'P' // $( ... ) or ( ... )
	ctxBacktick = 'B' // `...`
	ctxBrace    = 'C' // ${ ... }
)

// nesting tracks open quotes and substitutions across the characters of a
// logical line.
type nesting struct {
	stack []byte
}

func (n *nesting) top() byte {
	if len(n.stack) == 0 {
		return 0
	}
	return n.stack[len(n.stack)-1]
}

func (n *nesting) push(c byte) {
	if len(n.stack) < maxNesting {
		n.stack = append(n.stack, c)
	}
}

func (n *nesting) pop() {
	if len(n.stack) > 0 {
		n.stack = n.stack[:len(n.stack)-1]
	}
}

// step consumes the construct starting at s[i] and returns the index after
// it. It handles quotes, escapes and substitutions; comments and heredoc
// operators are left to the caller, which knows where words start.
func (n *nesting) step(s string, i int) int {
	c := s[i]
	next := byte(0)
	if i+1 < len(s) {
		next = s[i+1]
	}
	switch n.top() {
	case ctxSingle:
		if c == '\'' {
			n.pop()
		}
		return i + 1
	case ctxDouble:
		return n.stepDouble(c, next, i)
	case ctxBacktick:
		switch c {
		case '\\':
			return i + 2
		case '`':
			n.pop()
		}
		return i + 1
	}
	// top level, ( ... ), $( ... ) and ${ ... }
	switch {
	case c == '\\':
		return i + 2
	case c == '\'':
		n.push(ctxSingle)
	case c == '"':
		n.push(ctxDouble)
	case c == '`':
		n.push(ctxBacktick)
	case c == '$' && next == '(':
		n.push(ctxParen)
		return i + 2
	case c == '$' && next == '{':
		n.push(ctxBrace)
		return i + 2
	case c == '(' && n.top() != ctxBrace:
		n.push(ctxParen)
	case c == ')' && n.top() == ctxParen:
		n.pop()
	case c == '}' && n.top() == ctxBrace:
		n.pop()
	}
	return i + 1
}

func (n *nesting) stepDouble(c, next byte, i int) int {
	switch {
	case c == '\\':
		return i + 2
	case c == '"':
		n.pop()
	case c == '`':
		n.push(ctxBacktick)
	case c == '$' && next == '(':
		n.push(ctxParen)
		return i + 2
	case c == '$' && next == '{':
		n.push(ctxBrace)
		return i + 2
	}
	return i + 1
}

// groupEnd returns the index just after the construct opened at s[i]
// (a quote, $(, ${ or backtick), or len(s) when it is never closed.
func groupEnd(s string, i int) int {
	var n nesting
	j := n.step(s, i)
	for j < len(s) && len(n.stack) > 0 {
		j = n.step(s, j)
	}
	return min(j, len(s))
}

func isWordBreak(c byte) bool {
	switch c {
	case ' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>':
		return true
	}
	return false
}

// heredocSpec is a heredoc operator found on a line.
type heredocSpec struct {
	delim     string
	quoted    bool // <<'EOF', <<"EOF" or <<\EOF: the body is not expanded
	stripTabs bool // <<-EOF
}

// parseHeredocOp reads the operator at s[i:] ("<<" already checked, not
// "<<<") and returns the spec and the index after the delimiter word.
func parseHeredocOp(s string, i int) (heredocSpec, int) {
	spec := heredocSpec{}
	i += 2
	if i < len(s) && s[i] == '-' {
		spec.stripTabs = true
		i++
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	start := i
	for i < len(s) && !isWordBreak(s[i]) {
		if s[i] == '\'' || s[i] == '"' {
			i = groupEnd(s, i)
			continue
		}
		if s[i] == '\\' {
			i++
		}
		i++
	}
	i = min(i, len(s))
	raw := s[start:i]
	spec.quoted = strings.ContainsAny(raw, `'"\`)
	spec.delim = strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(raw)
	return spec, i
}

// lineScanner follows quoting across the physical lines of one logical
// line and collects the heredocs it opens.
type lineScanner struct {
	nest     nesting
	cont     bool // the last line ended with a backslash continuation
	heredocs []heredocSpec
}

// scan feeds one physical line (without its newline).
func (ls *lineScanner) scan(s string) {
	ls.cont = false
	wordStart := true
	for i := 0; i < len(s); {
		top := ls.nest.top()
		code := top == 0 || top == ctxParen
		c := s[i]
		switch {
		case code && c == '#' && wordStart:
			return
		case code && c == '<' && strings.HasPrefix(s[i:], "<<") && !strings.HasPrefix(s[i:], "<<<"):
			spec, j := parseHeredocOp(s, i)
			if spec.delim != "" {
				ls.heredocs = append(ls.heredocs, spec)
			}
			i, wordStart = j, false
			continue
		case c == '\\' && i == len(s)-1 && top != ctxSingle:
			ls.cont = true
			return
		}
		wordStart = code && isWordBreak(c)
		i = ls.nest.step(s, i)
	}
}

// complete reports whether the logical line ends here.
func (ls *lineScanner) complete() bool {
	return !ls.cont && len(ls.nest.stack) == 0
}

// tokenKind tells words from operators.
type tokenKind int

const (
	tokWord tokenKind = iota
	tokOp
)

// token is a word (quotes removed, variables left as written) or an
// operator. start and end index the logical line text; line is the
// 0-based physical line within it.
type token struct {
	kind       tokenKind
	text       string
	start, end int
	line       int
	quoted     bool // some part of the word was quoted or escaped
	singleOnly bool // every quoted part used single quotes
}

// operators, longest first so that ">>" wins over ">".
var operators = []string{
	"&>>", "<<-", "<<<", ";;", "&&", "||", "|&", ">>", ">|", "&>", ">&", "<&", "<>", "<<",
	";", "&", "|", "(", ")", "<", ">",
}

// lex splits a logical line into tokens.
func lex(s string) []token {
	var toks []token
	lx := lexer{s: s}
	for lx.i < len(s) {
		if tok, ok := lx.next(); ok {
			toks = append(toks, tok)
		}
	}
	return toks
}

type lexer struct {
	s    string
	i    int
	line int
}

// next returns the next token, or ok=false for skipped text (blanks,
// comments).
func (lx *lexer) next() (token, bool) {
	s := lx.s
	c := s[lx.i]
	switch {
	case c == ' ' || c == '\t' || c == '\r':
		lx.i++
		return token{}, false
	case c == '\n':
		tok := token{kind: tokOp, text: ";", start: lx.i, end: lx.i + 1, line: lx.line}
		lx.i++
		lx.line++
		return tok, true
	case c == '#':
		for lx.i < len(s) && s[lx.i] != '\n' {
			lx.i++
		}
		return token{}, false
	case c == '\\' && lx.i+1 < len(s) && s[lx.i+1] == '\n':
		lx.i += 2
		lx.line++
		return token{}, false
	}
	for _, op := range operators {
		if strings.HasPrefix(s[lx.i:], op) {
			tok := token{kind: tokOp, text: op, start: lx.i, end: lx.i + len(op), line: lx.line}
			lx.i += len(op)
			return tok, true
		}
	}
	return lx.word(), true
}

// word reads one word, removing quotes and escapes but keeping $VAR,
// ${VAR}, $(...) and `...` as written.
func (lx *lexer) word() token {
	s := lx.s
	tok := token{kind: tokWord, start: lx.i, line: lx.line, singleOnly: true}
	var b strings.Builder
	for lx.i < len(s) && !isWordBreak(s[lx.i]) {
		c := s[lx.i]
		switch {
		case c == '\'':
			end := groupEnd(s, lx.i)
			b.WriteString(strings.TrimSuffix(s[lx.i+1:end], "'"))
			tok.quoted = true
			lx.countLines(lx.i, end)
			lx.i = end
		case c == '"':
			end := groupEnd(s, lx.i)
			b.WriteString(unquoteDouble(strings.TrimSuffix(s[lx.i+1:end], `"`)))
			tok.quoted, tok.singleOnly = true, false
			lx.countLines(lx.i, end)
			lx.i = end
		case c == '\\':
			if lx.i+1 < len(s) && s[lx.i+1] != '\n' {
				b.WriteByte(s[lx.i+1])
			}
			tok.quoted, tok.singleOnly = true, false
			lx.i += 2
		case c == '`' || (c == '$' && lx.i+1 < len(s) && (s[lx.i+1] == '(' || s[lx.i+1] == '{')):
			end := groupEnd(s, lx.i)
			b.WriteString(s[lx.i:end])
			lx.countLines(lx.i, end)
			lx.i = end
		default:
			b.WriteByte(c)
			lx.i++
		}
	}
	lx.i = min(lx.i, len(s))
	tok.end = lx.i
	tok.text = b.String()
	if !tok.quoted {
		tok.singleOnly = false
	}
	return tok
}

func (lx *lexer) countLines(from, to int) {
	lx.line += strings.Count(lx.s[from:min(to, len(lx.s))], "\n")
}

// unquoteDouble removes the escapes that are special inside double quotes.
func unquoteDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				b.WriteByte(s[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// splitWords splits a string the way an unquoted shell expansion would be
// re-read (used for --kubelet-extra-args values): quotes are honoured.
func splitWords(s string) []string {
	var out []string
	for _, t := range lex(s) {
		if t.kind == tokWord {
			out = append(out, t.text)
		}
	}
	return out
}
