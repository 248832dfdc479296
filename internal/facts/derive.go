package facts

import (
	"net/url"
	"strconv"
	"strings"
)

// eniConfigLabelKeys are node label keys that name an ENIConfig: the VPC
// CNI's default, and the custom keys people set through ENI_CONFIG_LABEL_DEF.
var eniConfigLabelKeys = []string{"k8s.amazonaws.com/eniConfig", "eks.amazonaws.com/custom-eni-config"}

// derive computes the facts that follow from others.
func derive(s Set) {
	deriveIdentity(s)
	deriveCluster(s)
	deriveCNI(s)
	deriveMaxPods(s)
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

func deriveCluster(s Set) {
	if ep := s["cluster.endpoint"]; ep != "" {
		if u, err := url.Parse(ep); err == nil && u.Host != "" {
			s.set("cluster.endpoint_host", u.Hostname())
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
