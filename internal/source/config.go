package source

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// unitDirs are the folders systemd reads unit files from, highest priority
// first.
var unitDirs = []string{
	"/etc/systemd/system",
	"/run/systemd/system",
	"/usr/local/lib/systemd/system",
	"/usr/lib/systemd/system",
	"/lib/systemd/system",
}

// maxConfigBytes bounds one configuration file read whole.
const maxConfigBytes = 4 << 20

// UnitFiles writes a unit's file and its drop-ins read from disk, shaped
// like `systemctl cat`: each file preceded by "# path". Reading the disk
// works under --root too and needs no running systemd.
type UnitFiles struct {
	tree *Tree
	unit string
	to   string
}

// NewUnitFiles returns the source for unit (such as "kubelet.service").
func NewUnitFiles(tree *Tree, unit, to string) *UnitFiles {
	return &UnitFiles{tree: tree, unit: unit, to: to}
}

// Name is the source name.
func (s *UnitFiles) Name() string { return "unit-files/" + s.unit }

// Collect writes the unit file and drop-ins; a unit with neither is skipped.
func (s *UnitFiles) Collect(_ context.Context, out Sink) error {
	files := s.files()
	if len(files) == 0 {
		return fmt.Errorf("%w: no unit file for %s", ErrSkipped, s.unit)
	}
	f, err := out.Create(s.to)
	if err != nil {
		return err
	}
	var errs []error
	for i, p := range files {
		data, err := s.tree.ReadFile(p, maxConfigBytes)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if i > 0 {
			f.WriteString("\n")
		}
		f.WriteString("# " + p + "\n")
		f.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			f.WriteString("\n")
		}
	}
	return errors.Join(errors.Join(errs...), f.Close())
}

// files lists the unit file systemd would load and then its drop-ins in
// the order systemd applies them (by file name; a name in a higher folder
// hides the same name in a lower one).
func (s *UnitFiles) files() []string {
	var files []string
	for _, dir := range unitDirs {
		p := path.Join(dir, s.unit)
		if info, err := s.tree.Stat(p); err == nil && info.Mode().IsRegular() {
			files = append(files, p)
			break
		}
	}
	byName := map[string]string{}
	var names []string
	for i := len(unitDirs) - 1; i >= 0; i-- {
		for _, p := range s.tree.Glob(path.Join(unitDirs[i], s.unit+".d", "*.conf")) {
			name := path.Base(p)
			if _, seen := byName[name]; !seen {
				names = append(names, name)
			}
			byName[name] = p
		}
	}
	slices.Sort(names)
	for _, n := range names {
		files = append(files, byName[n])
	}
	return files
}

// kubeconfigPaths are where the kubelet's kubeconfig lives on EKS AMIs.
var kubeconfigPaths = []string{
	"/var/lib/kubelet/kubeconfig",
	"/etc/kubernetes/kubelet/kubeconfig",
	"/etc/eksctl/kubeconfig.yaml",
}

// credentialKeys are kubeconfig keys whose values are secrets.
var credentialKeys = map[string]bool{
	"token": true, "client-key-data": true, "client-certificate-data": true,
	"password": true, "id-token": true, "refresh-token": true, "access-token": true,
}

// Kubeconfig stages the kubelet's kubeconfig with every credential value
// replaced, the way `kubectl config view` hides them.
type Kubeconfig struct {
	tree *Tree
	to   string
}

// NewKubeconfig returns the kubeconfig source.
func NewKubeconfig(tree *Tree, to string) *Kubeconfig { return &Kubeconfig{tree: tree, to: to} }

// Name is the source name.
func (s *Kubeconfig) Name() string { return "kubelet/kubeconfig" }

// Deadline bounds the read.
func (s *Kubeconfig) Deadline() time.Duration { return 10 * time.Second }

// Collect writes the first kubeconfig found, without credentials.
func (s *Kubeconfig) Collect(_ context.Context, out Sink) error {
	for _, p := range kubeconfigPaths {
		data, err := s.tree.ReadFile(p, maxConfigBytes)
		if err != nil {
			continue
		}
		clean, err := StripKubeconfigCredentials(data)
		if err != nil {
			// Not YAML the parser understands: stage it for the redactor
			// alone, and say so.
			return errors.Join(fmt.Errorf("%s: %w", p, err), writeFile(out, s.to, data))
		}
		return writeFile(out, s.to, append([]byte("# "+p+", credentials removed\n"), clean...))
	}
	return fmt.Errorf("%w: no kubeconfig at %s", ErrSkipped, strings.Join(kubeconfigPaths, ", "))
}

// StripKubeconfigCredentials replaces the value of every credential key of
// a kubeconfig (token, client-key-data, ...) with "REDACTED".
func StripKubeconfigCredentials(data []byte) ([]byte, error) {
	if err := checkYAMLInput(data); err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parsing kubeconfig: %w", err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return data, nil // empty or only comments: nothing to strip
	}
	stripCredentials(&doc, 0)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("writing kubeconfig: %w", err)
	}
	return b.Bytes(), nil
}

// ErrNotText is returned for a configuration file that is not UTF-8 text.
var ErrNotText = errors.New("not UTF-8 text")

// checkYAMLInput refuses what the YAML parser must never see: the parser
// can loop forever on some invalid UTF-8 sequences.
func checkYAMLInput(data []byte) error {
	if !utf8.Valid(data) {
		return fmt.Errorf("parsing kubeconfig: %w", ErrNotText)
	}
	return nil
}

// maxYAMLDepth bounds the recursion over a YAML document.
const maxYAMLDepth = 64

func stripCredentials(n *yaml.Node, depth int) {
	if n == nil || depth > maxYAMLDepth {
		return
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := n.Content[i], n.Content[i+1]
			if credentialKeys[key.Value] && value.Kind == yaml.ScalarNode {
				value.Value = "REDACTED"
				value.Tag = "!!str"
				value.Style = 0
				continue
			}
			stripCredentials(value, depth+1)
		}
		return
	}
	for _, c := range n.Content {
		stripCredentials(c, depth+1)
	}
}

// KubeconfigCluster returns the API server URL and CA certificate (PEM) of
// the first cluster in a kubeconfig. A CA given as a file path is read
// through tree.
func KubeconfigCluster(tree *Tree, data []byte) (server string, ca []byte, err error) {
	var kc struct {
		Clusters []struct {
			Cluster struct {
				Server                   string `yaml:"server"`
				CertificateAuthority     string `yaml:"certificate-authority"`
				CertificateAuthorityData string `yaml:"certificate-authority-data"`
			} `yaml:"cluster"`
		} `yaml:"clusters"`
	}
	if err := checkYAMLInput(data); err != nil {
		return "", nil, err
	}
	if err := yaml.Unmarshal(data, &kc); err != nil {
		return "", nil, fmt.Errorf("parsing kubeconfig: %w", err)
	}
	if len(kc.Clusters) == 0 {
		return "", nil, errors.New("kubeconfig has no cluster")
	}
	c := kc.Clusters[0].Cluster
	switch {
	case c.CertificateAuthorityData != "":
		ca, err = base64.StdEncoding.DecodeString(strings.TrimSpace(c.CertificateAuthorityData))
		if err != nil {
			err = fmt.Errorf("certificate-authority-data: %w", err)
		}
	case c.CertificateAuthority != "" && tree != nil:
		ca, err = tree.ReadFile(c.CertificateAuthority, maxConfigBytes)
	}
	return c.Server, ca, err
}
