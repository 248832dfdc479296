package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodetriage/nodetriage/internal/analyze"
	"github.com/nodetriage/nodetriage/internal/collect"
	"github.com/nodetriage/nodetriage/internal/collect/testroot"
	"github.com/nodetriage/nodetriage/internal/journal/journaltest"
	"github.com/nodetriage/nodetriage/internal/signature"
	"github.com/nodetriage/nodetriage/patterns"
)

// imdsServer answers IMDSv2 like the instance of the seed story; it refuses
// any GET without a token, and fails the test on a credentials request.
func imdsServer(t *testing.T) *httptest.Server {
	t.Helper()
	const token = "e2e-token"
	mac := "06:5a:1b:2c:3d:4e"
	values := map[string]string{
		"/latest/dynamic/instance-identity/document":                                   `{"accountId":"111122223333","region":"ap-northeast-1","availabilityZone":"ap-northeast-1a","instanceId":"i-0a1b2c3d4e5f60718","instanceType":"m6i.large","imageId":"ami-0c1d2e3f4a5b6c7d8","privateIp":"10.23.233.47","architecture":"x86_64"}`,
		"/latest/meta-data/placement/region":                                           "ap-northeast-1",
		"/latest/meta-data/placement/availability-zone":                                "ap-northeast-1a",
		"/latest/meta-data/placement/availability-zone-id":                             "apne1-az4",
		"/latest/meta-data/instance-type":                                              "m6i.large",
		"/latest/meta-data/instance-id":                                                "i-0a1b2c3d4e5f60718",
		"/latest/meta-data/ami-id":                                                     "ami-0c1d2e3f4a5b6c7d8",
		"/latest/meta-data/local-ipv4":                                                 "10.23.233.47",
		"/latest/meta-data/local-hostname":                                             "ip-10-23-233-47.ap-northeast-1.compute.internal",
		"/latest/meta-data/mac":                                                        mac,
		"/latest/meta-data/network/interfaces/macs/" + mac + "/subnet-id":              "subnet-0aa11bb22cc33dd44",
		"/latest/meta-data/network/interfaces/macs/" + mac + "/vpc-id":                 "vpc-0123456789abcdef0",
		"/latest/meta-data/network/interfaces/macs/" + mac + "/subnet-ipv4-cidr-block": "10.23.232.0/22",
		"/latest/meta-data/network/interfaces/macs/" + mac + "/vpc-ipv4-cidr-blocks":   "10.23.0.0/16",
		"/latest/meta-data/network/interfaces/macs/" + mac + "/security-group-ids":     "sg-0a1b2c3d4e5f60718",
		"/latest/meta-data/iam/info":                                                   `{"Code":"Success","InstanceProfileArn":"arn:aws:iam::111122223333:instance-profile/billing-prod-node-profile","InstanceProfileId":"AIPAEXAMPLE"}`,
		"/latest/meta-data/iam/security-credentials/":                                  "billing-prod-node-role",
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && r.URL.Path == "/latest/api/token" {
			w.Write([]byte(token))
			return
		}
		if strings.Contains(r.URL.Path, "security-credentials/") && !strings.HasSuffix(r.URL.Path, "security-credentials/") {
			t.Errorf("credentials document requested: %s", r.URL.Path)
		}
		if r.Header.Get("X-aws-ec2-metadata-token") != token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.URL.Path == "/latest/user-data" {
			http.NotFound(w, r) // user data then comes from the root, as on a node where IMDS lost it
			return
		}
		v, ok := values[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(v))
	}))
}

func collectNode(t *testing.T, name, imdsURL string) string {
	t.Helper()
	if !journaltest.Available() {
		t.Skip("systemd-journal-remote is not installed")
	}
	root := filepath.Join(t.TempDir(), "root")
	err := testroot.Materialize(name, root, func(dir string, export []byte) error {
		journaltest.Write(t, dir, export)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	opt := collect.Options{Root: root, Output: t.TempDir(), NoProbes: true, Timeout: time.Minute, MaxSize: 5 << 20}
	if imdsURL == "" {
		opt.NoIMDS = true
	} else {
		opt.IMDSEndpoint = imdsURL
	}
	res, err := collect.Run(context.Background(), opt)
	if err != nil {
		t.Fatalf("collect: %v", err)
	}
	return res.Path
}

func analyzeBundle(t *testing.T, path string) analyze.BundleReport {
	t.Helper()
	cat, err := signature.Load(patterns.FS)
	if err != nil {
		t.Fatal(err)
	}
	a, err := analyze.New(analyze.Options{Catalog: cat, KeepFacts: true})
	if err != nil {
		t.Fatal(err)
	}
	br := a.Bundle(context.Background(), path)
	if br.Error != "" {
		t.Fatalf("analyze: %s", br.Error)
	}
	return br
}

// TestSeedOneEndToEnd is the first seed's story: AL2023 shell user data that
// writes /etc/eks/nodeadm-config.yaml and runs nodeadm init without
// --config-source. The root cause must come first, with the corrected
// command and the node's own values, and nodeadm's failure as evidence.
func TestSeedOneEndToEnd(t *testing.T) {
	srv := imdsServer(t)
	defer srv.Close()
	br := analyzeBundle(t, collectNode(t, "al2023-nodeadm-failure", srv.URL))
	if len(br.Findings) == 0 {
		t.Fatal("no finding")
	}
	top := br.Findings[0]
	if top.ID != "userdata-nodeconfig-file-not-passed" || !top.RootCause {
		t.Fatalf("top finding %s (root cause %v), want userdata-nodeconfig-file-not-passed", top.ID, top.RootCause)
	}
	fix := strings.Join(top.Fix, "\n")
	if !strings.Contains(fix, "nodeadm init --config-source file:///etc/eks/nodeadm-config.yaml") {
		t.Errorf("fix lacks the corrected command:\n%s", fix)
	}
	if br.Node.Cluster != "billing-prod" || br.Node.AvailabilityZone != "ap-northeast-1a" ||
		br.Node.RoleARN != "arn:aws:iam::111122223333:role/billing-prod-node-role" {
		t.Errorf("node facts: %+v", br.Node)
	}
	symptom := findingByID(br, "nodeadm-no-config-in-chain")
	if symptom == nil || !slices.Contains(symptom.ExplainedBy, top.ID) {
		t.Fatalf("nodeadm's failure is not linked to the cause: %+v", symptom)
	}
	if !slices.ContainsFunc(symptom.Evidence, func(e analyze.Evidence) bool { return e.File == "nodeadm/nodeadm-config.log" }) {
		t.Errorf("evidence does not point at nodeadm/nodeadm-config.log: %+v", symptom.Evidence)
	}
	if br.Reached == "" || slices.ContainsFunc(br.Timeline, func(m analyze.Milestone) bool { return m.ID == "kubelet-started" && m.Reached }) {
		t.Errorf("timeline: reached %q, %+v", br.Reached, br.Timeline)
	}
}

// TestHealthyNodesEndToEnd collects the healthy fake nodes: nothing at
// warning or above may come out.
func TestHealthyNodesEndToEnd(t *testing.T) {
	for _, name := range []string{"al2023-healthy", "al2-bootstrap"} {
		t.Run(name, func(t *testing.T) {
			br := analyzeBundle(t, collectNode(t, name, ""))
			for _, f := range br.Findings {
				if f.Serious() {
					t.Errorf("false positive %s (%s): %+v", f.ID, f.Severity, f.Evidence)
				}
			}
			if !slices.ContainsFunc(br.Timeline, func(m analyze.Milestone) bool { return m.ID == "kubelet-started" && m.Reached }) {
				t.Errorf("a healthy node's kubelet start was not seen: %+v", br.Timeline)
			}
		})
	}
}

func findingByID(br analyze.BundleReport, id string) *analyze.Finding {
	for i := range br.Findings {
		if br.Findings[i].ID == id {
			return &br.Findings[i]
		}
	}
	return nil
}
