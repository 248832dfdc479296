package userdata

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"maps"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// NodeConfigAPIVersion is the only apiVersion nodeadm decodes.
const NodeConfigAPIVersion = "node.eks.aws/v1alpha1"

// clusterNameRE is the EKS cluster name rule.
var clusterNameRE = regexp.MustCompile(`^[-a-zA-Z0-9]{1,100}$`)

// shellVarRE finds text a shell or a template engine should have replaced.
var shellVarRE = regexp.MustCompile(`\$\{[^}]*\}|\$\(|\$[A-Za-z_][A-Za-z0-9_]*|\{\{[^}]*\}\}`)

func hasUnexpanded(s string) bool { return shellVarRE.MatchString(s) }

// Validate checks the NodeConfig as nodeadm does before it configures the
// node, and goes further where nodeadm fails later or not at all (endpoint
// scheme, CA content and expiry, CIDR syntax, enum values). Messages quote
// nodeadm's own error strings where it has one.
func (nc *NodeConfig) Validate(now time.Time) []Problem {
	if nc == nil {
		return nil
	}
	var probs []Problem
	probs = append(probs, nc.validateType()...)
	probs = append(probs, nc.validateCluster(now)...)
	probs = append(probs, nc.validateInstance()...)
	return probs
}

func (nc *NodeConfig) validateType() []Problem {
	var probs []Problem
	switch v := nc.APIVersion; {
	case v == NodeConfigAPIVersion:
	case v == "":
		probs = append(probs, problem(CodeNodeConfigBadAPIVersion, SeverityError, 0,
			"apiVersion is missing; nodeadm fails to decode node config; set apiVersion: %s", NodeConfigAPIVersion))
	case strings.HasPrefix(v, "node.eks.aws/"):
		probs = append(probs, problem(CodeNodeConfigBadAPIVersion, SeverityError, nc.line("apiVersion"),
			"apiVersion %q is not a version nodeadm knows (no kind \"NodeConfig\" is registered for it), so nodeadm fails to decode node config; use %s", v, NodeConfigAPIVersion))
	default:
		group, _, _ := strings.Cut(v, "/")
		probs = append(probs, problem(CodeNodeConfigBadAPIVersion, SeverityError, nc.line("apiVersion"),
			"apiVersion %q is not in group node.eks.aws; nodeadm fails with failed to decode \"NodeConfig\", unexpected group: %s; use %s", v, group, NodeConfigAPIVersion))
	}
	switch k := nc.Kind; {
	case k == "NodeConfig":
	case k == "":
		probs = append(probs, problem(CodeNodeConfigWrongKind, SeverityError, 0,
			"kind is missing; nodeadm fails to decode node config; set kind: NodeConfig"))
	default:
		probs = append(probs, problem(CodeNodeConfigWrongKind, SeverityError, nc.line("kind"),
			"kind is %q; nodeadm fails with failed to decode %q (wrong Kind); set kind: NodeConfig", k, k))
	}
	return probs
}

func (nc *NodeConfig) validateCluster(now time.Time) []Problem {
	c := nc.Spec.Cluster
	var probs []Problem
	if p, ok := nc.checkName(c.Name); ok {
		probs = append(probs, p)
	}
	if p, ok := nc.checkEndpoint(c.APIServerEndpoint); ok {
		probs = append(probs, p)
	}
	probs = append(probs, nc.checkCA(c.CertificateAuthority, now)...)
	if p, ok := nc.checkCIDR(c.CIDR); ok {
		probs = append(probs, p)
	}
	if c.EnableOutpost != nil && *c.EnableOutpost && c.ID == "" {
		probs = append(probs, problem(CodeNodeConfigOutpostID, SeverityError, nc.line("spec.cluster.enableOutpost"),
			"enableOutpost is true but spec.cluster.id is empty: \"cluster ID must be provided for outposts\" (some nodeadm builds print \"CIDR is missing in cluster configuration\" here, and the kubelet step fails with \"clusterId cannot be empty when outpost is enabled\")"))
	}
	return probs
}

func (nc *NodeConfig) unexpanded(path, value string) Problem {
	return problem(CodeNodeConfigUnexpanded, SeverityWarning, nc.line(path),
		"%s is %q, which still holds a shell or template variable; nodeadm does not expand variables, so the value is only right if a shell or template fills it in before nodeadm reads the file", path, value)
}

func (nc *NodeConfig) checkName(name string) (Problem, bool) {
	const path = "spec.cluster.name"
	switch {
	case name == "":
		return problem(CodeNodeConfigMissingName, SeverityError, nc.line(path), "Name is missing in cluster configuration"), true
	case hasUnexpanded(name):
		return nc.unexpanded(path, name), true
	case !clusterNameRE.MatchString(name):
		return problem(CodeNodeConfigBadName, SeverityError, nc.line(path),
			"cluster name %q does not match ^[-a-zA-Z0-9]{1,100}$; it cannot be an EKS cluster name", name), true
	}
	return Problem{}, false
}

func (nc *NodeConfig) checkEndpoint(endpoint string) (Problem, bool) {
	const path = "spec.cluster.apiServerEndpoint"
	if endpoint == "" {
		return problem(CodeNodeConfigMissingEndpoint, SeverityError, nc.line(path), "Apiserver endpoint is missing in cluster configuration"), true
	}
	if hasUnexpanded(endpoint) {
		return nc.unexpanded(path, endpoint), true
	}
	if msg := endpointIssue(endpoint); msg != "" {
		return problem(CodeNodeConfigEndpointHTTPS, SeverityError, nc.line(path), "apiServerEndpoint %s", msg), true
	}
	return Problem{}, false
}

// endpointIssue says what is wrong with an API server URL, or "".
func endpointIssue(endpoint string) string {
	u, err := url.Parse(endpoint)
	switch {
	case err != nil:
		return fmt.Sprintf("%q is not a URL (%v); use the https:// endpoint from DescribeCluster", endpoint, err)
	case u.Scheme != "https":
		return fmt.Sprintf("%q is not an https:// URL; kubelet needs the full https:// endpoint from DescribeCluster", endpoint)
	case u.Host == "":
		return fmt.Sprintf("%q has no host name", endpoint)
	}
	return ""
}

func (nc *NodeConfig) checkCIDR(cidr string) (Problem, bool) {
	const path = "spec.cluster.cidr"
	switch {
	case cidr == "":
		return problem(CodeNodeConfigMissingCIDR, SeverityError, nc.line(path), "CIDR is missing in cluster configuration"), true
	case hasUnexpanded(cidr):
		return nc.unexpanded(path, cidr), true
	}
	if _, _, err := net.ParseCIDR(cidr); err != nil {
		return problem(CodeNodeConfigBadCIDR, SeverityError, nc.line(path),
			"%s is not a valid IP Address. error: %v (spec.cluster.cidr must be the service CIDR, e.g. 10.100.0.0/16)", cidr, err), true
	}
	return Problem{}, false
}

// caCodes name the problems of one CA field, so bootstrap.sh and NodeConfig
// share the checks but keep their own codes.
type caCodes struct {
	field, notBase64, double, notPEM, expired, notYet string
	// decodeFails says what the tool does with a value that is not base64.
	decodeFails string
}

var nodeConfigCACodes = caCodes{
	field: "spec.cluster.certificateAuthority", notBase64: CodeNodeConfigCANotBase64,
	double: CodeNodeConfigCADoubleBase64, notPEM: CodeNodeConfigCANotPEM,
	expired: CodeNodeConfigCAExpired, notYet: CodeNodeConfigCANotYetValid,
	decodeFails: "nodeadm fails to decode node config (illegal base64 data)",
}

func (nc *NodeConfig) checkCA(ca string, now time.Time) []Problem {
	const path = "spec.cluster.certificateAuthority"
	switch {
	case ca == "":
		return []Problem{problem(CodeNodeConfigMissingCA, SeverityError, nc.line(path), "Certificate authority is missing in cluster configuration")}
	case hasUnexpanded(ca):
		return []Problem{nc.unexpanded(path, ca)}
	}
	_, probs := inspectCA(ca, now, nodeConfigCACodes, nc.line(path))
	return probs
}

// inspectCA decodes a base64 CA bundle and reports the latest NotAfter of
// its certificates (the bundle works until then).
func inspectCA(b64 string, now time.Time, codes caCodes, line int) (time.Time, []Problem) {
	text := strings.TrimSpace(b64)
	if strings.HasPrefix(text, "-----BEGIN") {
		return time.Time{}, []Problem{problem(codes.notBase64, SeverityError, line,
			"%s holds a PEM certificate, not its base64 encoding; %s; use the base64 certificateAuthority.data from DescribeCluster", codes.field, codes.decodeFails)}
	}
	der, err := decodeStdBase64(text)
	if err != nil {
		return time.Time{}, []Problem{problem(codes.notBase64, SeverityError, line,
			"%s is not base64 (%v); %s", codes.field, err, codes.decodeFails)}
	}
	certs, perr := parsePEMCertificates(der)
	if perr != "" {
		if inner, err := decodeStdBase64(strings.TrimSpace(string(der))); err == nil {
			if more, p := parsePEMCertificates(inner); p == "" && len(more) > 0 {
				return time.Time{}, []Problem{problem(codes.double, SeverityError, line,
					"%s is base64-encoded twice; after one decoding it is still base64 text, not a PEM certificate, so TLS to the API server fails; encode the PEM once", codes.field)}
			}
		}
		return time.Time{}, []Problem{problem(codes.notPEM, SeverityError, line,
			"%s decodes to something that is not a PEM certificate (%s); kubelet cannot verify the API server; use certificateAuthority.data from DescribeCluster", codes.field, perr)}
	}
	return certificateDates(certs, now, codes, line)
}

func certificateDates(certs []*x509.Certificate, now time.Time, codes caCodes, line int) (time.Time, []Problem) {
	var latest time.Time
	earliestStart := certs[0].NotBefore
	for _, c := range certs {
		if c.NotAfter.After(latest) {
			latest = c.NotAfter
		}
		if c.NotBefore.Before(earliestStart) {
			earliestStart = c.NotBefore
		}
	}
	var probs []Problem
	switch {
	case now.IsZero():
	case now.After(latest):
		probs = append(probs, problem(codes.expired, SeverityError, line,
			"the certificate authority in %s expired on %s; TLS to the API server fails (x509: certificate has expired or is not yet valid); use the cluster's current CA", codes.field, latest.UTC().Format(time.RFC3339)))
	case now.Before(earliestStart):
		probs = append(probs, problem(codes.notYet, SeverityWarning, line,
			"the certificate authority in %s is not valid before %s; check the node clock or the CA", codes.field, earliestStart.UTC().Format(time.RFC3339)))
	}
	return latest, probs
}

// decodeStdBase64 decodes padded standard base64, skipping line breaks, as
// Go's JSON decoder does for nodeadm's []byte field.
func decodeStdBase64(s string) ([]byte, error) {
	return base64.StdEncoding.DecodeString(strings.NewReplacer("\n", "", "\r", "").Replace(s))
}

// parsePEMCertificates returns the certificates of a PEM bundle, or a
// description of why there are none.
func parsePEMCertificates(b []byte) ([]*x509.Certificate, string) {
	if !bytes.Contains(b, []byte("-----BEGIN")) {
		return nil, "no PEM block"
	}
	var certs []*x509.Certificate
	rest := b
	for len(certs) < 64 {
		block, r := pem.Decode(rest)
		if block == nil {
			break
		}
		rest = r
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Sprintf("certificate does not parse: %v", err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, "no CERTIFICATE block"
	}
	return certs, ""
}

var (
	localStorageStrategies = []string{"RAID0", "RAID10", "Mount"}
	disabledMountNames     = []string{"Containerd", "PodLogs", "SOCI"}
	knownFeatureGates      = []string{"InstanceIdNodeName", "FastImagePull"}
)

func (nc *NodeConfig) validateInstance() []Problem {
	var probs []Problem
	ls := nc.Spec.Instance.LocalStorage
	if ls.Strategy != "" && !contains(localStorageStrategies, ls.Strategy) {
		probs = append(probs, problem(CodeNodeConfigBadEnum, SeverityError, nc.line("spec.instance.localStorage.strategy"),
			"spec.instance.localStorage.strategy is %q; nodeadm accepts %s", ls.Strategy, strings.Join(localStorageStrategies, ", ")))
	}
	for _, m := range ls.DisabledMounts {
		if !contains(disabledMountNames, m) {
			probs = append(probs, problem(CodeNodeConfigBadEnum, SeverityError, nc.line("spec.instance.localStorage.disabledMounts"),
				"spec.instance.localStorage.disabledMounts has %q; nodeadm accepts %s", m, strings.Join(disabledMountNames, ", ")))
		}
	}
	for _, gate := range sortedKeys(nc.Spec.FeatureGates) {
		if !contains(knownFeatureGates, gate) {
			probs = append(probs, problem(CodeNodeConfigUnknownGate, SeverityWarning, nc.line("spec.featureGates"),
				"feature gate %q is not one nodeadm knows (%s)", gate, strings.Join(knownFeatureGates, ", ")))
		}
	}
	return probs
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Labels returns the node labels set through kubelet flags, in any of the
// forms "--node-labels=a=b,c=d", "--node-labels a=b" or "--node-labels"
// followed by a separate "a=b" item. Later flags override earlier ones, as
// kubelet does. Values are returned as written, variables included.
func (nc *NodeConfig) Labels() map[string]string {
	labels := map[string]string{}
	if nc == nil {
		return labels
	}
	for _, v := range flagValues(nc.Spec.Kubelet.Flags, "--node-labels") {
		maps.Copy(labels, parseLabelList(v))
	}
	return labels
}

// MaxPods returns kubelet's maxPods: a --max-pods flag wins over the
// kubelet config, because nodeadm appends flags after its own and kubelet
// lets flags override the config file.
func (nc *NodeConfig) MaxPods() (int, bool) {
	if nc == nil {
		return 0, false
	}
	if vs := flagValues(nc.Spec.Kubelet.Flags, "--max-pods"); len(vs) > 0 {
		n, err := strconv.Atoi(strings.TrimSpace(vs[len(vs)-1]))
		return n, err == nil
	}
	return intValue(nc.Spec.Kubelet.Config["maxPods"])
}

func intValue(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case uint64:
		return int(n), true
	case float64:
		return int(n), n == float64(int(n))
	case string:
		i, err := strconv.Atoi(n)
		return i, err == nil
	}
	return 0, false
}

// CAExpiry returns the latest NotAfter of the certificates in
// spec.cluster.certificateAuthority, and false when it cannot be read.
func (nc *NodeConfig) CAExpiry() (time.Time, bool) {
	if nc == nil || nc.Spec.Cluster.CertificateAuthority == "" {
		return time.Time{}, false
	}
	t, probs := inspectCA(nc.Spec.Cluster.CertificateAuthority, time.Time{}, nodeConfigCACodes, 0)
	return t, len(probs) == 0 && !t.IsZero()
}

// flagValues collects the values of a flag from a kubelet flag list.
func flagValues(flags []string, name string) []string {
	var out []string
	for i := 0; i < len(flags); i++ {
		f := strings.TrimSpace(flags[i])
		switch {
		case strings.HasPrefix(f, name+"="):
			out = append(out, f[len(name)+1:])
		case f == name && i+1 < len(flags):
			out = append(out, strings.TrimSpace(flags[i+1]))
			i++
		case strings.HasPrefix(f, name+" ") || strings.HasPrefix(f, name+"\t"):
			out = append(out, strings.TrimSpace(f[len(name):]))
		}
	}
	return out
}

// parseLabelList reads "a=b,c=d"; entries without "=" are skipped.
func parseLabelList(s string) map[string]string {
	out := map[string]string{}
	for _, item := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		if ok && k != "" {
			out[k] = v
		}
	}
	return out
}

// MergeNodeConfigs combines configs the way nodeadm merges the documents it
// finds: later values override earlier ones, kubelet flags are appended,
// kubelet config documents are merged key by key, maps are merged.
func MergeNodeConfigs(configs ...*NodeConfig) *NodeConfig {
	out := &NodeConfig{}
	for _, c := range configs {
		if c == nil {
			continue
		}
		if out.lines == nil && c.lines != nil {
			out.lines = maps.Clone(c.lines)
		}
		mergeInto(out, c)
	}
	return out
}

func mergeInto(dst, src *NodeConfig) {
	setString(&dst.APIVersion, src.APIVersion)
	setString(&dst.Kind, src.Kind)
	dst.Metadata = mergeMaps(dst.Metadata, src.Metadata)
	mergeCluster(&dst.Spec.Cluster, src.Spec.Cluster)
	k, sk := &dst.Spec.Kubelet, src.Spec.Kubelet
	k.Config = mergeMaps(k.Config, sk.Config)
	k.Flags = append(append([]string(nil), k.Flags...), sk.Flags...)
	setString(&k.MaxPodsExpression, sk.MaxPodsExpression)
	setString(&dst.Spec.Containerd.Config, src.Spec.Containerd.Config)
	dst.Spec.Containerd.BaseRuntimeSpec = mergeMaps(dst.Spec.Containerd.BaseRuntimeSpec, src.Spec.Containerd.BaseRuntimeSpec)
	in, si := &dst.Spec.Instance, src.Spec.Instance
	setString(&in.LocalStorage.Strategy, si.LocalStorage.Strategy)
	setString(&in.LocalStorage.MountPath, si.LocalStorage.MountPath)
	setSlice(&in.LocalStorage.DisabledMounts, si.LocalStorage.DisabledMounts)
	setSlice(&in.Network.Nameservers, si.Network.Nameservers)
	setSlice(&in.Network.Domains, si.Network.Domains)
	for svc, env := range si.Environment {
		if in.Environment == nil {
			in.Environment = map[string]map[string]string{}
		}
		if in.Environment[svc] == nil {
			in.Environment[svc] = map[string]string{}
		}
		maps.Copy(in.Environment[svc], env)
	}
	for gate, on := range src.Spec.FeatureGates {
		if dst.Spec.FeatureGates == nil {
			dst.Spec.FeatureGates = map[string]bool{}
		}
		dst.Spec.FeatureGates[gate] = on
	}
}

func mergeCluster(dst *ClusterDetails, src ClusterDetails) {
	setString(&dst.Name, src.Name)
	setString(&dst.APIServerEndpoint, src.APIServerEndpoint)
	setString(&dst.CertificateAuthority, src.CertificateAuthority)
	setString(&dst.CIDR, src.CIDR)
	setString(&dst.ID, src.ID)
	if src.EnableOutpost != nil {
		v := *src.EnableOutpost
		dst.EnableOutpost = &v
	}
}

func setString(dst *string, src string) {
	if src != "" {
		*dst = src
	}
}

func setSlice(dst *[]string, src []string) {
	if len(src) > 0 {
		*dst = append([]string(nil), src...)
	}
}

// mergeMaps merges src into a copy of dst; nested maps are merged too.
func mergeMaps(dst, src map[string]any) map[string]any {
	if len(src) == 0 {
		return dst
	}
	out := make(map[string]any, len(dst)+len(src))
	maps.Copy(out, dst)
	for k, v := range src {
		dm, dok := out[k].(map[string]any)
		sm, sok := v.(map[string]any)
		if dok && sok {
			out[k] = mergeMaps(dm, sm)
			continue
		}
		out[k] = v
	}
	return out
}
