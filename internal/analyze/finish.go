package analyze

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nodetriage/nodetriage/internal/facts"
	"github.com/nodetriage/nodetriage/internal/signature"
)

// finish turns what the pass gathered into the bundle report.
func (s *scan) finish(br *BundleReport) {
	fs, notes := s.facts.Build()
	s.bundleFacts(fs)
	br.Notes = append(br.Notes, notes...)
	br.Node = nodeOf(fs)
	br.Timeline, br.Reached = s.timeline(fs["node.distro"])
	br.Findings = rank(s.findings(fs), s.a.explains, lastReached(br.Timeline))
	if s.a.opt.KeepFacts {
		br.Facts = fs
	}
}

// bundleFacts adds what the bundle's shape says: its layout and which
// logical sources had files, so that catalog entries can speak about
// missing evidence.
func (s *scan) bundleFacts(fs facts.Set) {
	fs["bundle.layout"] = string(s.layout())
	fs["bundle.format"] = s.b.Container
	for _, src := range s.a.opt.Catalog.Sources() {
		fs["bundle.has."+src.Name] = fmt.Sprint(s.sources[src.Name])
	}
}

// findings evaluates every signature that is not a milestone.
func (s *scan) findings(fs facts.Set) []Finding {
	var out []Finding
	m := s.a.matcher
	for i := range m.Len() {
		sig := m.Signature(i)
		if sig.Milestone != "" || !s.fired(i, sig, fs) {
			continue
		}
		out = append(out, s.finding(i, sig, fs))
	}
	return out
}

func (s *scan) fired(i int, sig *signature.Signature, fs facts.Set) bool {
	if sig.Match == nil {
		return len(sig.Facts) > 0 && sig.FactsHold(fs)
	}
	return s.tally.Satisfied(i) && sig.FactsHold(fs)
}

func (s *scan) finding(i int, sig *signature.Signature, fs facts.Set) Finding {
	st := s.found[i]
	var captures map[string]string
	if st != nil {
		captures = st.captures
	}
	f := Finding{
		ID: sig.ID, Title: signature.Render(sig.Title, fs, captures), Severity: sig.Severity.String(),
		Component: sig.Component, RootCause: sig.RootCause, Confidence: string(sig.Confidence),
		Summary:    strings.TrimSpace(signature.Render(sig.Summary, fs, captures)),
		References: nonNil(sig.References), Fix: []string{}, Evidence: []Evidence{},
	}
	for _, step := range sig.Fix {
		f.Fix = append(f.Fix, strings.TrimSpace(signature.Render(step, fs, captures)))
	}
	if st != nil {
		f.Evidence, f.Count = st.evidence, st.count
		if !st.first.IsZero() {
			t := st.first.UTC()
			f.FirstSeen = &t
		}
	}
	if sig.Match == nil {
		f.Evidence = factEvidence(sig, fs)
		f.Count = len(f.Evidence)
	}
	return f
}

// factEvidence shows, for a pure fact check, the facts it read: the value,
// and where it came from when the fact set knows ("<fact>@" facts).
func factEvidence(sig *signature.Signature, fs facts.Set) []Evidence {
	ev := []Evidence{}
	for _, c := range sig.Facts {
		v, ok := fs[c.Fact]
		if !ok {
			continue
		}
		e := Evidence{File: "facts", Text: c.Fact + " = " + v}
		if where := fs[c.Fact+"@"]; where != "" {
			e.File, e.Line = splitLocation(where)
			if text := fs[c.Fact+"@text"]; text != "" {
				e.Text = text
			}
			if line := fs[c.Fact+"@line"]; line != "" {
				e.Text, e.Message = line, e.Text // the line itself, and what is wrong with it
			}
		}
		ev = append(ev, e)
	}
	return ev
}

func splitLocation(where string) (string, int) {
	i := strings.LastIndexByte(where, ':')
	if i < 0 {
		return where, 0
	}
	var n int
	if _, err := fmt.Sscanf(where[i+1:], "%d", &n); err != nil {
		return where, 0
	}
	return where[:i], n
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// rank links causes to the symptoms they explain and orders the findings:
// root causes that nothing else explains first, then by severity, then the
// first failure after the last milestone the boot reached, then by first
// occurrence.
func rank(fs []Finding, explains map[string][]string, lastMilestone time.Time) []Finding {
	byID := make(map[string]int, len(fs))
	for i, f := range fs {
		byID[f.ID] = i
	}
	for _, cause := range fs {
		for _, id := range explains[cause.ID] {
			if j, ok := byID[id]; ok && id != cause.ID {
				fs[j].ExplainedBy = append(fs[j].ExplainedBy, cause.ID)
			}
		}
	}
	for i := range fs {
		if fs[i].RootCause && len(fs[i].ExplainedBy) > 0 {
			fs[i].RootCause = false // a cause that follows from another cause is not the root
		}
	}
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.RootCause != b.RootCause {
			return a.RootCause
		}
		if ra, rb := severityRank[a.Severity], severityRank[b.Severity]; ra != rb {
			return ra < rb
		}
		if aa, ab := after(a, lastMilestone), after(b, lastMilestone); aa != ab {
			return aa
		}
		return earlier(a.FirstSeen, b.FirstSeen)
	})
	return fs
}

func after(f Finding, t time.Time) bool {
	return !t.IsZero() && f.FirstSeen != nil && !f.FirstSeen.Before(t)
}

func earlier(a, b *time.Time) bool {
	switch {
	case a == nil:
		return false
	case b == nil:
		return true
	}
	return a.Before(*b)
}

func nodeOf(fs facts.Set) Node {
	return Node{
		Name: fs["node.name"], InstanceID: fs["node.instance_id"], InstanceType: fs["node.instance_type"],
		Region: fs["node.region"], AvailabilityZone: fs["node.az"], AMIID: fs["node.ami"], AccountID: fs["node.account"],
		Cluster: fs["cluster.name"], NodeGroup: firstNonEmpty(fs["node.nodegroup"], fs["label.eks.amazonaws.com/nodegroup"]), RoleARN: fs["node.role_arn"],
		InstanceProfileARN: fs["node.instance_profile_arn"], Distro: firstNonEmpty(fs["node.distro_name"], fs["node.distro"]),
		Kernel: fs["node.kernel"], KubeletVersion: fs["kubelet.version"], ContainerdVersion: fs["containerd.version"],
		NodeadmVersion: fs["nodeadm.version"],
	}
}

func firstNonEmpty(v ...string) string {
	if i := slices.IndexFunc(v, func(s string) bool { return s != "" }); i >= 0 {
		return v[i]
	}
	return ""
}
