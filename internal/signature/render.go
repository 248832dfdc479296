package signature

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// capturePrefix marks a template variable that reads a regex capture
// instead of a fact: ${capture.where}.
const capturePrefix = "capture."

var (
	factNamePattern    = regexp.MustCompile(`^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$`)
	captureNamePattern = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
)

// Render fills a summary or fix template. ${name} takes the fact name and
// ${capture.x} the named regex group x of the evidence line. A value that is
// missing or empty renders as <name> (or <capture.x>), so the reader sees
// what to put there. Text that is not a well-formed variable is kept as is.
func Render(tmpl string, facts map[string]string, captures map[string]string) string {
	if !strings.Contains(tmpl, "${") {
		return tmpl
	}
	var b strings.Builder
	b.Grow(len(tmpl))
	for {
		start := strings.Index(tmpl, "${")
		if start < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		end := strings.IndexByte(tmpl[start:], '}')
		if end < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		name := tmpl[start+2 : start+end]
		b.WriteString(tmpl[:start])
		if value, ok := lookupVariable(name, facts, captures); ok {
			b.WriteString(value)
		} else if validVariable(name) {
			b.WriteString("<" + name + ">")
		} else {
			b.WriteString(tmpl[start : start+end+1])
		}
		tmpl = tmpl[start+end+1:]
	}
}

func lookupVariable(name string, facts, captures map[string]string) (string, bool) {
	var value string
	if capture, ok := strings.CutPrefix(name, capturePrefix); ok {
		value = captures[capture]
	} else {
		value = facts[name]
	}
	return value, value != ""
}

func validVariable(name string) bool {
	if capture, ok := strings.CutPrefix(name, capturePrefix); ok {
		return captureNamePattern.MatchString(capture)
	}
	return factNamePattern.MatchString(name)
}

// templateVariables lists the variables of a template, or an error when a
// ${ is not closed or a name is malformed.
func templateVariables(tmpl string) ([]string, error) {
	var names []string
	for {
		start := strings.Index(tmpl, "${")
		if start < 0 {
			return names, nil
		}
		end := strings.IndexByte(tmpl[start:], '}')
		if end < 0 {
			return names, errors.New("unterminated ${")
		}
		name := tmpl[start+2 : start+end]
		if !validVariable(name) {
			return names, fmt.Errorf("malformed variable ${%s}", name)
		}
		names = append(names, name)
		tmpl = tmpl[start+end+1:]
	}
}

// templateFacts lists the facts a (valid) template reads.
func templateFacts(tmpl string) []string {
	names, _ := templateVariables(tmpl)
	facts := names[:0]
	for _, n := range names {
		if !strings.HasPrefix(n, capturePrefix) {
			facts = append(facts, n)
		}
	}
	return facts
}

// checkTemplate validates a template against the captures a signature's
// regexes define.
func checkTemplate(tmpl string, captures map[string]bool) error {
	names, err := templateVariables(tmpl)
	if err != nil {
		return err
	}
	for _, n := range names {
		if capture, ok := strings.CutPrefix(n, capturePrefix); ok && !captures[capture] {
			return fmt.Errorf("${%s}: no regex of this signature has a group named %q", n, capture)
		}
	}
	return nil
}
