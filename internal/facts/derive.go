package facts

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/nodetriage/nodetriage/internal/probe"
	"github.com/nodetriage/nodetriage/internal/userdata"
)

// eniConfigLabelKeys are node label keys that name an ENIConfig: the VPC
// CNI's default, and the custom keys people set through ENI_CONFIG_LABEL_DEF.
var eniConfigLabelKeys = []string{"k8s.amazonaws.com/eniConfig", "eks.amazonaws.com/custom-eni-config"}

// derive computes the facts that follow from others.
func derive(s Set) {
	deriveCluster(s)
	deriveIdentity(s)
	deriveCNI(s)
	deriveMaxPods(s)
	deriveUserDataGroups(s)
	deriveProbes(s)
	deriveVersionSkew(s)
}

// kubeletSkewLimit is how many minor versions a kubelet may lag behind the
// API server (the Kubernetes skew policy since 1.28).
const kubeletSkewLimit = 3

// deriveVersionSkew compares the kubelet with the API server version that
// collect's probe read from /version.
func deriveVersionSkew(s Set) {
	s.set("cluster.version", s["probe.apiserver.server_version"])
	kubelet, okK := minorVersion(s["kubelet.version"])
	cluster, okC := minorVersion(s["cluster.version"])
	if !okK || !okC {
		return
	}
	s.set("cluster.minor_version", "1."+strconv.Itoa(cluster))
	s.set("kubelet.minor_version", "1."+strconv.Itoa(kubelet))
	skew := cluster - kubelet
	s.set("kubelet.version_skew", strconv.Itoa(skew))
	s.setBool("kubelet.newer_than_cluster", skew < 0)
	s.setBool("kubelet.beyond_skew_policy", skew > kubeletSkewLimit)
	s.set("kubelet.skew_oldest_minor", "1."+strconv.Itoa(cluster-kubeletSkewLimit))
}

// minorVersion reads the minor number of a Kubernetes 1.x version such as
// "v1.31.4-eks-2d5f260" or "1.30".
func minorVersion(v string) (int, bool) {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	major, rest, ok := strings.Cut(v, ".")
	if !ok || major != "1" {
		return 0, false
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	minor, err := strconv.Atoi(rest[:end])
	return minor, err == nil
}

func deriveIdentity(s Set) {
	if acct, role := s["node.account"], s["node.role_name"]; acct != "" && role != "" {
		s.set("node.role_arn", "arn:"+partition(s["node.region"])+":iam::"+acct+":role/"+role)
	}
	if arn := s["node.instance_profile_arn"]; arn != "" {
		if i := strings.LastIndex(arn, "/"); i >= 0 {
			s.set("node.instance_profile_name", arn[i+1:])
		}
		if parts := strings.Split(arn, ":"); len(parts) > 4 {
			s.set("node.account", parts[4])
		}
	}
	s.set("node.name", s["node.private_dns"])
	s.set("node.name", s["node.hostname"])
}

// partition returns the ARN partition of a region.
func partition(region string) string {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov"
	}
	return "aws"
}

// deriveCluster reads the endpoint's host and, when nothing recorded the
// region (no IMDS: a volume collected on a rescue machine, a console log),
// the region an EKS endpoint names.
func deriveCluster(s Set) {
	if ep := s["cluster.endpoint"]; ep != "" {
		if u, err := url.Parse(ep); err == nil && u.Host != "" {
			s.set("cluster.endpoint_host", u.Hostname())
			s.set("node.region", probe.EndpointRegion(u.Hostname()))
		}
	}
}

func deriveCNI(s Set) {
	labelDef := s["cni.env.ENI_CONFIG_LABEL_DEF"]
	keys := eniConfigLabelKeys
	if labelDef != "" {
		keys = append([]string{labelDef}, keys...)
	}
	for _, k := range keys {
		if v := s["label."+k]; v != "" {
			s.set("cni.eniconfig_label", v)
			s.set("cni.eniconfig_label_key", k)
		}
	}
	label := s["cni.eniconfig_label"]
	custom := s["cni.custom_network"]
	if label != "" && custom == "false" {
		s.force("cni.label_without_custom_network", "true")
	}
	if custom == "true" && label == "" && labelDef != "topology.kubernetes.io/zone" {
		s.force("cni.eniconfig_unselected", "true")
	}
	if az := s["node.az"]; az != "" {
		s.set("cni.eniconfig_expected", az)
		if label != "" && label != az {
			s.force("cni.eniconfig_prefixed", "true")
		}
	}
}

func deriveMaxPods(s Set) {
	limit, ok := maxPodsWithoutPrefixes(s["node.instance_type"])
	if !ok {
		return
	}
	s.force("kubelet.max_pods_eni_limit", strconv.Itoa(limit))
	maxPods, err := strconv.Atoi(s["kubelet.max_pods"])
	if err != nil {
		return
	}
	if maxPods > limit && s["cni.prefix_delegation"] != "true" {
		s.force("kubelet.max_pods_exceeds_eni", "true")
	}
}

// problemGroup gathers user data problem codes that call for the same fix
// under one fact, so that a single catalog entry covers them all. Each code
// is shown to the reader as its label.
type problemGroup struct {
	fact  string
	codes []codeLabel
}

type codeLabel struct{ code, label string }

var problemGroups = []problemGroup{
	{"userdata.nodeconfig_missing", []codeLabel{
		{userdata.CodeNodeConfigMissingName, "name"},
		{userdata.CodeNodeConfigMissingEndpoint, "apiServerEndpoint"},
		{userdata.CodeNodeConfigMissingCA, "certificateAuthority"},
		{userdata.CodeNodeConfigMissingCIDR, "cidr"},
	}},
	{"userdata.nodeconfig_wrong_type", []codeLabel{
		{userdata.CodeNodeConfigBadAPIVersion, "apiVersion"},
		{userdata.CodeNodeConfigWrongKind, "kind"},
	}},
	{"userdata.nodeconfig_bad_values", []codeLabel{
		{userdata.CodeNodeConfigBadCIDR, "cidr"},
		{userdata.CodeNodeConfigOutpostID, "id"},
		{userdata.CodeNodeConfigBadName, "name"},
		{userdata.CodeNodeConfigEndpointHTTPS, "apiServerEndpoint"},
		{userdata.CodeNodeConfigCANotBase64, "certificateAuthority"},
		{userdata.CodeNodeConfigCADoubleBase64, "certificateAuthority"},
		{userdata.CodeNodeConfigCANotPEM, "certificateAuthority"},
	}},
	{"userdata.config_source_invalid", []codeLabel{
		{userdata.CodeConfigSourceTwoSlashes, "file:// with two slashes"},
		{userdata.CodeConfigSourceScheme, "unsupported scheme"},
	}},
	{"userdata.ca_time_invalid", []codeLabel{
		{userdata.CodeNodeConfigCAExpired, "expired"},
		{userdata.CodeNodeConfigCANotYetValid, "not yet valid"},
		{userdata.CodeBootstrapCAExpired, "expired"},
		{userdata.CodeBootstrapCANotYetValid, "not yet valid"},
	}},
}

// deriveUserDataGroups sets each group's fact to the labels of the problems
// found (comma separated), its "@" to where the first one is, and its
// "@text" to all their messages.
func deriveUserDataGroups(s Set) {
	for _, g := range problemGroups {
		var labels, texts []string
		where := ""
		for _, c := range g.codes {
			key := "userdata.problem." + c.code
			if s[key] != "true" {
				continue
			}
			if !hasLabel(labels, c.label) {
				labels = append(labels, c.label)
			}
			if t := s[key+"@text"]; t != "" {
				texts = append(texts, t)
			}
			if where == "" {
				where = s[key+"@"]
			}
		}
		if len(labels) == 0 {
			continue
		}
		s.force(g.fact, strings.Join(labels, ","))
		s.force(g.fact+"@", where)
		s.force(g.fact+"@text", strings.Join(texts, "; "))
	}
}

func hasLabel(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// regionalProbes are collect's probes of the regional AWS endpoints.
var regionalProbes = []string{"sts", "ec2", "ecr-api", "s3"}

// deriveProbes lists the regional endpoints whose probe failed, and says
// whether the failures look like a subnet with no way out: every probed
// endpoint resolved to a public address and every connection timed out.
func deriveProbes(s Set) {
	var failed []string
	probed, noRoute := 0, 0
	for _, name := range regionalProbes {
		verdict := s["probe."+name+".verdict"]
		if verdict == "" {
			continue
		}
		probed++
		if verdict == "ok" {
			continue
		}
		failed = append(failed, name)
		tcp := s["probe."+name+".tcp"]
		if verdict == "tcp" && (tcp == "timeout" || tcp == "unreachable") && s["probe."+name+".address_class"] == "public" {
			noRoute++
		}
	}
	if len(failed) > 0 {
		s.force("probe.failed_endpoints", strings.Join(failed, ", "))
	}
	if probed >= 2 && noRoute == probed {
		s.force("probe.no_route_out", "true")
	}
}
