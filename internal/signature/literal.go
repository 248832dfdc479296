package signature

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of the literal analysis. They bound work and table size; they
// never make the result wrong, only less selective.
const (
	maxExactSet = 32  // strings in an exact set before it is given up
	maxExactLen = 256 // bytes in one exact string
	maxAnyOf    = 64  // alternatives in a requirement
	// minDerivedLen is the shortest literal worth deriving: shorter ones
	// pass too many lines to be a useful prefilter, so the author must
	// declare literals instead.
	minDerivedLen = 3
)

// litInfo is what the analysis knows about the strings a regex node
// matches. Both parts may be nil (nothing known).
type litInfo struct {
	// exact, when non-nil, is the complete set of strings the node can
	// match, with ASCII letters lowered.
	exact []string
	// anyOf, when non-nil, is a set of strings at least one of which is a
	// substring of every match of the node.
	anyOf []string
}

// deriveLiterals returns lowered literals such that every string the regex
// matches contains at least one of them, or nil when no such set has
// literals of at least minDerivedLen bytes.
//
// The prefilter folds ASCII letters only, so case-insensitive parts of the
// regex yield literals only where every case variant of a rune is ASCII
// (not 'k', which folds to the Kelvin sign, nor 's', which folds to 'ſ').
// U+FFFD is never used: the regex engine matches it against invalid UTF-8,
// whose bytes differ.
func deriveLiterals(re *syntax.Regexp) []string {
	info := analyzeNode(re.Simplify())
	best := bestSet(info.exact, info.anyOf)
	if setScore(best) < minDerivedLen {
		return nil
	}
	return minimizeSet(best)
}

func analyzeNode(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return litInfo{exact: []string{""}}
	case syntax.OpLiteral:
		return analyzeLiteral(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		return litInfo{exact: classStrings(re.Rune)}
	case syntax.OpCapture:
		return analyzeNode(re.Sub[0])
	case syntax.OpQuest:
		sub := analyzeNode(re.Sub[0])
		if sub.exact == nil || len(sub.exact)+1 > maxExactSet {
			return litInfo{}
		}
		return litInfo{exact: union(sub.exact, []string{""})}
	case syntax.OpPlus:
		sub := analyzeNode(re.Sub[0])
		return litInfo{anyOf: bestSet(sub.exact, sub.anyOf)}
	case syntax.OpRepeat:
		if re.Min < 1 {
			return litInfo{}
		}
		sub := analyzeNode(re.Sub[0])
		return litInfo{anyOf: bestSet(sub.exact, sub.anyOf)}
	case syntax.OpConcat:
		return analyzeConcat(re.Sub)
	case syntax.OpAlternate:
		return analyzeAlternate(re.Sub)
	}
	// Star, any char, no match and the rest: nothing is known.
	return litInfo{}
}

// analyzeLiteral splits a literal where a rune cannot go into the
// prefilter and treats the pieces like a concatenation.
func analyzeLiteral(runes []rune, fold bool) litInfo {
	var parts []litInfo
	var cur []byte
	for _, r := range runes {
		if !prefilterSafe(r, fold) {
			parts = append(parts, litInfo{exact: []string{lowerASCII(string(cur))}}, litInfo{})
			cur = cur[:0]
			continue
		}
		cur = utf8.AppendRune(cur, r)
	}
	if len(parts) == 0 {
		return litInfo{exact: []string{lowerASCII(string(cur))}}
	}
	parts = append(parts, litInfo{exact: []string{lowerASCII(string(cur))}})
	return combineConcat(parts)
}

// prefilterSafe reports whether a rune can be searched for byte-wise after
// ASCII folding and still find every place the regex engine matches it.
func prefilterSafe(r rune, fold bool) bool {
	if r == utf8.RuneError {
		return false
	}
	if !fold {
		return true
	}
	if r >= utf8.RuneSelf {
		return unicode.SimpleFold(r) == r
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// classStrings enumerates a small character class, or returns nil.
func classStrings(ranges []rune) []string {
	var out []string
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if int(hi-lo)+1+len(out) > maxExactSet {
			return nil
		}
		for r := lo; r <= hi; r++ {
			if r == utf8.RuneError {
				return nil
			}
			out = append(out, lowerASCII(string(r)))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func analyzeConcat(subs []*syntax.Regexp) litInfo {
	parts := make([]litInfo, len(subs))
	for i, sub := range subs {
		parts[i] = analyzeNode(sub)
	}
	return combineConcat(parts)
}

// combineConcat joins neighbouring exact sets into longer strings while
// the cross product stays small, and keeps the best requirement seen.
func combineConcat(parts []litInfo) litInfo {
	cur := []string{""}
	exact := true
	var candidates [][]string
	for _, p := range parts {
		if p.exact != nil {
			if joined, ok := crossProduct(cur, p.exact); ok {
				cur = joined
				continue
			}
			exact = false
			candidates = append(candidates, cur)
			cur = p.exact
			continue
		}
		exact = false
		candidates = append(candidates, cur, p.anyOf)
		cur = []string{""}
	}
	candidates = append(candidates, cur)
	info := litInfo{anyOf: bestSet(candidates...)}
	if exact {
		info.exact = cur
	}
	return info
}

func analyzeAlternate(subs []*syntax.Regexp) litInfo {
	var exact, anyOf []string
	exactKnown, anyOfKnown := true, true
	for _, sub := range subs {
		info := analyzeNode(sub)
		if exactKnown && info.exact != nil && len(exact)+len(info.exact) <= maxExactSet {
			exact = union(exact, info.exact)
		} else {
			exactKnown = false
		}
		if best := bestSet(info.exact, info.anyOf); anyOfKnown && best != nil && len(anyOf)+len(best) <= maxAnyOf {
			anyOf = union(anyOf, best)
		} else {
			anyOfKnown = false
		}
		if !exactKnown && !anyOfKnown {
			return litInfo{}
		}
	}
	var info litInfo
	if exactKnown {
		info.exact = exact
	}
	if anyOfKnown {
		info.anyOf = anyOf
	}
	return info
}

func crossProduct(a, b []string) ([]string, bool) {
	if len(a)*len(b) > maxExactSet {
		return nil, false
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			if len(x)+len(y) > maxExactLen {
				return nil, false
			}
			out = append(out, x+y)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), true
}

func union(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// setScore is the length of the shortest string in a requirement set: the
// larger, the fewer lines pass. An empty set, or one holding "", is worth
// nothing.
func setScore(set []string) int {
	if len(set) == 0 {
		return 0
	}
	score := len(set[0])
	for _, s := range set[1:] {
		score = min(score, len(s))
	}
	return score
}

// bestSet picks the most selective candidate: highest score, then fewest
// strings.
func bestSet(candidates ...[]string) []string {
	var best []string
	for _, c := range candidates {
		if setScore(c) == 0 {
			continue
		}
		if best == nil || setScore(c) > setScore(best) ||
			setScore(c) == setScore(best) && len(c) < len(best) {
			best = c
		}
	}
	return best
}

// minimizeSet drops strings that contain another member: any line holding
// the longer one also holds the shorter.
func minimizeSet(set []string) []string {
	var out []string
	for i, s := range set {
		redundant := false
		for j, t := range set {
			if i != j && strings.Contains(s, t) && (len(t) < len(s) || j < i) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, s)
		}
	}
	return out
}

// literalRuns lists the literal strings written in a regex (lowered), to
// check that declared literals occur in it.
func literalRuns(re *syntax.Regexp) []string {
	var runs []string
	var walk func(*syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		if re.Op == syntax.OpLiteral {
			runs = append(runs, lowerASCII(string(re.Rune)))
		}
		for _, sub := range re.Sub {
			walk(sub)
		}
	}
	walk(re)
	return runs
}

// lowerASCII folds ASCII letters only, like the prefilter does.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
