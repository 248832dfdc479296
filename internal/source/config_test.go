package source

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nodetriage/nodetriage/internal/userdata"
	"go.yaml.in/yaml/v3"
)

func TestStripKubeconfigCredentials(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		gone    []string
		kept    []string
		wantErr bool
	}{
		{"static token and client key", `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t
    server: https://ABC.gr7.ap-northeast-1.eks.amazonaws.com
  name: kubernetes
users:
- name: kubelet
  user:
    token: k8s-aws-v1.aHR0cHM6Ly9zdHMuYW1hem9uYXdzLmNvbS8_QWN0aW9uPUdldENhbGxlcklkZW50aXR5
    client-key-data: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2UUlCQURBTkJna3Foa2lHOXcw
    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tQ0xJRU5U
`, []string{"k8s-aws-v1.aHR0c", "LS0tLS1CRUdJTiBQUklWQVRF", "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tQ0xJRU5U"},
			[]string{"certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t", "server: https://ABC.gr7.ap-northeast-1.eks.amazonaws.com"}, false},
		{"exec plugin only", `users:
- name: kubelet
  user:
    exec:
      command: aws
      args: ["eks", "get-token", "--cluster-name", "billing-prod"]
`, nil, []string{"get-token", "billing-prod"}, false},
		{"not yaml", "users: [unclosed\n", nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := StripKubeconfigCredentials([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			for _, g := range tt.gone {
				if strings.Contains(string(out), g) {
					t.Errorf("credential %q survived:\n%s", g, out)
				}
			}
			for _, k := range tt.kept {
				if !strings.Contains(string(out), k) {
					t.Errorf("%q was lost:\n%s", k, out)
				}
			}
		})
	}
}

func FuzzStripKubeconfigCredentials(f *testing.F) {
	f.Add([]byte("users:\n- user:\n    token: abc\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("{token: {token: [token]}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan struct{})
		var out []byte
		var err error
		go func() { out, err = StripKubeconfigCredentials(data); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatalf("hang on %q", data)
		}
		if err != nil {
			return
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(out, &doc); err != nil {
			t.Fatalf("output is not YAML (%v):\n%s", err, out)
		}
		if leaked := credentialValues(&doc, 0); len(leaked) > 0 {
			t.Fatalf("credential values survived: %q\n%s", leaked, out)
		}
	})
}

// credentialValues returns the scalar values of credential keys that are
// not the replacement.
func credentialValues(n *yaml.Node, depth int) []string {
	if n == nil || depth > maxYAMLDepth {
		return nil
	}
	var out []string
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if credentialKeys[k.Value] && v.Kind == yaml.ScalarNode && v.Value != "REDACTED" {
				out = append(out, v.Value)
			}
		}
	}
	for _, c := range n.Content {
		out = append(out, credentialValues(c, depth+1)...)
	}
	return out
}

func TestUnitFilesOrderLikeSystemctlCat(t *testing.T) {
	root := makeTree(t, map[string]string{
		"usr/lib/systemd/system/kubelet.service":                          "[Service]\nExecStart=/usr/bin/kubelet\n",
		"etc/systemd/system/kubelet.service":                              "[Service]\nExecStart=/usr/bin/kubelet --overridden\n",
		"usr/lib/systemd/system/kubelet.service.d/10-eks.conf":            "vendor 10\n",
		"etc/systemd/system/kubelet.service.d/10-eks.conf":                "admin 10\n",
		"etc/systemd/system/kubelet.service.d/30-kubelet-extra-args.conf": "admin 30\n",
		"run/systemd/system/kubelet.service.d/20-runtime.conf":            "runtime 20\n",
	})
	s := newTestStage(t, StageOptions{})
	if err := NewUnitFiles(openTree(t, root), "kubelet.service", "kubelet/kubelet_service.txt").Collect(context.Background(), s.Sink("u")); err != nil {
		t.Fatal(err)
	}
	got := readStaged(t, s, "kubelet/kubelet_service.txt")
	want := "# /etc/systemd/system/kubelet.service\n[Service]\nExecStart=/usr/bin/kubelet --overridden\n\n" +
		"# /etc/systemd/system/kubelet.service.d/10-eks.conf\nadmin 10\n\n" +
		"# /run/systemd/system/kubelet.service.d/20-runtime.conf\nruntime 20\n\n" +
		"# /etc/systemd/system/kubelet.service.d/30-kubelet-extra-args.conf\nadmin 30\n"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestFindClusterOnFakeNodes(t *testing.T) {
	tests := []struct {
		node     string
		wantFrom string
	}{
		{"al2023-nodeadm-failure", "user data, file /etc/eks/nodeadm-config.yaml"},
		{"al2023-healthy", "user data part-1.nodeadm.yaml"},
		{"al2-bootstrap", "user data, bootstrap.sh --apiserver-endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.node, func(t *testing.T) {
			root := filepath.Join("..", "..", "testdata", "nodes", tt.node)
			tree := openTree(t, root)
			raw, err := os.ReadFile(filepath.Join(root, "var/lib/cloud/instance/user-data.txt"))
			if err != nil {
				t.Fatal(err)
			}
			ud, err := userdata.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			c, ok := FindCluster(tree, ud)
			if !ok {
				t.Fatal("no cluster found")
			}
			if c.Server != "https://8D2E4F6A0B1C3D5E7F9A1B3C5D7E9F10.gr7.ap-northeast-1.eks.amazonaws.com" || c.From != tt.wantFrom {
				t.Fatalf("cluster = %s from %q", c.Server, c.From)
			}
			if !strings.HasPrefix(string(c.CA), "-----BEGIN CERTIFICATE-----") {
				t.Fatalf("CA is not PEM: %.40q", c.CA)
			}
		})
	}
	// Without user data, the kubeconfig of the kubelet is used.
	c, ok := FindCluster(openTree(t, filepath.Join("..", "..", "testdata", "nodes", "al2-bootstrap")), nil)
	if !ok || c.From != "/var/lib/kubelet/kubeconfig" || len(c.CA) == 0 {
		t.Fatalf("kubeconfig fallback = %+v, %v", c, ok)
	}
}
