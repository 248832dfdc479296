package userdata

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// NodeConfig mirrors nodeadm's node.eks.aws/v1alpha1 NodeConfig. Field names
// and tags follow nodeadm so that YAML and JSON read the same way.
type NodeConfig struct {
	APIVersion string         `json:"apiVersion,omitempty" yaml:"apiVersion,omitempty"`
	Kind       string         `json:"kind,omitempty" yaml:"kind,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty" yaml:"metadata,omitempty"`
	Spec       NodeConfigSpec `json:"spec,omitempty" yaml:"spec,omitempty"`

	// lines maps dotted field paths ("spec.cluster.cidr") to the 1-based
	// line where the key appears, so Validate can point at it.
	lines map[string]int
}

// NodeConfigSpec is the spec of a NodeConfig.
type NodeConfigSpec struct {
	Cluster      ClusterDetails    `json:"cluster,omitempty" yaml:"cluster,omitempty"`
	Containerd   ContainerdOptions `json:"containerd,omitempty" yaml:"containerd,omitempty"`
	Instance     InstanceOptions   `json:"instance,omitempty" yaml:"instance,omitempty"`
	Kubelet      KubeletOptions    `json:"kubelet,omitempty" yaml:"kubelet,omitempty"`
	FeatureGates map[string]bool   `json:"featureGates,omitempty" yaml:"featureGates,omitempty"`
}

// ClusterDetails are the coordinates of the EKS cluster (DescribeCluster).
type ClusterDetails struct {
	Name              string `json:"name,omitempty" yaml:"name,omitempty"`
	APIServerEndpoint string `json:"apiServerEndpoint,omitempty" yaml:"apiServerEndpoint,omitempty"`
	// CertificateAuthority is the base64 text as written.
	CertificateAuthority string `json:"certificateAuthority,omitempty" yaml:"certificateAuthority,omitempty"`
	// CIDR is the cluster's service CIDR; the cluster DNS address is derived from it.
	CIDR          string `json:"cidr,omitempty" yaml:"cidr,omitempty"`
	EnableOutpost *bool  `json:"enableOutpost,omitempty" yaml:"enableOutpost,omitempty"`
	// ID is the cluster ID, needed on Outposts.
	ID string `json:"id,omitempty" yaml:"id,omitempty"`
}

// KubeletOptions are the kubelet settings of a NodeConfig.
type KubeletOptions struct {
	// Config is a KubeletConfiguration fragment.
	Config map[string]any `json:"config,omitempty" yaml:"config,omitempty"`
	// Flags are appended to kubelet's command line after nodeadm's own.
	Flags []string `json:"flags,omitempty" yaml:"flags,omitempty"`
	// MaxPodsExpression is a CEL expression computing maxPods.
	MaxPodsExpression string `json:"maxPodsExpression,omitempty" yaml:"maxPodsExpression,omitempty"`
}

// ContainerdOptions are the containerd settings of a NodeConfig.
type ContainerdOptions struct {
	// Config is inline TOML merged into nodeadm's containerd config.
	Config          string         `json:"config,omitempty" yaml:"config,omitempty"`
	BaseRuntimeSpec map[string]any `json:"baseRuntimeSpec,omitempty" yaml:"baseRuntimeSpec,omitempty"`
}

// InstanceOptions configure the instance's operating system.
type InstanceOptions struct {
	LocalStorage LocalStorageOptions `json:"localStorage,omitempty" yaml:"localStorage,omitempty"`
	// Environment maps a service name ("default" for all) to variables.
	Environment map[string]map[string]string `json:"environment,omitempty" yaml:"environment,omitempty"`
	Network     NetworkOptions               `json:"network,omitempty" yaml:"network,omitempty"`
}

// LocalStorageOptions say how instance-store disks are used.
type LocalStorageOptions struct {
	Strategy       string   `json:"strategy,omitempty" yaml:"strategy,omitempty"`
	MountPath      string   `json:"mountPath,omitempty" yaml:"mountPath,omitempty"`
	DisabledMounts []string `json:"disabledMounts,omitempty" yaml:"disabledMounts,omitempty"`
}

// NetworkOptions configure systemd-resolved.
type NetworkOptions struct {
	Nameservers []string `json:"nameservers,omitempty" yaml:"nameservers,omitempty"`
	Domains     []string `json:"domains,omitempty" yaml:"domains,omitempty"`
}

// shape describes which keys a mapping may hold; a nil shape accepts any
// content below it.
type shape map[string]shape

var nodeConfigShape = shape{
	"apiVersion": nil,
	"kind":       nil,
	"metadata":   nil,
	"spec": {
		"cluster": {
			"name": nil, "apiServerEndpoint": nil, "certificateAuthority": nil,
			"cidr": nil, "enableOutpost": nil, "id": nil,
		},
		"containerd": {"config": nil, "baseRuntimeSpec": nil},
		"instance": {
			"localStorage": {"strategy": nil, "mountPath": nil, "disabledMounts": nil},
			"environment":  nil,
			"network":      {"nameservers": nil, "domains": nil},
		},
		"kubelet":      {"config": nil, "flags": nil, "maxPodsExpression": nil},
		"featureGates": nil,
	},
}

// maxDocuments bounds how many YAML documents are looked at in one input.
const maxDocuments = 64

// ParseNodeConfig decodes a NodeConfig written as YAML or JSON.
//
// Like nodeadm, only the first YAML document is decoded; later documents
// are reported (CodeNodeConfigExtraDocuments) because nodeadm ignores them.
// Unknown keys are reported too: nodeadm silently drops them, so a
// misspelt "name" simply means the name is missing. The error (wrapping
// ErrInvalidNodeConfig) is set when nodeadm could not decode the document
// at all; the NodeConfig may then still hold what could be read.
func ParseNodeConfig(b []byte) (*NodeConfig, []Problem, error) {
	docs, probs, err := yamlDocuments(b)
	if err != nil {
		return nil, probs, err
	}
	root := docs[0]
	if len(docs) > 1 {
		probs = append(probs, problem(CodeNodeConfigExtraDocuments, SeverityWarning, docs[1].Line,
			"%d more YAML document(s) follow the first one; nodeadm decodes only the first document of a part or file, so their settings are ignored; put each NodeConfig in its own MIME part or file", len(docs)-1))
	}
	if root.Kind != yaml.MappingNode {
		p := problem(CodeNodeConfigDecode, SeverityError, root.Line,
			"the document is a YAML %s, not a mapping; nodeadm fails to decode node config", nodeKindName(root.Kind))
		return nil, append(probs, p), fmt.Errorf("%w: line %d: not a mapping", ErrInvalidNodeConfig, root.Line)
	}
	nc := &NodeConfig{lines: map[string]int{}}
	probs = append(probs, walkShape(root, nodeConfigShape, "", nc.lines)...)
	if err := decodeNode(root, nc); err != nil {
		probs = append(probs, decodeProblems(err)...)
		return nc, probs, fmt.Errorf("%w: %v", ErrInvalidNodeConfig, err)
	}
	return nc, probs, nil
}

// yamlDocuments returns the content nodes of the documents in b. The error
// is set when the first document cannot be read.
func yamlDocuments(b []byte) ([]*yaml.Node, []Problem, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var docs []*yaml.Node
	var probs []Problem
	for len(docs) < maxDocuments {
		var doc yaml.Node
		err := decodeNext(dec, &doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line := yamlErrorLine(err.Error())
			probs = append(probs, problem(CodeNodeConfigYAML, SeverityError, line,
				"YAML syntax error: %s; nodeadm fails with \"failed to decode node config\"", strings.TrimPrefix(err.Error(), "yaml: ")))
			if len(docs) == 0 {
				return nil, probs, fmt.Errorf("%w: %v", ErrInvalidNodeConfig, err)
			}
			break
		}
		if len(doc.Content) == 0 || isNullNode(doc.Content[0]) {
			continue
		}
		docs = append(docs, doc.Content[0])
	}
	if len(docs) == 0 {
		probs = append(probs, problem(CodeNodeConfigYAML, SeverityError, 0,
			"the NodeConfig is empty; nodeadm fails to decode node config"))
		return nil, probs, fmt.Errorf("%w: empty document", ErrInvalidNodeConfig)
	}
	return docs, probs, nil
}

// errYAMLPanic stands for a panic inside the YAML library, which must not
// take the analyzer down whatever the input.
var errYAMLPanic = errors.New("yaml: the parser failed on this input")

func decodeNext(dec *yaml.Decoder, doc *yaml.Node) (err error) {
	defer func() {
		if recover() != nil {
			err = errYAMLPanic
		}
	}()
	return dec.Decode(doc)
}

func decodeNode(n *yaml.Node, v any) (err error) {
	defer func() {
		if recover() != nil {
			err = errYAMLPanic
		}
	}()
	return n.Decode(v)
}

var (
	yamlLineRE       = regexp.MustCompile(`line (\d+)`)
	yamlLinePrefixRE = regexp.MustCompile(`^line \d+: `)
)

func yamlErrorLine(msg string) int {
	m := yamlLineRE.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// decodeProblems turns a YAML decode error into one Problem per message.
func decodeProblems(err error) []Problem {
	var te *yaml.TypeError
	msgs := []string{err.Error()}
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	out := make([]Problem, 0, len(msgs))
	for _, m := range msgs {
		msg := yamlLinePrefixRE.ReplaceAllString(strings.TrimPrefix(m, "yaml: "), "")
		out = append(out, problem(CodeNodeConfigDecode, SeverityError, yamlErrorLine(m),
			"a field has the wrong type (%s); nodeadm fails with \"failed to decode node config\"", msg))
	}
	return out
}

// isNullNode reports an empty document ("---" alone).
func isNullNode(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null" && (n.Value == "" || n.Value == "~" || n.Value == "null")
}

func nodeKindName(k yaml.Kind) string {
	switch k {
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.AliasNode:
		return "alias"
	}
	return "document"
}

// walkShape reports keys the shape does not know and records the line of
// every key it does know.
func walkShape(n *yaml.Node, s shape, prefix string, lines map[string]int) []Problem {
	var probs []Problem
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		if key.Value == "<<" {
			continue
		}
		path := joinPath(prefix, key.Value)
		sub, known := s[key.Value]
		if !known {
			probs = append(probs, problem(CodeNodeConfigUnknownField, SeverityWarning, key.Line,
				"unknown field %q: nodeadm ignores keys it does not know%s", path, suggestKey(key.Value, s)))
			continue
		}
		lines[path] = key.Line
		if sub != nil && val.Kind == yaml.MappingNode {
			probs = append(probs, walkShape(val, sub, path, lines)...)
		}
	}
	return probs
}

func joinPath(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// suggestKey proposes the known key closest to a misspelt one.
func suggestKey(key string, s shape) string {
	best, bestDist := "", 3
	known := make([]string, 0, len(s))
	for k := range s {
		known = append(known, k)
	}
	sort.Strings(known)
	for _, k := range known {
		if strings.EqualFold(k, key) {
			return fmt.Sprintf(" (did you mean %q? keys are case-sensitive)", k)
		}
		if d := editDistance(strings.ToLower(k), strings.ToLower(key)); d < bestDist && len(k) > 3 {
			best, bestDist = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance between short strings.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
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

// line returns where a field was written; for a missing field, where its
// closest written parent is; 0 when nothing is known.
func (nc *NodeConfig) line(path string) int {
	if nc == nil || nc.lines == nil {
		return 0
	}
	for path != "" {
		if n, ok := nc.lines[path]; ok {
			return n
		}
		i := strings.LastIndexByte(path, '.')
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}
