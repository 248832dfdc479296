package analyze

import (
	"strings"
	"testing"
	"time"
)

func at(min int) *time.Time {
	t := time.Date(2026, 11, 29, 14, min, 0, 0, time.UTC)
	return &t
}

func TestRank(t *testing.T) {
	tests := []struct {
		name      string
		in        []Finding
		explains  map[string][]string
		milestone time.Time
		want      string // ids in order
		demoted   string // a root cause that must lose its root-cause mark
	}{
		{"cause before its symptom", []Finding{
			{ID: "symptom", Severity: "critical", FirstSeen: at(1)},
			{ID: "cause", Severity: "error", RootCause: true, FirstSeen: at(2)},
		}, map[string][]string{"cause": {"symptom"}}, time.Time{}, "cause,symptom", ""},
		{"severity orders root causes", []Finding{
			{ID: "warn", Severity: "warning", RootCause: true},
			{ID: "crit", Severity: "critical", RootCause: true},
		}, nil, time.Time{}, "crit,warn", ""},
		{"first failure after the last milestone", []Finding{
			{ID: "old", Severity: "error", RootCause: true, FirstSeen: at(1)},
			{ID: "new", Severity: "error", RootCause: true, FirstSeen: at(10)},
		}, nil, *at(5), "new,old", ""},
		{"earlier first seen", []Finding{
			{ID: "b", Severity: "error", FirstSeen: at(3)},
			{ID: "a", Severity: "error", FirstSeen: at(2)},
			{ID: "none", Severity: "error"},
		}, nil, time.Time{}, "a,b,none", ""},
		{"a cause explained by another cause is demoted", []Finding{
			{ID: "mid", Severity: "critical", RootCause: true},
			{ID: "top", Severity: "error", RootCause: true},
		}, map[string][]string{"top": {"mid"}}, time.Time{}, "top,mid", "mid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rank(tt.in, tt.explains, tt.milestone)
			var ids []string
			for _, f := range got {
				ids = append(ids, f.ID)
				if f.ID == tt.demoted && f.RootCause {
					t.Errorf("%s kept its root-cause mark", f.ID)
				}
			}
			if s := strings.Join(ids, ","); s != tt.want {
				t.Errorf("order %s, want %s", s, tt.want)
			}
		})
	}
}

func TestFleet(t *testing.T) {
	bundles := []BundleReport{
		{Path: "/x/a.tar.gz", Node: Node{InstanceID: "i-a", AvailabilityZone: "az1"}, Findings: []Finding{{ID: "cause", RootCause: true, Severity: "critical", FirstSeen: at(5)}, {ID: "noise", Severity: "warning"}}},
		{Path: "/x/b.tar.gz", Node: Node{InstanceID: "i-b"}, Findings: []Finding{{ID: "cause", RootCause: true, Severity: "critical", FirstSeen: at(3)}}},
		{Path: "/x/c.tar.gz", Node: Node{InstanceID: "i-c"}},
	}
	fl := fleetOf(bundles)
	if fl.Nodes != 3 || len(fl.Causes) != 2 {
		t.Fatalf("fleet %+v", fl)
	}
	c := fl.Causes[0]
	if c.ID != "cause" || len(c.Nodes) != 2 || !c.FirstSeen.Equal(*at(3)) || c.Nodes[0].Bundle != "a.tar.gz" {
		t.Errorf("first cause %+v", c)
	}
}
