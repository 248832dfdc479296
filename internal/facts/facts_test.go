package facts

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// builderFromDir feeds a fixture bundle folder to a Builder the way the
// analyzer does: only the files Wants selects.
func builderFromDir(t *testing.T, dir string) *Builder {
	t.Helper()
	b := NewBuilder()
	b.Now = time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		name := filepath.ToSlash(rel)
		if name == "manifest.json" || Wants(name) {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.Add(name, data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBuildFromFixtures(t *testing.T) {
	tests := []struct {
		bundle string
		want   map[string]string
	}{
		{"seed1-al2023-nodeconfig-not-passed", map[string]string{
			"cluster.name":                           "billing-prod",
			"node.role_arn":                          "arn:aws:iam::111122223333:role/billing-prod-node-role",
			"node.az":                                "ap-northeast-1a",
			"node.distro":                            "al2023",
			"userdata.kind":                          "shell",
			"userdata.nodeadm_init":                  "true",
			"userdata.nodeconfig_path":               "/etc/eks/nodeadm-config.yaml",
			"userdata.corrected_init":                "/usr/bin/nodeadm init --config-source file:///etc/eks/nodeadm-config.yaml",
			"userdata.problem.config-source-missing": "true",
			"userdata.has_nodeconfig":                "false",
		}},
		{"seed2-al2023-kubelet-unauthorized", map[string]string{
			"cluster.name":               "billing-prod",
			"cluster.endpoint_host":      "ABCDEF0123456789.gr7.ap-northeast-1.eks.amazonaws.com",
			"node.instance_profile_arn":  "arn:aws:iam::111122223333:instance-profile/billing-prod-node-profile",
			"node.instance_profile_name": "billing-prod-node-profile",
			"userdata.kind":              "mime",
			"userdata.has_nodeconfig":    "true",
			"kubelet.max_pods":           "29",
			"kubelet.max_pods_eni_limit": "29",
			"label.team":                 "billing",
			"probe.apiserver.verdict":    "ok",
			"collection.partial":         "false",
		}},
		{"eks-log-collector-al2-unauthorized", map[string]string{
			"node.instance_id": "i-0c3d4e5f607182930",
			"node.region":      "us-west-2",
			"cluster.name":     "billing-legacy",
			"node.kernel":      "5.10.228-219.884.amzn2.x86_64",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.bundle, func(t *testing.T) {
			s, notes := builderFromDir(t, filepath.Join("..", "..", "testdata", "bundles", tt.bundle)).Build()
			if len(notes) > 0 {
				t.Errorf("notes: %v", notes)
			}
			for k, v := range tt.want {
				if s[k] != v {
					t.Errorf("%s = %q, want %q", k, s[k], v)
				}
			}
		})
	}
}

func TestUserDataProblemLocation(t *testing.T) {
	s, _ := builderFromDir(t, filepath.Join("..", "..", "testdata", "bundles", "seed1-al2023-nodeconfig-not-passed")).Build()
	where := s["userdata.problem.config-source-missing@"]
	if !strings.HasPrefix(where, "userdata/part-1.sh:") {
		t.Errorf("location = %q, want userdata/part-1.sh:<line>", where)
	}
	if s["userdata.problem.config-source-missing@text"] == "" {
		t.Error("no message for the problem")
	}
}

func TestDerive(t *testing.T) {
	tests := []struct {
		name string
		in   Set
		want map[string]string
	}{
		{"role arn in china", Set{"node.account": "111122223333", "node.role_name": "r", "node.region": "cn-north-1"},
			map[string]string{"node.role_arn": "arn:aws-cn:iam::111122223333:role/r"}},
		{"label without custom networking", Set{"label.k8s.amazonaws.com/eniConfig": "billing-ap-northeast-1a", "cni.custom_network": "false", "node.az": "ap-northeast-1a"},
			map[string]string{"cni.label_without_custom_network": "true", "cni.eniconfig_prefixed": "true", "cni.eniconfig_label": "billing-ap-northeast-1a"}},
		{"custom label key", Set{"cni.env.ENI_CONFIG_LABEL_DEF": "eks.amazonaws.com/custom-eni-config", "label.eks.amazonaws.com/custom-eni-config": "ap-northeast-1a", "node.az": "ap-northeast-1a", "cni.custom_network": "true"},
			map[string]string{"cni.eniconfig_label": "ap-northeast-1a", "cni.eniconfig_prefixed": "", "cni.eniconfig_unselected": ""}},
		{"custom networking with nothing selecting", Set{"cni.custom_network": "true"},
			map[string]string{"cni.eniconfig_unselected": "true"}},
		{"max pods above eni limit", Set{"node.instance_type": "m5.large", "kubelet.max_pods": "110"},
			map[string]string{"kubelet.max_pods_eni_limit": "29", "kubelet.max_pods_exceeds_eni": "true"}},
		{"max pods with prefix delegation", Set{"node.instance_type": "m5.large", "kubelet.max_pods": "110", "cni.prefix_delegation": "true"},
			map[string]string{"kubelet.max_pods_exceeds_eni": ""}},
		{"unknown instance type", Set{"node.instance_type": "x9.huge", "kubelet.max_pods": "110"},
			map[string]string{"kubelet.max_pods_eni_limit": ""}},
		{"region from the endpoint", Set{"cluster.endpoint": "https://8D2E4F6A0B1C3D5E7F9A1B3C5D7E9F10.gr7.ap-northeast-1.eks.amazonaws.com", "node.account": "111122223333", "node.role_name": "r"},
			map[string]string{"node.region": "ap-northeast-1", "cluster.endpoint_host": "8D2E4F6A0B1C3D5E7F9A1B3C5D7E9F10.gr7.ap-northeast-1.eks.amazonaws.com"}},
		{"china endpoint gives the partition", Set{"cluster.endpoint": "https://ABC.yl4.cn-north-1.eks.amazonaws.com.cn", "node.account": "111122223333", "node.role_name": "r"},
			map[string]string{"node.region": "cn-north-1", "node.role_arn": "arn:aws-cn:iam::111122223333:role/r"}},
		{"metadata region wins", Set{"cluster.endpoint": "https://ABC.gr7.us-west-2.eks.amazonaws.com", "node.region": "eu-west-1"},
			map[string]string{"node.region": "eu-west-1"}},
		{"not an eks endpoint", Set{"cluster.endpoint": "https://api.example.com:6443"},
			map[string]string{"node.region": ""}},
		{"kubelet ahead of the control plane", Set{"kubelet.version": "v1.32.1-eks-5e0fdde", "probe.apiserver.server_version": "v1.30.8-eks-2d5f260"},
			map[string]string{"cluster.version": "v1.30.8-eks-2d5f260", "cluster.minor_version": "1.30", "kubelet.version_skew": "-2", "kubelet.newer_than_cluster": "true", "kubelet.beyond_skew_policy": "false"}},
		{"kubelet four minors behind", Set{"kubelet.version": "1.27.16", "probe.apiserver.server_version": "v1.31.4-eks-2d5f260"},
			map[string]string{"kubelet.version_skew": "4", "kubelet.newer_than_cluster": "false", "kubelet.beyond_skew_policy": "true", "kubelet.skew_oldest_minor": "1.28"}},
		{"kubelet within the policy", Set{"kubelet.version": "v1.28.15", "probe.apiserver.server_version": "v1.31.4"},
			map[string]string{"kubelet.version_skew": "3", "kubelet.newer_than_cluster": "false", "kubelet.beyond_skew_policy": "false"}},
		{"no server version", Set{"kubelet.version": "v1.31.2"},
			map[string]string{"kubelet.version_skew": "", "kubelet.newer_than_cluster": ""}},
		{"unparsable version", Set{"kubelet.version": "unknown", "probe.apiserver.server_version": "v1.31.4"},
			map[string]string{"kubelet.version_skew": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			derive(tt.in)
			for k, v := range tt.want {
				if tt.in[k] != v {
					t.Errorf("%s = %q, want %q", k, tt.in[k], v)
				}
			}
		})
	}
}

func TestKnown(t *testing.T) {
	for name, want := range map[string]bool{
		"cluster.name": true, "label.team": true, "userdata.problem.x@": true, "probe.sts.verdict": true,
		"cluster.nam": false, "nonsense": false,
	} {
		if Known(name) != want {
			t.Errorf("Known(%q) = %v", name, !want)
		}
	}
}

func TestKubeconfigClusterName(t *testing.T) {
	tests := []struct{ name, kubeconfig, want string }{
		{"list args", "users:\n- name: kubelet\n  user:\n    exec:\n      command: aws\n      args:\n        - --region\n        - us-west-2\n        - eks\n        - get-token\n        - --cluster-name\n        - billing-prod\n", "billing-prod"},
		{"inline", `args: ["eks", "get-token", "--cluster-name", "billing-prod", "--region", "us-west-2"]`, "billing-prod"},
		{"authenticator", "command: /usr/bin/aws-iam-authenticator\nargs:\n  - token\n  - -i\n  - legacy-cluster\n", "legacy-cluster"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder()
			b.Add("kubelet/kubeconfig.yaml", []byte(tt.kubeconfig))
			s, _ := b.Build()
			if s["cluster.name"] != tt.want {
				t.Errorf("cluster.name = %q, want %q", s["cluster.name"], tt.want)
			}
		})
	}
}

func TestProbesFromAnotherMachineAreIgnored(t *testing.T) {
	const results = `"results": [{"name": "sts", "verdict": "tcp", "tcp": "timeout"}]`
	tests := []struct {
		name, doc string
		want      string
	}{
		{"on the node", `{"ran_on": "node", "describes_node": true, ` + results + `}`, "tcp"},
		{"volume of this instance", `{"ran_on": "node, whose volume is at --root /host", "describes_node": true, ` + results + `}`, "tcp"},
		{"rescue machine", `{"ran_on": "node", "describes_node": false, ` + results + `}`, ""},
		{"older bundle from a rescue machine", `{"ran_on": "the machine collect ran on, not the node of --root /mnt", ` + results + `}`, ""},
		{"bare list", `[{"name": "sts", "verdict": "tcp"}]`, "tcp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder()
			b.Add("probes/probes.json", []byte(tt.doc))
			s, _ := b.Build()
			if got := s["probe.sts.verdict"]; got != tt.want {
				t.Errorf("probe.sts.verdict = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCNISettingsFromEnvironmentDumps reads the aws-node environment from
// each form a bundle holds it in: `ctr containers info` of the VPC CNI
// container (collect's cni/cni-configuration-variables-containerd.json,
// env as a JSON array of "KEY=VALUE"), the same array compact, and ipamd's
// introspection (a JSON object).
func TestCNISettingsFromEnvironmentDumps(t *testing.T) {
	ctrInfo, err := os.ReadFile(filepath.Join("testdata", "ctr-containers-info-aws-node.json"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, content string
		want                map[string]string // "" means the fact is absent
	}{
		{"ctr containers info", "cni/cni-configuration-variables-containerd.json", string(ctrInfo), map[string]string{
			"cni.env.AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG": "true",
			"cni.env.ENABLE_PREFIX_DELEGATION":           "true",
			"cni.env.ENI_CONFIG_LABEL_DEF":               "topology.kubernetes.io/zone",
			"cni.env.AWS_VPC_K8S_CNI_EXTERNALSNAT":       "false",
			"cni.env.WARM_PREFIX_TARGET":                 "1",
			"cni.env.ENABLE_IPv6":                        "false",
			"cni.env.WARM_IP_TARGET":                     "",
			"cni.env.MINIMUM_IP_TARGET":                  "",
			"cni.custom_network":                         "true",
			"cni.prefix_delegation":                      "true",
		}},
		{"compact env array", "cni/cni-configuration-variables-containerd.json",
			`{"Spec":{"process":{"env":["ENABLE_PREFIX_DELEGATION=false","AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=False","WARM_IP_TARGET=5"]}}}`,
			map[string]string{
				"cni.prefix_delegation":  "false",
				"cni.custom_network":     "false",
				"cni.env.WARM_IP_TARGET": "5",
			}},
		{"a longer name holding a known one", "cni/cni-configuration-variables-containerd.json",
			`{"env":["NODEAGENT_ENABLE_PREFIX_DELEGATION=true","XAWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true"]}`,
			map[string]string{
				"cni.env.ENABLE_PREFIX_DELEGATION":           "",
				"cni.env.AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG": "",
				"cni.prefix_delegation":                      "",
			}},
		{"ipamd introspection", "ipamd/ipamd-env-settings.json",
			`{"AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG": "true", "ENABLE_PREFIX_DELEGATION": "false", "MINIMUM_IP_TARGET": "10"}`,
			map[string]string{
				"cni.custom_network":        "true",
				"cni.prefix_delegation":     "false",
				"cni.env.MINIMUM_IP_TARGET": "10",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !Wants(tt.path) {
				t.Fatalf("the analyzer does not keep %s", tt.path)
			}
			b := NewBuilder()
			b.Add(tt.path, []byte(tt.content))
			s, _ := b.Build()
			for k, v := range tt.want {
				if s[k] != v {
					t.Errorf("%s = %q, want %q", k, s[k], v)
				}
			}
		})
	}
}
