package signature

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// The raw* types mirror the YAML format one to one. They are decoded
// strictly (unknown keys are errors) and then checked and compiled into
// the exported types by build.go.

type rawSignatureFile struct {
	Signatures []yaml.Node `yaml:"signatures"`
}

type rawSourceFile struct {
	Sources []yaml.Node `yaml:"sources"`
}

type rawSignature struct {
	ID         string         `yaml:"id"`
	Title      string         `yaml:"title"`
	Severity   string         `yaml:"severity"`
	Component  string         `yaml:"component"`
	RootCause  bool           `yaml:"root_cause"`
	Sources    []string       `yaml:"sources"`
	Match      *rawMatch      `yaml:"match"`
	Facts      []rawCondition `yaml:"facts"`
	Explains   []string       `yaml:"explains"`
	Milestone  string         `yaml:"milestone"`
	Confidence string         `yaml:"confidence"`
	Summary    string         `yaml:"summary"`
	Fix        []string       `yaml:"fix"`
	References []string       `yaml:"references"`

	line  int
	lines map[string]int // line of each key
}

type rawMatch struct {
	Any      []rawItem `yaml:"any"`
	All      []rawItem `yaml:"all"`
	Not      []rawItem `yaml:"not"`
	MinCount *int      `yaml:"min_count"`
	Window   string    `yaml:"window"`

	line  int
	lines map[string]int
}

type rawItem struct {
	Literal    string   `yaml:"literal"`
	Regex      string   `yaml:"regex"`
	Literals   []string `yaml:"literals"`
	IgnoreCase bool     `yaml:"ignore_case"`

	line  int
	lines map[string]int
}

type rawCondition struct {
	Fact      string   `yaml:"fact"`
	Equals    *string  `yaml:"equals"`
	NotEquals *string  `yaml:"not_equals"`
	In        []string `yaml:"in"`
	NotIn     []string `yaml:"not_in"`
	Exists    *bool    `yaml:"exists"`
	Matches   *string  `yaml:"matches"`
	Gt        *float64 `yaml:"gt"`
	Lt        *float64 `yaml:"lt"`

	line  int
	lines map[string]int
}

type rawSource struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Paths       []string `yaml:"paths"`
	ReadByAll   bool     `yaml:"read_by_all"`

	line  int
	lines map[string]int
}

// Each raw type decodes itself strictly and remembers where it was.

func (r *rawSignature) UnmarshalYAML(n *yaml.Node) error {
	type plain rawSignature
	lines, err := decodeStrict(n, (*plain)(r))
	r.line, r.lines = n.Line, lines
	return err
}

func (r *rawMatch) UnmarshalYAML(n *yaml.Node) error {
	type plain rawMatch
	lines, err := decodeStrict(n, (*plain)(r))
	r.line, r.lines = n.Line, lines
	return err
}

func (r *rawItem) UnmarshalYAML(n *yaml.Node) error {
	type plain rawItem
	lines, err := decodeStrict(n, (*plain)(r))
	r.line, r.lines = n.Line, lines
	return err
}

func (r *rawCondition) UnmarshalYAML(n *yaml.Node) error {
	type plain rawCondition
	lines, err := decodeStrict(n, (*plain)(r))
	r.line, r.lines = n.Line, lines
	return err
}

func (r *rawSource) UnmarshalYAML(n *yaml.Node) error {
	type plain rawSource
	lines, err := decodeStrict(n, (*plain)(r))
	r.line, r.lines = n.Line, lines
	return err
}

// decodeStrict decodes a mapping node into the struct v points to after
// checking that every key is a field of the struct. It returns the line of
// each key. yaml.v3 only checks keys for a whole Decoder, not for
// Node.Decode, hence this.
func decodeStrict(n *yaml.Node, v any) (map[string]int, error) {
	if n.Kind != yaml.MappingNode {
		return nil, fieldErr(n.Line, "", ErrSyntax, "expected a mapping, found %s", nodeKindName(n))
	}
	known := yamlFieldNames(reflect.TypeOf(v).Elem())
	lines := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i]
		if !known[key.Value] {
			return lines, unknownFieldError(key, known)
		}
		if first, dup := lines[key.Value]; dup {
			return lines, fieldErr(key.Line, key.Value, ErrSyntax, "key repeated (first at line %d)", first)
		}
		lines[key.Value] = key.Line
	}
	if err := n.Decode(v); err != nil {
		return lines, yamlError(err)
	}
	return lines, nil
}

func unknownFieldError(key *yaml.Node, known map[string]bool) error {
	e := fieldErr(key.Line, "", ErrUnknownField, "unknown field %q", key.Value)
	if guess := closestName(key.Value, known); guess != "" {
		e.Err = fmt.Errorf("unknown field %q (did you mean %q?)", key.Value, guess)
	}
	return e
}

// closestName suggests a known field within two edits of a typo.
func closestName(typo string, known map[string]bool) string {
	best, bestDist := "", 3
	for name := range known {
		if d := editDistance(typo, name); d < bestDist || d == bestDist && name < best {
			best, bestDist = name, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

var fieldNameCache sync.Map // reflect.Type → map[string]bool

// yamlFieldNames returns the YAML keys of a struct type's fields.
func yamlFieldNames(t reflect.Type) map[string]bool {
	if cached, ok := fieldNameCache.Load(t); ok {
		return cached.(map[string]bool)
	}
	names := make(map[string]bool)
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			names[name] = true
		}
	}
	fieldNameCache.Store(t, names)
	return names
}

func nodeKindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("the value %q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "something else"
}

// yamlLinePrefix finds "line N: " in yaml.v3 messages.
var yamlLinePrefix = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

// yamlError turns an error of the YAML library into a LoadError with the
// line taken out of the message. Errors that are already LoadErrors (from a
// nested strict decode) pass through.
func yamlError(err error) error {
	var le *LoadError
	if errors.As(err, &le) {
		return err
	}
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 0
	if m := yamlLinePrefix.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
		// yaml.v3 reports parser errors at the 0-based line of the
		// construct that is left open; make it 1-based like the others.
		if strings.HasPrefix(msg, "did not find expected") {
			line++
		}
	}
	return &LoadError{Line: line, Kind: ErrSyntax, Err: errors.New(msg)}
}

// parseDocument parses YAML bytes and decodes the top level strictly into
// v (a *rawSignatureFile or *rawSourceFile). An empty document leaves v
// empty.
func parseDocument(data []byte, v any) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return yamlError(err)
	}
	if len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil
	}
	_, err := decodeStrict(root, v)
	return err
}
