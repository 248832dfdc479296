// Package ahocorasick finds many literal strings in a text in a single pass.
//
// It builds a deterministic automaton (Aho-Corasick with every failure
// transition resolved ahead of time) over bytes. Letters are folded to lower
// case on both sides (ASCII only), so "Unauthorized" also finds
// "UNAUTHORIZED". Bytes that occur in no pattern share one input class, which
// keeps the transition table small: its width is the number of distinct
// (folded) bytes in the patterns plus one.
//
// Scanning costs one table lookup per input byte and one comparison; it
// allocates nothing. The automaton is immutable after Build and safe for
// concurrent use.
package ahocorasick

import (
	"errors"
	"fmt"
	"math"
)

// ErrEmptyPattern is returned by Build when a pattern is the empty string,
// which would match everywhere and is never what a caller means.
var ErrEmptyPattern = errors.New("empty pattern")

// ErrTooLarge is returned by Build when the transition table would not fit
// in 32-bit state numbers.
var ErrTooLarge = errors.New("automaton too large")

// Automaton is a compiled set of patterns.
type Automaton struct {
	// classes maps an input byte to its column in the transition table.
	classes [256]uint8
	// stride is the width of one table row (the number of byte classes).
	stride uint32
	// trans holds, for each state row, the next state; state numbers are
	// stored already multiplied by stride, so the next row starts there.
	trans []uint32
	// matchFrom is the (multiplied) number of the first state that ends at
	// least one pattern; states are numbered so that all such states come
	// last and one comparison tells whether a state reports anything.
	matchFrom uint32
	// outStart[k]..outStart[k+1] indexes outs for the k-th reporting state.
	outStart []uint32
	// outs lists pattern indices ending in each reporting state.
	outs []int32
	// patterns is the number of patterns given to Build.
	patterns int
}

// Build compiles patterns into an automaton. Pattern i is reported as i.
// Duplicate patterns are allowed and each one is reported.
func Build(patterns []string) (*Automaton, error) {
	for i, p := range patterns {
		if p == "" {
			return nil, fmt.Errorf("pattern %d: %w", i, ErrEmptyPattern)
		}
	}
	a := &Automaton{patterns: len(patterns)}
	a.stride = a.assignClasses(patterns)
	t, err := buildTrie(patterns, &a.classes, a.stride)
	if err != nil {
		return nil, err
	}
	t.resolveFailures()
	a.pack(t)
	return a, nil
}

// Len reports how many patterns the automaton was built from.
func (a *Automaton) Len() int { return a.patterns }

// Scan calls found once for every occurrence of every pattern in text,
// including overlapping and nested occurrences, in the order in which the
// occurrences end. found must not retain text.
func (a *Automaton) Scan(text []byte, found func(pattern int)) {
	trans, classes, matchFrom := a.trans, &a.classes, a.matchFrom
	var s uint32
	for _, b := range text {
		s = trans[s+uint32(classes[b])]
		if s >= matchFrom {
			a.report(s, found)
		}
	}
}

// report calls found for every pattern ending in state s.
func (a *Automaton) report(s uint32, found func(pattern int)) {
	k := (s - a.matchFrom) / a.stride
	for _, p := range a.outs[a.outStart[k]:a.outStart[k+1]] {
		found(int(p))
	}
}

// lowerASCII folds one ASCII letter to lower case.
func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// assignClasses gives every distinct folded pattern byte its own class,
// starting at 1; upper-case letters share the class of their lower-case
// form and every other byte falls into class 0. It returns the number of
// classes.
func (a *Automaton) assignClasses(patterns []string) uint32 {
	next := uint32(1)
	for _, p := range patterns {
		for i := 0; i < len(p); i++ {
			b := lowerASCII(p[i])
			if a.classes[b] != 0 {
				continue
			}
			a.classes[b] = uint8(next)
			if 'a' <= b && b <= 'z' {
				a.classes[b-'a'+'A'] = uint8(next)
			}
			next++
		}
	}
	return next
}

// trie is the automaton while it is being built, with plain state numbers.
type trie struct {
	stride uint32
	next   []int32   // next[state*stride+class]; -1 while unset
	own    [][]int32 // patterns that end exactly at a state
	fail   []int32
	order  []int32 // states in breadth-first order, root first
}

func buildTrie(patterns []string, classes *[256]uint8, stride uint32) (*trie, error) {
	t := &trie{stride: stride}
	t.addState()
	for i, p := range patterns {
		s := int32(0)
		for j := 0; j < len(p); j++ {
			at := uint32(s)*stride + uint32(classes[p[j]])
			if t.next[at] < 0 {
				if uint64(len(t.own)+1)*uint64(stride) > math.MaxUint32 {
					return nil, ErrTooLarge
				}
				t.next[at] = t.addState()
			}
			s = t.next[at]
		}
		t.own[s] = append(t.own[s], int32(i))
	}
	return t, nil
}

func (t *trie) addState() int32 {
	id := int32(len(t.own))
	t.own = append(t.own, nil)
	for c := uint32(0); c < t.stride; c++ {
		t.next = append(t.next, -1)
	}
	return id
}

func (t *trie) row(s int32) []int32 {
	at := uint32(s) * t.stride
	return t.next[at : at+t.stride]
}

// resolveFailures computes failure links breadth first and replaces every
// missing transition with the transition of the failure state, which turns
// the trie into a complete DFA.
func (t *trie) resolveFailures() {
	t.fail = make([]int32, len(t.own))
	t.order = make([]int32, 0, len(t.own))
	t.order = append(t.order, 0)
	root := t.row(0)
	for c, child := range root {
		if child < 0 {
			root[c] = 0
			continue
		}
		t.order = append(t.order, child)
	}
	for i := 1; i < len(t.order); i++ {
		s := t.order[i]
		failRow := t.row(t.fail[s])
		for c, child := range t.row(s) {
			if child < 0 {
				t.next[uint32(s)*t.stride+uint32(c)] = failRow[c]
				continue
			}
			t.fail[child] = failRow[c]
			t.order = append(t.order, child)
		}
	}
}

// outputs returns, for every state, the patterns reported there: its own
// plus those of its failure state (computed in breadth-first order, so the
// failure state is always complete first).
func (t *trie) outputs() [][]int32 {
	out := make([][]int32, len(t.own))
	for _, s := range t.order[1:] {
		inherited := out[t.fail[s]]
		if len(t.own[s]) == 0 {
			out[s] = inherited
			continue
		}
		merged := make([]int32, 0, len(t.own[s])+len(inherited))
		out[s] = append(append(merged, t.own[s]...), inherited...)
	}
	return out
}

// pack renumbers states so that reporting states come last, multiplies
// state numbers by the stride and lays out the output lists.
func (a *Automaton) pack(t *trie) {
	out := t.outputs()
	n := len(t.own)
	newID := make([]uint32, n)
	var quiet, loud []int32
	for s := 0; s < n; s++ {
		if len(out[s]) == 0 {
			quiet = append(quiet, int32(s))
		} else {
			loud = append(loud, int32(s))
		}
	}
	order := append(quiet, loud...) // root (0) is always quiet and stays first
	for id, s := range order {
		newID[s] = uint32(id) * a.stride
	}
	a.matchFrom = uint32(len(quiet)) * a.stride
	a.trans = make([]uint32, uint32(n)*a.stride)
	for id, s := range order {
		dst := a.trans[uint32(id)*a.stride : uint32(id+1)*a.stride]
		for c, next := range t.row(s) {
			dst[c] = newID[next]
		}
	}
	a.outStart = make([]uint32, 0, len(loud)+1)
	for _, s := range loud {
		a.outStart = append(a.outStart, uint32(len(a.outs)))
		a.outs = append(a.outs, out[s]...)
	}
	a.outStart = append(a.outStart, uint32(len(a.outs)))
}
