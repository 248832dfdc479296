package source

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nodetriage/nodetriage/internal/imds"
	"github.com/nodetriage/nodetriage/internal/userdata"
)

// cloudUserDataPath is where cloud-init keeps the user data it ran.
const cloudUserDataPath = "/var/lib/cloud/instance/user-data.txt"

// maxUserDataBytes bounds the user data read from disk (EC2 allows 16 KiB
// raw; a generous bound still protects against a huge file).
const maxUserDataBytes = 1 << 20

// UserData stages the instance user data in userdata/: the raw text
// (redacted like every file) and, when it is MIME multipart or encoded,
// every part decoded.
//
// IMDS comes first, since cloud-init's copy may be missing or stale. Under
// --root, IMDS is asked only when the IMDS source proved it answers for the
// instance whose volume it is: on a rescue machine that mounted a dead
// node's disk, IMDS would hand over the rescue machine's user data.
type UserData struct {
	client *imds.Client
	tree   *Tree
	// node tells whether IMDS answers for the node; nil with no client.
	node   *IMDS
	result *once[*userdata.UserData]
}

// NewUserData returns the user data source; with a nil client (--no-imds)
// only the copy cloud-init kept on disk is read. node is the IMDS source,
// consulted under --root before IMDS's user data is trusted.
func NewUserData(client *imds.Client, tree *Tree, node *IMDS) *UserData {
	return &UserData{client: client, tree: tree, node: node, result: newOnce[*userdata.UserData]()}
}

// Name is the source name.
func (s *UserData) Name() string { return "userdata" }

// Deadline leaves the IMDS client its own budget and a moment to write;
// under --root, also the wait for the IMDS source's identity check.
func (s *UserData) Deadline() time.Duration {
	if !s.tree.Mounted() {
		return 13 * time.Second
	}
	return 26 * time.Second
}

// Parsed waits for the parsed user data (nil when there was none).
func (s *UserData) Parsed(ctx context.Context) (*userdata.UserData, bool) {
	return s.result.wait(ctx)
}

// Collect reads the user data from IMDS, else from cloud-init's copy under
// the root, and stages it.
func (s *UserData) Collect(ctx context.Context, out Sink) error {
	var parsed *userdata.UserData
	defer func() { s.result.set(parsed) }()
	raw, origin, lookErr := s.read(ctx)
	if raw == nil {
		return lookErr
	}
	parsed, _ = userdata.Parse(raw)
	errs := []error{writeFile(out, "userdata/source.txt", []byte(origin+"\n"))}
	if err := StageUserData(out, "userdata/user-data.txt", raw, parsed); !errors.Is(err, ErrNotText) {
		errs = append(errs, err)
	}
	if parsed != nil && (parsed.MIME || parsed.Encoding != "") {
		for _, p := range parsed.Parts {
			if isText(p.Body) {
				errs = append(errs, writeFile(out, "userdata/"+p.FileName(), p.Body))
			}
		}
	}
	return errors.Join(errs...)
}

// read returns the user data and where it came from; when there is none,
// the error says where it looked.
func (s *UserData) read(ctx context.Context) ([]byte, string, error) {
	var notes []string
	fromIMDS := func() []byte {
		data, _, err := s.client.UserData(ctx)
		if err != nil {
			notes = append(notes, "IMDS: "+err.Error())
		}
		return data
	}
	fromFile := func() []byte {
		data, err := s.tree.ReadFile(cloudUserDataPath, maxUserDataBytes)
		switch {
		case err != nil:
			notes = append(notes, err.Error())
		case len(data) == 0:
			notes = append(notes, cloudUserDataPath+" is empty")
		}
		return data
	}
	switch {
	case s.client == nil:
	case !s.tree.Mounted() || s.node != nil && s.node.DescribesNode(ctx):
		if data := fromIMDS(); len(data) > 0 {
			return data, "imds /latest/user-data", nil
		}
	default:
		notes = append(notes, "IMDS not asked: it does not answer for the node of --root")
	}
	if data := fromFile(); len(data) > 0 {
		return data, "file " + cloudUserDataPath, nil
	}
	return nil, "", fmt.Errorf("%w: no user data (%s)", ErrSkipped, strings.Join(notes, "; "))
}

// isText tells whether b can be staged as text (and so be redacted).
func isText(b []byte) bool {
	return len(b) > 0 && utf8.Valid(b) && !bytes.ContainsRune(b, 0)
}

// Cluster is where a node's API server is and how to trust it, as found on
// the node.
type Cluster struct {
	Name   string
	Server string // https URL
	CA     []byte // PEM
	From   string // where the endpoint was found
}

// nodeadmConfigFiles are NodeConfig documents nodeadm reads or caches.
var nodeadmConfigFiles = []string{"/run/eks/nodeadm/config.json", "/etc/eks/nodeadm.d/*"}

// clusterCAPath is the cluster CA the kubelet trusts.
const clusterCAPath = "/etc/kubernetes/pki/ca.crt"

// FindCluster looks for the API server endpoint: in the user data
// (NodeConfig parts, NodeConfig files a script writes, bootstrap.sh flags),
// in nodeadm's configuration on disk, then in the kubelet's kubeconfig.
func FindCluster(tree *Tree, ud *userdata.UserData) (Cluster, bool) {
	if c, ok := clusterFromUserData(ud); ok {
		return withDiskCA(tree, c), true
	}
	for _, pattern := range nodeadmConfigFiles {
		for _, p := range tree.Glob(pattern) {
			data, err := tree.ReadFile(p, maxConfigBytes)
			if err != nil || checkYAMLInput(data) != nil {
				continue
			}
			if nc, _, err := userdata.ParseNodeConfig(data); err == nil && nc != nil {
				if c, ok := clusterFromNodeConfig(nc, p); ok {
					return withDiskCA(tree, c), true
				}
			}
		}
	}
	for _, p := range kubeconfigPaths {
		data, err := tree.ReadFile(p, maxConfigBytes)
		if err != nil {
			continue
		}
		server, ca, _ := KubeconfigCluster(tree, data)
		if server != "" {
			return withDiskCA(tree, Cluster{Server: server, CA: ca, From: p}), true
		}
	}
	return Cluster{}, false
}

func clusterFromUserData(ud *userdata.UserData) (Cluster, bool) {
	if ud == nil {
		return Cluster{}, false
	}
	for _, p := range ud.Parts {
		if p.NodeConfig != nil {
			if c, ok := clusterFromNodeConfig(p.NodeConfig, "user data "+p.FileName()); ok {
				return c, true
			}
		}
		if p.Shell == nil {
			continue
		}
		for _, wf := range p.Shell.WrittenFiles {
			if wf.NodeConfig != nil {
				if c, ok := clusterFromNodeConfig(wf.NodeConfig, "user data, file "+wf.Path); ok {
					return c, true
				}
			}
		}
		if b := p.Shell.Bootstrap; b != nil && b.Flags["--apiserver-endpoint"] != "" {
			ca, _ := decodeCA(b.Flags["--b64-cluster-ca"])
			return Cluster{Name: b.ClusterName, Server: b.Flags["--apiserver-endpoint"], CA: ca,
				From: "user data, bootstrap.sh --apiserver-endpoint"}, true
		}
	}
	return Cluster{}, false
}

func clusterFromNodeConfig(nc *userdata.NodeConfig, from string) (Cluster, bool) {
	c := nc.Spec.Cluster
	if !strings.HasPrefix(c.APIServerEndpoint, "https://") {
		return Cluster{}, false
	}
	ca, _ := decodeCA(c.CertificateAuthority)
	return Cluster{Name: c.Name, Server: c.APIServerEndpoint, CA: ca, From: from}, true
}

// decodeCA turns a base64 CA (as in NodeConfig and bootstrap.sh) into PEM;
// text that is already PEM is kept.
func decodeCA(text string) ([]byte, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, nil
	}
	if strings.HasPrefix(text, "-----BEGIN") {
		return []byte(text), nil
	}
	return base64.StdEncoding.DecodeString(text)
}

// withDiskCA fills a missing CA from the one the kubelet trusts.
func withDiskCA(tree *Tree, c Cluster) Cluster {
	if len(c.CA) == 0 {
		if ca, err := tree.ReadFile(clusterCAPath, maxConfigBytes); err == nil {
			c.CA = ca
		}
	}
	return c
}
