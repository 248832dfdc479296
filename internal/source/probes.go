package source

import (
	"context"
	"fmt"
	"time"

	"github.com/nodetriage/nodetriage/internal/probe"
)

// Probes checks from this machine whether the cluster's API server and the
// regional AWS endpoints can be reached, and writes probes/probes.json. It
// waits for the metadata (region) and the user data (API server) sources.
type Probes struct {
	tree     *Tree
	imds     *IMDS
	userData *UserData
	opts     probe.Options
}

// NewProbes returns the probe source.
func NewProbes(tree *Tree, md *IMDS, ud *UserData, opts probe.Options) *Probes {
	return &Probes{tree: tree, imds: md, userData: ud, opts: opts}
}

// Name is the source name.
func (s *Probes) Name() string { return "probes" }

// Deadline covers waiting for IMDS and three probe steps.
func (s *Probes) Deadline() time.Duration { return 30 * time.Second }

// probeReport is probes/probes.json.
type probeReport struct {
	Region           string `json:"region,omitempty"`
	RegionFrom       string `json:"region_from,omitempty"`
	APIServer        string `json:"api_server,omitempty"`
	APIServerFrom    string `json:"api_server_from,omitempty"`
	ClusterCAPresent bool   `json:"cluster_ca_present"`
	RanOn            string `json:"ran_on"`
	// DescribesNode is false when the probes ran from another machine
	// than the node, so they say nothing of the node's network.
	DescribesNode bool           `json:"describes_node"`
	Results       []probe.Result `json:"results"`
}

// Collect runs the probes in parallel.
func (s *Probes) Collect(ctx context.Context, out Sink) error {
	md, _ := s.imds.Metadata(ctx)
	if !s.imds.DescribesNode(ctx) {
		return fmt.Errorf("%w: the probes would test the network of the machine collect runs on, which is not the node of --root %s",
			ErrSkipped, s.tree.Dir())
	}
	report := probeReport{RanOn: "node", DescribesNode: true}
	if s.tree.Mounted() {
		report.RanOn = "node, whose file system is at --root " + s.tree.Dir()
	}
	ud, _ := s.userData.Parsed(ctx)
	cluster, _ := FindCluster(s.tree, ud)
	report.APIServer, report.APIServerFrom, report.ClusterCAPresent = cluster.Server, cluster.From, len(cluster.CA) > 0
	report.Region, report.RegionFrom = md.Region, "imds"
	if report.Region == "" {
		if r := probe.EndpointRegion(cluster.Server); r != "" {
			report.Region, report.RegionFrom = r, "api server endpoint"
		} else {
			report.RegionFrom = ""
		}
	}
	targets := probe.Regional(report.Region, cluster.Server, cluster.CA)
	if len(targets) == 0 {
		return fmt.Errorf("%w: neither the region nor the API server endpoint is known", ErrSkipped)
	}
	report.Results = probe.Run(ctx, targets, s.opts)
	return writeJSON(out, "probes/probes.json", report)
}
