package signature

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Op is the comparison of a fact condition.
type Op int

// Operators of fact conditions; the YAML key is given for each.
const (
	OpEquals    Op = iota + 1 // equals: value
	OpNotEquals               // not_equals: value
	OpIn                      // in: [values]
	OpNotIn                   // not_in: [values]
	OpExists                  // exists: true
	OpMissing                 // exists: false
	OpMatches                 // matches: regex
	OpGreater                 // gt: number
	OpLess                    // lt: number
)

var opNames = map[Op]string{
	OpEquals: "equals", OpNotEquals: "not_equals", OpIn: "in", OpNotIn: "not_in",
	OpExists: "exists", OpMissing: "exists: false", OpMatches: "matches",
	OpGreater: "gt", OpLess: "lt",
}

func (o Op) String() string { return opNames[o] }

// Condition is one test on one fact. Every operator except `exists: false`
// needs the fact to be present (and non-empty): a condition about an
// unknown fact does not hold, so a signature never fires on a guess.
type Condition struct {
	Fact   string
	Op     Op
	Value  string         // equals, not_equals
	Values []string       // in, not_in
	Regex  *regexp.Regexp // matches (unanchored)
	Number float64        // gt, lt
	Line   int
}

// Holds evaluates the condition against the facts.
func (c *Condition) Holds(facts map[string]string) bool {
	value, known := facts[c.Fact]
	known = known && value != ""
	if c.Op == OpMissing {
		return !known
	}
	if !known {
		return false
	}
	switch c.Op {
	case OpEquals:
		return value == c.Value
	case OpNotEquals:
		return value != c.Value
	case OpIn:
		return slices.Contains(c.Values, value)
	case OpNotIn:
		return !slices.Contains(c.Values, value)
	case OpExists:
		return true
	case OpMatches:
		return c.Regex.MatchString(value)
	case OpGreater, OpLess:
		return compareNumber(value, c.Op, c.Number)
	}
	return false
}

func compareNumber(value string, op Op, limit float64) bool {
	n, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
	if err != nil {
		return false
	}
	if op == OpGreater {
		return n > limit
	}
	return n < limit
}
