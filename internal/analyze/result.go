package analyze

import "time"

// SchemaVersion is the version of the JSON report; it changes only when a
// field changes meaning or goes away.
const SchemaVersion = 1

// Report is the result of one analyze run over one or more bundles.
type Report struct {
	Schema  int            `json:"schema"`
	Bundles []BundleReport `json:"bundles"`
	Fleet   *Fleet         `json:"fleet,omitempty"`
}

// BundleReport is what one bundle says about its node.
type BundleReport struct {
	Path     string            `json:"path"`
	Format   string            `json:"format"`
	Layout   string            `json:"layout"`
	Error    string            `json:"error,omitempty"`
	Node     Node              `json:"node"`
	Reached  string            `json:"reached,omitempty"`
	Timeline []Milestone       `json:"timeline"`
	Findings []Finding         `json:"findings"`
	Notes    []string          `json:"notes"`
	Stats    Stats             `json:"stats"`
	Facts    map[string]string `json:"facts,omitempty"`
}

// Node identifies the node a bundle came from, as far as the bundle tells.
type Node struct {
	Name               string `json:"name,omitempty"`
	InstanceID         string `json:"instance_id,omitempty"`
	InstanceType       string `json:"instance_type,omitempty"`
	Region             string `json:"region,omitempty"`
	AvailabilityZone   string `json:"availability_zone,omitempty"`
	AMIID              string `json:"ami_id,omitempty"`
	AccountID          string `json:"account_id,omitempty"`
	Cluster            string `json:"cluster,omitempty"`
	NodeGroup          string `json:"node_group,omitempty"`
	RoleARN            string `json:"role_arn,omitempty"`
	InstanceProfileARN string `json:"instance_profile_arn,omitempty"`
	Distro             string `json:"distro,omitempty"`
	Kernel             string `json:"kernel,omitempty"`
	KubeletVersion     string `json:"kubelet_version,omitempty"`
	ContainerdVersion  string `json:"containerd_version,omitempty"`
	NodeadmVersion     string `json:"nodeadm_version,omitempty"`
}

// Milestone is one step of a node's boot towards Ready.
type Milestone struct {
	ID      string     `json:"id"`
	Title   string     `json:"title"`
	Reached bool       `json:"reached"`
	Time    *time.Time `json:"time,omitempty"`
	File    string     `json:"file,omitempty"`
	Line    int        `json:"line,omitempty"`
}

// Finding is one signature that fired, with its evidence and its fix.
type Finding struct {
	ID          string     `json:"id"`
	Title       string     `json:"title"`
	Severity    string     `json:"severity"`
	Component   string     `json:"component"`
	RootCause   bool       `json:"root_cause"`
	Confidence  string     `json:"confidence"`
	ExplainedBy []string   `json:"explained_by,omitempty"`
	Summary     string     `json:"summary"`
	Fix         []string   `json:"fix"`
	References  []string   `json:"references"`
	Evidence    []Evidence `json:"evidence"`
	Count       int        `json:"count"`
	FirstSeen   *time.Time `json:"first_seen,omitempty"`
}

// Evidence is one line of the bundle that made a finding fire.
type Evidence struct {
	File    string     `json:"file"`
	Line    int        `json:"line,omitempty"`
	Time    *time.Time `json:"time,omitempty"`
	Text    string     `json:"text"`              // the line as it is in the file
	Message string     `json:"message,omitempty"` // the line without its journal, klog or zap prefix, when it had one
}

// Stats says how much of the bundle was read.
type Stats struct {
	Files      int     `json:"files"`
	Lines      int64   `json:"lines"`
	Bytes      int64   `json:"bytes"`
	DurationMS float64 `json:"duration_ms"`
}

// Fleet groups the findings of many bundles: which cause hit which nodes.
type Fleet struct {
	Causes []FleetCause `json:"causes"`
	Nodes  int          `json:"nodes"`
}

// FleetCause is one finding id and the nodes it was found on.
type FleetCause struct {
	ID        string      `json:"id"`
	Title     string      `json:"title"`
	Severity  string      `json:"severity"`
	RootCause bool        `json:"root_cause"`
	Nodes     []FleetNode `json:"nodes"`
	FirstSeen *time.Time  `json:"first_seen,omitempty"`
}

// FleetNode is one node in a fleet table row.
type FleetNode struct {
	Bundle           string `json:"bundle"`
	InstanceID       string `json:"instance_id,omitempty"`
	NodeGroup        string `json:"node_group,omitempty"`
	AvailabilityZone string `json:"availability_zone,omitempty"`
	InstanceType     string `json:"instance_type,omitempty"`
	AMIID            string `json:"ami_id,omitempty"`
}

// severityRank orders severities, most serious first.
var severityRank = map[string]int{"critical": 0, "error": 1, "warning": 2, "info": 3}

// Serious reports whether a finding is at warning or above, which makes
// analyze exit with 1.
func (f Finding) Serious() bool { return severityRank[f.Severity] <= severityRank["warning"] }

// Serious reports whether any finding of any bundle is at warning or above.
func (r *Report) Serious() bool {
	for _, b := range r.Bundles {
		for _, f := range b.Findings {
			if f.Serious() {
				return true
			}
		}
	}
	return false
}
