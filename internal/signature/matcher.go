package signature

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/nodetriage/nodetriage/internal/signature/ahocorasick"
)

// Hit is one signature item matching one line.
type Hit struct {
	Sig  int // index of the signature (Matcher.Signature)
	Item int // index into the signature's Match.Items
	// Captures holds the named groups of a regex item; nil when the regex
	// has none.
	Captures map[string]string
}

// Matcher routes bundle files to the signatures that read them and matches
// lines. It is safe for concurrent use; the FileMatchers it hands out are
// not.
type Matcher struct {
	sigs    []*Signature
	sources []compiledSource

	mu     sync.Mutex
	groups map[string]*group // by the set of sources a path belongs to
}

type compiledSource struct {
	name      string
	readByAll bool
	globs     []glob
}

// Compile prepares the catalog for matching. It builds the prefilter of the
// whole catalog once, so a catalog too large for it fails here rather than
// on some file later.
func (c *Catalog) Compile() (*Matcher, error) {
	m := &Matcher{sigs: c.signatures, groups: map[string]*group{}}
	for _, src := range c.sources {
		cs := compiledSource{name: src.Name, readByAll: src.ReadByAll}
		for _, p := range src.Paths {
			g, err := compileGlob(p)
			if err != nil {
				return nil, fmt.Errorf("source %q: %w", src.Name, err)
			}
			cs.globs = append(cs.globs, g)
		}
		m.sources = append(m.sources, cs)
	}
	if _, err := m.groupFor(allSignaturesKey, m.everySignature); err != nil {
		return nil, err
	}
	return m, nil
}

// Len is the number of signatures.
func (m *Matcher) Len() int { return len(m.sigs) }

// Signature returns signature i, as numbered in Hit.Sig.
func (m *Matcher) Signature(i int) *Signature { return m.sigs[i] }

// SourcesOf names the logical sources a bundle path belongs to.
func (m *Matcher) SourcesOf(bundlePath string) []string {
	var names []string
	for _, i := range m.sourcesOf(cleanBundlePath(bundlePath)) {
		names = append(names, m.sources[i].name)
	}
	return names
}

func (m *Matcher) sourcesOf(p string) []int {
	var matched []int
	for i, src := range m.sources {
		for _, g := range src.globs {
			if g.match(p) {
				matched = append(matched, i)
				break
			}
		}
	}
	return matched
}

// allSignaturesKey names the group that holds every signature.
const allSignaturesKey = "*"

// ForPath returns a matcher for the lines of one bundle file, holding only
// the signatures that read it: those naming one of the file's sources,
// those naming no source, and all of them when one of the file's sources
// is read by all. It returns nil when no signature reads the file. The
// path is relative to the bundle root ("kubelet/kubelet.log").
func (m *Matcher) ForPath(bundlePath string) *FileMatcher {
	matched := m.sourcesOf(cleanBundlePath(bundlePath))
	key, selected := sourceKey(matched), func(sig *Signature) bool { return m.reads(sig, matched) }
	for _, i := range matched {
		if m.sources[i].readByAll {
			key, selected = allSignaturesKey, m.everySignature
			break
		}
	}
	// A subset of the catalog cannot fail to build where the whole catalog
	// compiled, so an error here does not happen in practice.
	g, err := m.groupFor(key, selected)
	if err != nil || len(g.sigs) == 0 {
		return nil
	}
	return newFileMatcher(m, g)
}

// ForAll returns a matcher holding every signature, for a single text file
// given to analyze on its own (such as a console log).
func (m *Matcher) ForAll() *FileMatcher {
	g, err := m.groupFor(allSignaturesKey, m.everySignature)
	if err != nil || len(g.sigs) == 0 {
		return nil
	}
	return newFileMatcher(m, g)
}

func (m *Matcher) everySignature(*Signature) bool { return true }

func (m *Matcher) reads(sig *Signature, matched []int) bool {
	if len(sig.Sources) == 0 {
		return true
	}
	for _, i := range matched {
		if slices.Contains(sig.Sources, m.sources[i].name) {
			return true
		}
	}
	return false
}

func sourceKey(matched []int) string {
	var b strings.Builder
	for _, i := range matched {
		fmt.Fprintf(&b, "%d,", i)
	}
	return b.String()
}

func (m *Matcher) groupFor(key string, selected func(*Signature) bool) (*group, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g, ok := m.groups[key]; ok {
		return g, nil
	}
	var sigs []int
	for i, s := range m.sigs {
		if s.Match != nil && selected(s) {
			sigs = append(sigs, i)
		}
	}
	g, err := buildGroup(m.sigs, sigs)
	if err != nil {
		return nil, err
	}
	m.groups[key] = g
	return g, nil
}

// itemRef points at one item of one signature. Refs of a group are sorted
// by signature, then positive items before not items, then item index, so
// sorting ref numbers puts a line's candidates in evaluation order.
type itemRef struct {
	sig     int
	item    int
	negated bool
	it      *Item
	regex   int // number of the item's expression in the group, -1 for literals
}

// group is the compiled form of one set of signatures: one automaton over
// all their literals and the items each literal leads to.
type group struct {
	sigs    []int
	refs    []itemRef
	byLit   [][]int32 // literal number → refs using it
	finder  *ahocorasick.Automaton
	regexes int // distinct regex expressions among the refs
}

func buildGroup(all []*Signature, sigs []int) (*group, error) {
	g := &group{sigs: sigs}
	litIndex := map[string]int{}
	regexIndex := map[string]int{} // the same expression in several items runs once per line
	var literals []string
	for _, si := range sigs {
		match := all[si].Match
		for ii := range match.Items {
			ref := itemRef{sig: si, item: ii, it: &match.Items[ii]}
			g.addRef(g.numberRegex(ref, regexIndex), litIndex, &literals)
		}
		for ii := range match.Not {
			ref := itemRef{sig: si, item: ii, negated: true, it: &match.Not[ii]}
			g.addRef(g.numberRegex(ref, regexIndex), litIndex, &literals)
		}
	}
	finder, err := ahocorasick.Build(literals)
	if err != nil {
		return nil, fmt.Errorf("building the literal prefilter: %w", err)
	}
	g.finder = finder
	return g, nil
}

// numberRegex gives a ref's regex the number of its expression, shared by
// every item with the same expression.
func (g *group) numberRegex(ref itemRef, index map[string]int) itemRef {
	ref.regex = -1
	if ref.it.Regex == nil {
		return ref
	}
	expr := ref.it.Regex.String()
	n, ok := index[expr]
	if !ok {
		n = g.regexes
		index[expr] = n
		g.regexes++
	}
	ref.regex = n
	return ref
}

func (g *group) addRef(ref itemRef, litIndex map[string]int, literals *[]string) {
	r := int32(len(g.refs))
	g.refs = append(g.refs, ref)
	for _, lit := range ref.it.Literals {
		key := lowerASCII(lit)
		li, ok := litIndex[key]
		if !ok {
			li = len(*literals)
			litIndex[key] = li
			*literals = append(*literals, key)
			g.byLit = append(g.byLit, nil)
		}
		if !slices.Contains(g.byLit[li], r) {
			g.byLit[li] = append(g.byLit[li], r)
		}
	}
}

// FileMatcher matches the lines of one file. It keeps scratch space between
// calls, so it must not be shared between goroutines.
type FileMatcher struct {
	m     *Matcher
	g     *group
	epoch uint32
	seen  []uint32 // per ref: epoch in which it became a candidate
	cands []int32
	found func(int) // bound once, so Match allocates nothing
	// Per distinct regex: the epoch (line) of the memoized result, and the
	// result. A catalog that repeats an expression pays for it once a line.
	memoEpoch []uint32
	memoLoc   [][]int // submatch positions; nil when the regex did not match
}

func newFileMatcher(m *Matcher, g *group) *FileMatcher {
	fm := &FileMatcher{m: m, g: g, seen: make([]uint32, len(g.refs)),
		memoEpoch: make([]uint32, g.regexes), memoLoc: make([][]int, g.regexes)}
	fm.found = fm.collect
	return fm
}

// regexLoc runs a ref's regex on the line, once per line and expression.
func (fm *FileMatcher) regexLoc(ref *itemRef, line []byte) []int {
	n := ref.regex
	if fm.memoEpoch[n] != fm.epoch {
		fm.memoEpoch[n] = fm.epoch
		fm.memoLoc[n] = ref.it.Regex.FindSubmatchIndex(line)
	}
	return fm.memoLoc[n]
}

// Signatures lists the indices of the signatures this matcher tests.
func (fm *FileMatcher) Signatures() []int { return fm.g.sigs }

// Match appends to dst the hits of one line (without its line ending) and
// returns the extended slice. Lines that contain none of the catalog's
// literals cost one pass of the automaton and no allocation. For a
// signature with match.any at most one hit is reported per line (the first
// matching item); with match.all every matching item is reported. A line
// that matches one of a signature's not items yields no hit for it.
func (fm *FileMatcher) Match(line []byte, dst []Hit) []Hit {
	fm.nextEpoch()
	fm.cands = fm.cands[:0]
	fm.g.finder.Scan(line, fm.found)
	if len(fm.cands) == 0 {
		return dst
	}
	slices.Sort(fm.cands)
	for start := 0; start < len(fm.cands); {
		end := start + 1
		sig := fm.g.refs[fm.cands[start]].sig
		for end < len(fm.cands) && fm.g.refs[fm.cands[end]].sig == sig {
			end++
		}
		dst = fm.matchSignature(line, fm.cands[start:end], dst)
		start = end
	}
	return dst
}

// collect turns one literal occurrence into candidate refs, once per line.
func (fm *FileMatcher) collect(lit int) {
	for _, r := range fm.g.byLit[lit] {
		if fm.seen[r] != fm.epoch {
			fm.seen[r] = fm.epoch
			fm.cands = append(fm.cands, r)
		}
	}
}

func (fm *FileMatcher) nextEpoch() {
	fm.epoch++
	if fm.epoch == 0 { // wrapped: old marks could collide
		clear(fm.seen)
		clear(fm.memoEpoch)
		fm.epoch = 1
	}
}

// matchSignature evaluates the candidate items of one signature.
func (fm *FileMatcher) matchSignature(line []byte, cands []int32, dst []Hit) []Hit {
	before := len(dst)
	for _, r := range cands {
		ref := &fm.g.refs[r]
		if ref.negated {
			if len(dst) > before && fm.confirm(ref, line) {
				return dst[:before]
			}
			continue
		}
		if len(dst) > before && fm.m.sigs[ref.sig].Match.Mode == Any {
			continue
		}
		if hit, ok := fm.confirmHit(ref, line); ok {
			dst = append(dst, hit)
		}
	}
	return dst
}

// confirm runs the exact test of an item on a line that passed the
// prefilter.
func (fm *FileMatcher) confirm(ref *itemRef, line []byte) bool {
	it := ref.it
	switch {
	case it.Regex != nil:
		return fm.regexLoc(ref, line) != nil
	case it.IgnoreCase:
		return containsFoldASCII(line, it.literal)
	default:
		return bytes.Contains(line, it.literal)
	}
}

func (fm *FileMatcher) confirmHit(ref *itemRef, line []byte) (Hit, bool) {
	hit := Hit{Sig: ref.sig, Item: ref.item}
	it := ref.it
	if it.Regex == nil || !it.hasCapture {
		return hit, fm.confirm(ref, line)
	}
	loc := fm.regexLoc(ref, line)
	if loc == nil {
		return hit, false
	}
	hit.Captures = map[string]string{}
	for i, name := range it.Regex.SubexpNames() {
		if name != "" && loc[2*i] >= 0 {
			hit.Captures[name] = string(line[loc[2*i]:loc[2*i+1]])
		}
	}
	return hit, true
}

// containsFoldASCII is bytes.Contains with ASCII letters folded, the
// meaning of ignore_case for literal items.
func containsFoldASCII(s, sub []byte) bool {
	if len(sub) == 0 {
		return true
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		if equalFoldASCII(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

func equalFoldASCII(a, b []byte) bool {
	for i := range a {
		if lowerByte(a[i]) != lowerByte(b[i]) {
			return false
		}
	}
	return true
}

func lowerByte(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}
