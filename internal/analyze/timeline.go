package analyze

import (
	"slices"
	"time"
)

// bootSteps are the milestones of a node's way to Ready, in boot order.
// Catalog signatures with a `milestone:` field mark them; a milestone id the
// list does not know is shown after these.
var bootSteps = []struct{ id, title string }{
	{"instance-started", "instance started (kernel booted)"},
	{"nodeadm-config-done", "nodeadm wrote the node configuration"}, // nodeadm-config.service runs before cloud-init.service
	{"cloud-init-started", "cloud-init started"},
	{"bootstrap-done", "bootstrap.sh finished"},
	{"cloud-init-finished", "cloud-init finished"},
	{"containerd-started", "containerd running"},
	{"nodeadm-run-done", "nodeadm started the daemons"},
	{"kubelet-started", "kubelet started"},
	{"node-registered", "node registered with the API server"},
	{"cni-ready", "VPC CNI (aws-node) ready"},
	{"node-ready", "node Ready"},
}

// timeline lists the milestones in boot order and names the furthest one
// reached. Steps of the other distribution (bootstrap.sh on AL2023, nodeadm
// on AL2) are left out unless they were seen.
func (s *scan) timeline(distro string) ([]Milestone, string) {
	seen := make(map[string]*sigState)
	titles := make(map[string]string)
	var extra []string
	for i, st := range s.found {
		sig := s.a.matcher.Signature(i)
		if sig.Milestone == "" || s.tally.Count(i) == 0 {
			continue
		}
		if old, ok := seen[sig.Milestone]; !ok || earlier(timeOf(st), timeOf(old)) {
			seen[sig.Milestone] = st
		}
		titles[sig.Milestone] = sig.Title
		if !slices.ContainsFunc(bootSteps, func(b struct{ id, title string }) bool { return b.id == sig.Milestone }) && !slices.Contains(extra, sig.Milestone) {
			extra = append(extra, sig.Milestone)
		}
	}
	if len(seen) == 0 {
		return []Milestone{}, ""
	}
	slices.Sort(extra)
	var out []Milestone
	reached := ""
	for _, step := range bootSteps {
		st, ok := seen[step.id]
		if !ok && !expected(step.id, distro) {
			continue
		}
		m := Milestone{ID: step.id, Title: step.title, Reached: ok}
		if ok {
			setFirst(&m, st)
			reached = step.title
		}
		out = append(out, m)
	}
	for _, id := range extra {
		m := Milestone{ID: id, Title: titles[id], Reached: true}
		setFirst(&m, seen[id])
		out = append(out, m)
	}
	return out, reached
}

// expected reports whether a boot step belongs on a node of that
// distribution even when it was not seen: nodeadm's steps on AL2023,
// bootstrap.sh on AL2, neither when the distribution is unknown.
func expected(step, distro string) bool {
	switch step {
	case "nodeadm-config-done", "nodeadm-run-done":
		return distro == "al2023"
	case "bootstrap-done":
		return distro == "al2"
	}
	return true
}

func timeOf(st *sigState) *time.Time {
	if st.first.IsZero() {
		return nil
	}
	return &st.first
}

func setFirst(m *Milestone, st *sigState) {
	if len(st.evidence) > 0 {
		m.File, m.Line = st.evidence[0].File, st.evidence[0].Line
	}
	if t := timeOf(st); t != nil {
		u := t.UTC()
		m.Time = &u
	}
}

// lastReached is the time of the furthest milestone reached.
func lastReached(tl []Milestone) time.Time {
	var last time.Time
	for _, m := range tl {
		if m.Reached && m.Time != nil && m.Time.After(last) {
			last = *m.Time
		}
	}
	return last
}
