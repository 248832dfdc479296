package analyze

import (
	"sort"
)

// fleetOf groups the findings of many bundles by id: which cause hit which
// nodes. Root causes come first, then the causes that hit the most nodes.
func fleetOf(bundles []BundleReport) *Fleet {
	fl := &Fleet{Nodes: len(bundles), Causes: []FleetCause{}}
	at := make(map[string]int)
	for _, b := range bundles {
		node := FleetNode{Bundle: BundleName(b.Path), InstanceID: b.Node.InstanceID, NodeGroup: b.Node.NodeGroup,
			AvailabilityZone: b.Node.AvailabilityZone, InstanceType: b.Node.InstanceType, AMIID: b.Node.AMIID}
		for _, f := range b.Findings {
			i, ok := at[f.ID]
			if !ok {
				i = len(fl.Causes)
				at[f.ID] = i
				fl.Causes = append(fl.Causes, FleetCause{ID: f.ID, Title: f.Title, Severity: f.Severity})
			}
			c := &fl.Causes[i]
			c.RootCause = c.RootCause || f.RootCause
			c.Nodes = append(c.Nodes, node)
			if earlier(f.FirstSeen, c.FirstSeen) {
				c.FirstSeen = f.FirstSeen
			}
		}
	}
	sort.SliceStable(fl.Causes, func(i, j int) bool {
		a, b := fl.Causes[i], fl.Causes[j]
		if a.RootCause != b.RootCause {
			return a.RootCause
		}
		if len(a.Nodes) != len(b.Nodes) {
			return len(a.Nodes) > len(b.Nodes)
		}
		return severityRank[a.Severity] < severityRank[b.Severity]
	})
	return fl
}
