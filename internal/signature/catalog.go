package signature

import (
	"regexp"
	"slices"
	"time"
)

// Severity orders findings; a higher value is worse.
type Severity int

// Severities, from least to most severe.
const (
	Info Severity = iota + 1
	Warning
	Error
	Critical
)

var severityNames = map[Severity]string{
	Info: "info", Warning: "warning", Error: "error", Critical: "critical",
}

func (s Severity) String() string {
	if name, ok := severityNames[s]; ok {
		return name
	}
	return "unknown"
}

// ParseSeverity reads a severity name as written in the catalog.
func ParseSeverity(name string) (Severity, bool) {
	for s, n := range severityNames {
		if n == name {
			return s, true
		}
	}
	return 0, false
}

// Confidence says how sure a match makes us; ambiguous strings get less.
type Confidence string

// Confidence levels.
const (
	High   Confidence = "high"
	Medium Confidence = "medium"
	Low    Confidence = "low"
)

// MatchMode says how the items of a match combine.
type MatchMode int

// Match modes.
const (
	// Any: one hit of any item counts.
	Any MatchMode = iota
	// All: every item must hit somewhere in the files the signature reads
	// (not necessarily on the same line).
	All
)

// Signature is one known failure mode (or one boot milestone).
type Signature struct {
	ID         string
	Title      string
	Severity   Severity
	Component  string
	RootCause  bool
	Sources    []string // logical sources; empty means every text file
	Match      *Match   // nil for a pure fact check
	Facts      []Condition
	Explains   []string // ids of symptoms this cause explains
	Milestone  string   // non-empty: marks boot progress, not a problem
	Confidence Confidence
	Summary    string // template
	Fix        []string
	References []string

	File string // catalog file the signature came from
	Line int    // line of the signature in that file
}

// Match is the line-matching part of a signature.
type Match struct {
	Mode     MatchMode
	Items    []Item        // positive items (any: or all:)
	Not      []Item        // a line matching one of these is not a hit
	MinCount int           // hits needed; at least 1
	Window   time.Duration // when set, MinCount hits must fall within it
}

// Item is one literal or one regex.
type Item struct {
	// Literal is set for literal items; Regex is nil then.
	Literal string
	// Regex is set for regex items; with IgnoreCase it already carries (?i).
	Regex *regexp.Regexp
	// IgnoreCase: literal items fold ASCII letters; regex items use (?i).
	IgnoreCase bool
	// Literals are the prefilter literals: a line can only match this item
	// when it contains at least one of them (ASCII case ignored). For a
	// literal item it is the literal itself.
	Literals []string
	// Derived is true when Literals were derived from the regex rather
	// than declared in the catalog.
	Derived bool
	// Line is the item's line in the catalog file.
	Line int

	literal    []byte // Literal as bytes, for case-sensitive confirmation
	hasCapture bool   // Regex has named groups
}

// Pattern returns the literal or the regex source, as matched.
func (it *Item) Pattern() string {
	if it.Regex != nil {
		return it.Regex.String()
	}
	return it.Literal
}

// Captures lists the named groups of a regex item.
func (it *Item) Captures() []string {
	if it.Regex == nil {
		return nil
	}
	var names []string
	for _, n := range it.Regex.SubexpNames() {
		if n != "" {
			names = append(names, n)
		}
	}
	return names
}

// FactsHold reports whether every fact condition of the signature holds.
// A signature without conditions always holds.
func (s *Signature) FactsHold(facts map[string]string) bool {
	for i := range s.Facts {
		if !s.Facts[i].Holds(facts) {
			return false
		}
	}
	return true
}

// Source maps a logical source name to bundle path globs.
type Source struct {
	Name        string
	Description string
	Paths       []string // globs relative to the bundle root; ** spans folders
	// ReadByAll: every signature reads files of this source, whatever
	// sources it names (the whole journal, a console log).
	ReadByAll bool
	File      string
	Line      int
}

// Catalog is a loaded, validated set of signatures and sources.
type Catalog struct {
	signatures []*Signature
	sources    []*Source
}

// Signatures returns the signatures in catalog order (files sorted by name,
// then order within each file). The caller must not modify them.
func (c *Catalog) Signatures() []*Signature { return c.signatures }

// Sources returns the logical sources in catalog order.
func (c *Catalog) Sources() []*Source { return c.sources }

// Lookup finds a signature by id.
func (c *Catalog) Lookup(id string) *Signature {
	for _, s := range c.signatures {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// Merge returns a catalog holding c's signatures and sources plus extra's:
// an extra signature (or source) with a known id (or name) replaces the
// original in place, new ones are appended. Both catalogs must be valid on
// their own; use Overlay when extra files refer to c's signatures or
// sources.
func (c *Catalog) Merge(extra *Catalog) *Catalog {
	return &Catalog{
		signatures: mergeByName(c.signatures, extra.signatures, func(s *Signature) string { return s.ID }),
		sources:    mergeByName(c.sources, extra.sources, func(s *Source) string { return s.Name }),
	}
}

func mergeByName[T any](base, extra []T, name func(T) string) []T {
	out := slices.Clone(base)
	at := make(map[string]int, len(out))
	for i, v := range out {
		at[name(v)] = i
	}
	for _, v := range extra {
		if i, ok := at[name(v)]; ok {
			out[i] = v
			continue
		}
		at[name(v)] = len(out)
		out = append(out, v)
	}
	return out
}

// ExportPatterns lists every positive pattern of the catalog for an outside
// tool (the ripgrep benchmark): case-sensitive literals as they are, and
// regexes in Go syntax; literal items with ignore_case are exported as
// (?i) regexes.
func (c *Catalog) ExportPatterns() (literals []string, regexes []string) {
	for _, s := range c.signatures {
		if s.Match == nil {
			continue
		}
		for i := range s.Match.Items {
			it := &s.Match.Items[i]
			switch {
			case it.Regex != nil:
				regexes = append(regexes, it.Regex.String())
			case it.IgnoreCase:
				regexes = append(regexes, "(?i)"+regexp.QuoteMeta(it.Literal))
			default:
				literals = append(literals, it.Literal)
			}
		}
	}
	return literals, regexes
}

// FactNames lists every fact the catalog reads, in conditions or in
// templates, sorted and without duplicates. The analyzer's tests use it to
// check that it computes every fact the catalog needs.
func (c *Catalog) FactNames() []string {
	var names []string
	for _, s := range c.signatures {
		for _, cond := range s.Facts {
			names = append(names, cond.Fact)
		}
		names = append(names, templateFacts(s.Summary)...)
		for _, f := range s.Fix {
			names = append(names, templateFacts(f)...)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
