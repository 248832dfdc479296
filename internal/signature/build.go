package signature

import (
	"fmt"
	"net/url"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"
)

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// buildSignature checks one raw signature and compiles it. component is the
// default component (the file's base name). It stops at the first problem;
// the error is a *LoadError without file and id (the caller adds them).
func buildSignature(r *rawSignature, component string) (*Signature, error) {
	s := &Signature{
		ID:        r.ID,
		Title:     strings.TrimSpace(r.Title),
		Component: r.Component,
		RootCause: r.RootCause,
		Sources:   r.Sources,
		Explains:  r.Explains,
		Milestone: r.Milestone,
		Summary:   strings.TrimSpace(r.Summary),
		Fix:       r.Fix,
		Line:      r.line,
	}
	if s.Component == "" {
		s.Component = component
	}
	steps := []func(*Signature, *rawSignature) error{
		checkRequired, checkSeverity, checkConfidence, checkNames,
		buildMatch, buildConditions, checkTexts,
	}
	for _, step := range steps {
		if err := step(s, r); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (r *rawSignature) lineOf(key string) int {
	if l, ok := r.lines[key]; ok {
		return l
	}
	return r.line
}

func checkRequired(s *Signature, r *rawSignature) error {
	if s.ID == "" {
		return fieldErr(r.line, "id", ErrInvalid, "missing")
	}
	if !idPattern.MatchString(s.ID) {
		return fieldErr(r.lineOf("id"), "id", ErrInvalid, "%q must match %s", s.ID, idPattern)
	}
	if s.Title == "" {
		return fieldErr(r.line, "title", ErrInvalid, "missing")
	}
	if r.Match == nil && len(r.Facts) == 0 {
		return fieldErr(r.line, "match", ErrInvalid, "a signature needs a match, facts, or both")
	}
	return nil
}

func checkSeverity(s *Signature, r *rawSignature) error {
	if r.Milestone != "" {
		if r.Severity != "" && r.Severity != "info" {
			return fieldErr(r.lineOf("severity"), "severity", ErrInvalid, "a milestone is always info, not %q", r.Severity)
		}
		if r.RootCause || len(r.Explains) > 0 {
			return fieldErr(r.lineOf("milestone"), "milestone", ErrInvalid, "a milestone cannot be a root cause or explain other signatures")
		}
		s.Severity = Info
		return nil
	}
	if r.Severity == "" {
		return fieldErr(r.line, "severity", ErrInvalid, "missing (critical, error, warning or info)")
	}
	sev, ok := ParseSeverity(r.Severity)
	if !ok {
		return fieldErr(r.lineOf("severity"), "severity", ErrInvalid, "%q is not critical, error, warning or info", r.Severity)
	}
	s.Severity = sev
	return nil
}

func checkConfidence(s *Signature, r *rawSignature) error {
	switch c := Confidence(r.Confidence); c {
	case "":
		s.Confidence = High
	case High, Medium, Low:
		s.Confidence = c
	default:
		return fieldErr(r.lineOf("confidence"), "confidence", ErrInvalid, "%q is not high, medium or low", r.Confidence)
	}
	return nil
}

// checkNames checks the shape of names that point elsewhere; whether they
// exist is checked once the whole catalog is loaded.
func checkNames(s *Signature, r *rawSignature) error {
	for _, src := range s.Sources {
		if !idPattern.MatchString(src) {
			return fieldErr(r.lineOf("sources"), "sources", ErrInvalid, "%q is not a source name", src)
		}
	}
	for _, id := range s.Explains {
		if !idPattern.MatchString(id) {
			return fieldErr(r.lineOf("explains"), "explains", ErrInvalid, "%q is not a signature id", id)
		}
	}
	if s.Milestone != "" && !idPattern.MatchString(s.Milestone) {
		return fieldErr(r.lineOf("milestone"), "milestone", ErrInvalid, "%q must match %s", s.Milestone, idPattern)
	}
	if !idPattern.MatchString(s.Component) {
		return fieldErr(r.lineOf("component"), "component", ErrInvalid, "%q must match %s", s.Component, idPattern)
	}
	for _, ref := range r.References {
		u, err := url.Parse(ref)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return fieldErr(r.lineOf("references"), "references", ErrInvalid, "%q is not an http(s) URL", ref)
		}
	}
	s.References = r.References
	return nil
}

// checkTexts validates the summary and fix templates; it runs after
// buildMatch so the capture names are known.
func checkTexts(s *Signature, r *rawSignature) error {
	if s.Summary == "" && s.Milestone == "" {
		return fieldErr(r.line, "summary", ErrInvalid, "missing")
	}
	captures := map[string]bool{}
	if s.Match != nil {
		for i := range s.Match.Items {
			for _, name := range s.Match.Items[i].Captures() {
				captures[name] = true
			}
		}
	}
	if err := checkTemplate(s.Summary, captures); err != nil {
		return &LoadError{Line: r.lineOf("summary"), Field: "summary", Kind: ErrBadTemplate, Err: err}
	}
	for i, step := range s.Fix {
		if err := checkTemplate(step, captures); err != nil {
			return &LoadError{Line: r.lineOf("fix"), Field: fmt.Sprintf("fix[%d]", i), Kind: ErrBadTemplate, Err: err}
		}
	}
	return nil
}

func buildMatch(s *Signature, r *rawSignature) error {
	rm := r.Match
	if rm == nil {
		return nil
	}
	m := &Match{MinCount: 1}
	var err error
	switch {
	case len(rm.Any) > 0 && len(rm.All) > 0:
		return fieldErr(rm.line, "match", ErrInvalid, "use either any or all, not both")
	case len(rm.Any) > 0:
		m.Mode = Any
		m.Items, err = compileItems(rm.Any, "match.any")
	case len(rm.All) > 0:
		m.Mode = All
		m.Items, err = compileItems(rm.All, "match.all")
	default:
		return fieldErr(rm.line, "match", ErrInvalid, "needs a non-empty any or all list")
	}
	if err != nil {
		return err
	}
	if m.Not, err = compileItems(rm.Not, "match.not"); err != nil {
		return err
	}
	if rm.MinCount != nil {
		if *rm.MinCount < 1 {
			return fieldErr(rm.lines["min_count"], "match.min_count", ErrInvalid, "must be at least 1, not %d", *rm.MinCount)
		}
		m.MinCount = *rm.MinCount
	}
	if rm.Window != "" {
		w, err := time.ParseDuration(rm.Window)
		if err != nil || w <= 0 {
			return fieldErr(rm.lines["window"], "match.window", ErrInvalid, "%q is not a positive duration such as 10m", rm.Window)
		}
		m.Window = w
	}
	s.Match = m
	return nil
}

func compileItems(raw []rawItem, field string) ([]Item, error) {
	items := make([]Item, 0, len(raw))
	for i := range raw {
		it, err := compileItem(&raw[i], fmt.Sprintf("%s[%d]", field, i))
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return items, nil
}

func compileItem(r *rawItem, field string) (Item, error) {
	it := Item{IgnoreCase: r.IgnoreCase, Line: r.line}
	switch {
	case r.Literal != "" && r.Regex != "":
		return it, fieldErr(r.line, field, ErrInvalid, "give either literal or regex, not both")
	case r.Literal != "":
		if len(r.Literals) > 0 {
			return it, fieldErr(r.line, field+".literals", ErrInvalid, "only regex items take literals")
		}
		it.Literal = r.Literal
		it.literal = []byte(r.Literal)
		it.Literals = []string{r.Literal}
		return it, nil
	case r.Regex != "":
		return it, compileRegexItem(&it, r, field)
	}
	return it, fieldErr(r.line, field, ErrInvalid, "needs a literal or a regex")
}

func compileRegexItem(it *Item, r *rawItem, field string) error {
	expr := r.Regex
	if r.IgnoreCase {
		expr = "(?i)" + expr
	}
	line := r.line
	if l, ok := r.lines["regex"]; ok {
		line = l
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return &LoadError{Line: line, Field: "regex", Kind: ErrBadRegex, Err: err}
	}
	it.Regex = re
	it.hasCapture = len(it.Captures()) > 0
	parsed, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return &LoadError{Line: line, Field: "regex", Kind: ErrBadRegex, Err: err}
	}
	if len(r.Literals) > 0 {
		return checkDeclaredLiterals(it, r, parsed, field)
	}
	it.Literals = deriveLiterals(parsed)
	it.Derived = true
	if it.Literals == nil {
		return fieldErr(line, "regex", ErrNoLiteral,
			"no literal of %d or more bytes must occur in every match of %q; add literals: [...] naming strings every matching line contains", minDerivedLen, r.Regex)
	}
	return nil
}

// checkDeclaredLiterals accepts declared literals only when each one is
// written in the regex itself, which catches stale or mistyped literals.
func checkDeclaredLiterals(it *Item, r *rawItem, parsed *syntax.Regexp, field string) error {
	runs := literalRuns(parsed)
	for _, lit := range r.Literals {
		if lit == "" {
			return fieldErr(r.lines["literals"], field+".literals", ErrNoLiteral, "empty literal")
		}
		if !containsInAny(runs, lowerASCII(lit)) {
			return fieldErr(r.lines["literals"], field+".literals", ErrNoLiteral, "%q does not occur literally in the regex %q", lit, r.Regex)
		}
	}
	it.Literals = r.Literals
	return nil
}

func containsInAny(runs []string, s string) bool {
	for _, run := range runs {
		if strings.Contains(run, s) {
			return true
		}
	}
	return false
}

func buildConditions(s *Signature, r *rawSignature) error {
	for i := range r.Facts {
		c, err := buildCondition(&r.Facts[i], fmt.Sprintf("facts[%d]", i))
		if err != nil {
			return err
		}
		s.Facts = append(s.Facts, c)
	}
	return nil
}

func buildCondition(r *rawCondition, field string) (Condition, error) {
	c := Condition{Fact: r.Fact, Line: r.line}
	if !factNamePattern.MatchString(r.Fact) {
		return c, fieldErr(r.line, field+".fact", ErrInvalid, "%q is not a fact name such as cluster.name", r.Fact)
	}
	ops := 0
	count := func(set bool) bool {
		if set {
			ops++
		}
		return set
	}
	if count(r.Equals != nil) {
		c.Op, c.Value = OpEquals, *r.Equals
	}
	if count(r.NotEquals != nil) {
		c.Op, c.Value = OpNotEquals, *r.NotEquals
	}
	if count(r.In != nil) {
		c.Op, c.Values = OpIn, r.In
	}
	if count(r.NotIn != nil) {
		c.Op, c.Values = OpNotIn, r.NotIn
	}
	if count(r.Exists != nil) {
		c.Op = OpExists
		if !*r.Exists {
			c.Op = OpMissing
		}
	}
	if count(r.Gt != nil) {
		c.Op, c.Number = OpGreater, *r.Gt
	}
	if count(r.Lt != nil) {
		c.Op, c.Number = OpLess, *r.Lt
	}
	if count(r.Matches != nil) {
		re, err := regexp.Compile(*r.Matches)
		if err != nil {
			return c, &LoadError{Line: r.lines["matches"], Field: field + ".matches", Kind: ErrBadRegex, Err: err}
		}
		c.Op, c.Regex = OpMatches, re
	}
	if ops != 1 {
		return c, fieldErr(r.line, field, ErrInvalid,
			"needs exactly one of equals, not_equals, in, not_in, exists, matches, gt, lt (found %d)", ops)
	}
	return c, nil
}

func buildSource(r *rawSource) (*Source, error) {
	src := &Source{Name: r.Name, Description: r.Description, Paths: r.Paths, ReadByAll: r.ReadByAll, Line: r.line}
	if !idPattern.MatchString(r.Name) {
		return nil, fieldErr(r.line, "name", ErrInvalid, "%q must match %s", r.Name, idPattern)
	}
	if len(r.Paths) == 0 {
		return nil, fieldErr(r.line, "paths", ErrInvalid, "a source needs at least one path pattern")
	}
	for _, p := range r.Paths {
		if _, err := compileGlob(p); err != nil {
			return nil, &LoadError{Line: r.lines["paths"], Field: "paths", Kind: ErrInvalid, Err: err}
		}
	}
	return src, nil
}
