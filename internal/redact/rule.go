package redact

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// ErrInvalidRule marks a rule that cannot be used: a bad name, a bad
// regular expression, or a malformed line in a rules file.
var ErrInvalidRule = errors.New("invalid redaction rule")

// SecretGroup is the name of the capture group that limits a replacement:
// when a rule's expression has a group with this name, only that group is
// replaced; otherwise the whole match is.
const SecretGroup = "secret"

const maxRuleNameLen = 64

// Rule is one named redaction: what to look for and which part of a match to
// replace with the marker "[REDACTED:<name>]". The zero Rule matches nothing.
type Rule struct {
	// Name identifies the rule in markers and counts.
	Name string

	matchers []matcher
	// keyBlock marks the rule that also removes multi-line PEM private key
	// blocks (see the package documentation).
	keyBlock bool
	// envPairs marks the rule that also removes the value of a YAML or
	// pretty-printed JSON name/value pair split over two lines whose name
	// announces a secret (see envpairs.go).
	envPairs bool
}

// matcher is one compiled expression of a rule.
type matcher struct {
	re *regexp.Regexp
	// find, when set, is used instead of re: it returns match indexes in
	// the form of FindAllSubmatchIndex.
	find func(text []byte) [][]int
	// group is the submatch replaced; 0 means the whole match.
	group int
	// keywords are lower-case literals; the expression only runs on text
	// that contains one of them (compared case-insensitively). No keywords
	// and no gate means the expression always runs.
	keywords []string
	// gate is a cheap check used instead of keywords when no literal fits;
	// the matcher runs when the gate's result shares a bit with gateMask.
	gate     *gate
	gateMask uint64
	// refine, when set, picks the span to replace from a match, or rejects
	// the match. It sees the whole text and the submatch indexes.
	refine refineFunc
}

// gate is a named cheap check on a text (and its ASCII lower-case copy)
// that several matchers can share; it runs once per text and returns a set
// of bits, so one scan can tell several matchers apart.
type gate struct {
	name string
	// keywords, when set, must occur (as for matchers) for check to run.
	keywords []string
	check    func(text, lower []byte) uint64
}

// refineFunc picks the span to replace from a match (text and submatch
// indexes), or rejects the match.
type refineFunc func(text []byte, m []int) (start, end int, ok bool)

// findAll returns all matches in text as submatch indexes.
func (m *matcher) findAll(text []byte) [][]int {
	if m.find != nil {
		return m.find(text)
	}
	return m.re.FindAllSubmatchIndex(text, -1)
}

// span returns the part of a match to replace.
func (m *matcher) span(text []byte, loc []int) (int, int, bool) {
	if m.refine != nil {
		return m.refine(text, loc)
	}
	start, end := loc[2*m.group], loc[2*m.group+1]
	return start, end, start >= 0
}

// NewRule compiles a user rule. expr is RE2 syntax (package regexp); if it
// has a capture group named "secret" only that group is replaced, else the
// whole match. Names are letters, digits, '.', '_' and '-', starting with a
// letter or digit, at most 64 bytes.
func NewRule(name, expr string) (Rule, error) {
	if err := checkRuleName(name); err != nil {
		return Rule{}, err
	}
	if expr == "" {
		return Rule{}, errors.New("empty regular expression")
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return Rule{}, err
	}
	if re.MatchString("") {
		return Rule{}, fmt.Errorf("regular expression %q matches the empty string", expr)
	}
	group := max(re.SubexpIndex(SecretGroup), 0)
	return Rule{Name: name, matchers: []matcher{{re: re, group: group}}}, nil
}

func checkRuleName(name string) error {
	if name == "" {
		return errors.New("empty rule name")
	}
	if len(name) > maxRuleNameLen {
		return fmt.Errorf("rule name longer than %d bytes", maxRuleNameLen)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if isASCIIAlnum(c) || (i > 0 && (c == '.' || c == '_' || c == '-')) {
			continue
		}
		return fmt.Errorf("character %q not allowed in a rule name (use letters and digits, then also '.', '_', '-')", c)
	}
	return nil
}

// RuleError reports a bad line of a rules file. Its message has the form
// "file:line: rule \"name\": reason"; it matches ErrInvalidRule with
// errors.Is.
type RuleError struct {
	File string
	Line int
	Name string // empty when the line has no name
	Err  error
}

func (e *RuleError) Error() string {
	if e.Name == "" {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d: rule %q: %v", e.File, e.Line, e.Name, e.Err)
}

// Unwrap lets errors.Is find both ErrInvalidRule and the underlying cause.
func (e *RuleError) Unwrap() []error { return []error{ErrInvalidRule, e.Err} }

const maxRuleLineLen = 64 << 10

// LoadRules reads a user rules file: one rule per line as "name: <RE2
// regex>", with blank lines and lines starting with '#' ignored. The regex
// is everything after the first colon, without surrounding spaces. A bad
// line yields a *RuleError naming the file and line number.
func LoadRules(path string) ([]Rule, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load redaction rules: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxRuleLineLen)
	var rules []Rule
	lineNo := 0
	for sc.Scan() {
		lineNo++
		rule, ok, err := parseRuleLine(sc.Text(), lineNo == 1)
		if err != nil {
			err.File, err.Line = path, lineNo
			return nil, err
		}
		if ok {
			rules = append(rules, rule)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &RuleError{File: path, Line: lineNo + 1, Err: fmt.Errorf("line longer than %d bytes", maxRuleLineLen)}
		}
		return nil, fmt.Errorf("read redaction rules %s: %w", path, err)
	}
	return rules, nil
}

// parseRuleLine parses one line of a rules file. ok is false for blank and
// comment lines. The returned error lacks the file and line.
func parseRuleLine(line string, first bool) (Rule, bool, *RuleError) {
	if first {
		line = strings.TrimPrefix(line, "\ufeff")
	}
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return Rule{}, false, nil
	}
	name, expr, found := strings.Cut(line, ":")
	if !found {
		return Rule{}, false, &RuleError{Err: errors.New(`expected "name: regex"`)}
	}
	name, expr = strings.TrimSpace(name), strings.TrimSpace(expr)
	rule, err := NewRule(name, expr)
	if err != nil {
		return Rule{}, false, &RuleError{Name: name, Err: err}
	}
	return rule, true, nil
}

func isASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
