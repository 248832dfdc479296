package signature

import (
	"regexp"
	"testing"
)

func TestConditionHolds(t *testing.T) {
	facts := map[string]string{
		"userdata.kind": "shell",
		"node.max_pods": "58",
		"node.ami":      "amazon-eks-node-al2023-x86_64-standard-1.31-v20250101",
		"empty":         "",
		"not.a.number":  "many",
	}
	tests := []struct {
		name string
		cond Condition
		want bool
	}{
		{"equals true", Condition{Fact: "userdata.kind", Op: OpEquals, Value: "shell"}, true},
		{"equals false", Condition{Fact: "userdata.kind", Op: OpEquals, Value: "mime"}, false},
		{"equals on missing fact", Condition{Fact: "nope", Op: OpEquals, Value: ""}, false},
		{"not_equals true", Condition{Fact: "userdata.kind", Op: OpNotEquals, Value: "mime"}, true},
		{"not_equals false", Condition{Fact: "userdata.kind", Op: OpNotEquals, Value: "shell"}, false},
		{"not_equals on missing fact", Condition{Fact: "nope", Op: OpNotEquals, Value: "shell"}, false},
		{"in true", Condition{Fact: "userdata.kind", Op: OpIn, Values: []string{"mime", "shell"}}, true},
		{"in false", Condition{Fact: "userdata.kind", Op: OpIn, Values: []string{"mime"}}, false},
		{"in on missing fact", Condition{Fact: "nope", Op: OpIn, Values: []string{""}}, false},
		{"not_in true", Condition{Fact: "userdata.kind", Op: OpNotIn, Values: []string{"mime"}}, true},
		{"not_in false", Condition{Fact: "userdata.kind", Op: OpNotIn, Values: []string{"shell"}}, false},
		{"not_in on missing fact", Condition{Fact: "nope", Op: OpNotIn, Values: []string{"x"}}, false},
		{"exists true", Condition{Fact: "userdata.kind", Op: OpExists}, true},
		{"exists on missing fact", Condition{Fact: "nope", Op: OpExists}, false},
		{"exists on empty fact", Condition{Fact: "empty", Op: OpExists}, false},
		{"exists false on missing fact", Condition{Fact: "nope", Op: OpMissing}, true},
		{"exists false on empty fact", Condition{Fact: "empty", Op: OpMissing}, true},
		{"exists false on present fact", Condition{Fact: "userdata.kind", Op: OpMissing}, false},
		{"matches true", Condition{Fact: "node.ami", Op: OpMatches, Regex: regexp.MustCompile(`al2023`)}, true},
		{"matches false", Condition{Fact: "node.ami", Op: OpMatches, Regex: regexp.MustCompile(`^al2-`)}, false},
		{"matches on missing fact", Condition{Fact: "nope", Op: OpMatches, Regex: regexp.MustCompile(`.*`)}, false},
		{"gt true", Condition{Fact: "node.max_pods", Op: OpGreater, Number: 29}, true},
		{"gt false at equality", Condition{Fact: "node.max_pods", Op: OpGreater, Number: 58}, false},
		{"gt on non-number", Condition{Fact: "not.a.number", Op: OpGreater, Number: 0}, false},
		{"lt true", Condition{Fact: "node.max_pods", Op: OpLess, Number: 110.5}, true},
		{"lt false", Condition{Fact: "node.max_pods", Op: OpLess, Number: 10}, false},
		{"lt on missing fact", Condition{Fact: "nope", Op: OpLess, Number: 1e9}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cond.Holds(facts); got != tt.want {
				t.Errorf("Holds = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFactsHold(t *testing.T) {
	c := mustLoad(t, map[string]string{"t.yaml": `signatures:
  - id: shell-on-al2023
    title: Shell user data on AL2023
    severity: critical
    summary: s
    facts:
      - fact: userdata.kind
        equals: shell
      - fact: node.ami_family
        in: [al2023, bottlerocket]
      - fact: node.max_pods
        lt: 300
      - fact: userdata.nodeconfig_path
        exists: false
`})
	s := c.Lookup("shell-on-al2023")
	tests := []struct {
		name  string
		facts map[string]string
		want  bool
	}{
		{"all hold", map[string]string{"userdata.kind": "shell", "node.ami_family": "al2023", "node.max_pods": "110"}, true},
		{"one fails", map[string]string{"userdata.kind": "mime", "node.ami_family": "al2023", "node.max_pods": "110"}, false},
		{"exists false fails", map[string]string{"userdata.kind": "shell", "node.ami_family": "al2023", "node.max_pods": "110", "userdata.nodeconfig_path": "userdata/part-1.yaml"}, false},
		{"no facts", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.FactsHold(tt.facts); got != tt.want {
				t.Errorf("FactsHold = %v, want %v", got, tt.want)
			}
		})
	}
	if (&Signature{}).FactsHold(nil) != true {
		t.Error("a signature without conditions must hold")
	}
}
