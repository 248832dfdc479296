package facts

import "strings"

// Described is one fact name (or a family of names ending in ".") and what
// it holds. The list is the vocabulary catalog entries may use; it is
// printed in patterns/README.md.
type Described struct{ Name, Meaning string }

// Vocabulary lists every fact the builder and the analyzer compute.
var Vocabulary = []Described{
	{"bundle.layout", "nodetriage, eks-log-collector, bottlerocket-logdog, single-file or unknown"},
	{"bundle.format", "container: tar.gz, tar.zst, zip, folder, file..."},
	{"bundle.has.", "bundle.has.<source>: true when the bundle has a file of that logical source (sources.yaml)"},
	{"collection.partial", "the collect run was interrupted"},
	{"collection.partial_reason", "why it was interrupted"},
	{"collection.redacted", "redaction was on"},
	{"collection.failed", "sources that failed, comma separated"},
	{"collection.timeout", "sources that timed out"},
	{"collection.truncated", "sources cut to fit the size budget"},
	{"collection.skipped", "sources skipped (tool missing, not applicable)"},
	{"collection.manifest_error", "manifest.json could not be decoded"},
	{"node.name", "private DNS name or hostname"},
	{"node.hostname", "hostname"},
	{"node.private_dns", "private DNS name (IMDS local-hostname or nodeadm's cache)"},
	{"node.private_ip", "primary private IPv4"},
	{"node.instance_id", "EC2 instance id"},
	{"node.instance_type", "EC2 instance type"},
	{"node.architecture", "CPU architecture"},
	{"node.region", "region"},
	{"node.az", "availability zone name"},
	{"node.az_id", "availability zone id"},
	{"node.ami", "AMI id"},
	{"node.account", "AWS account id"},
	{"node.role_name", "IAM role name of the instance profile"},
	{"node.role_arn", "role ARN built from account and role name (no path: IMDS does not show it)"},
	{"node.instance_profile_arn", "instance profile ARN"},
	{"node.instance_profile_name", "instance profile name"},
	{"node.mac", "primary MAC"},
	{"node.subnet_id", "subnet of the primary interface"},
	{"node.subnet_cidr", "IPv4 CIDR of that subnet"},
	{"node.vpc_id", "VPC id"},
	{"node.vpc_cidrs", "VPC IPv4 CIDRs, comma separated"},
	{"node.security_groups", "security group ids, comma separated"},
	{"node.nodegroup", "managed node group name, when known"},
	{"node.distro", "al2023, al2, bottlerocket or ID+VERSION_ID of os-release"},
	{"node.distro_name", "PRETTY_NAME of os-release"},
	{"node.distro_version", "VERSION_ID of os-release"},
	{"node.kernel", "kernel release"},
	{"eks.release", "contents of /etc/eks/release"},
	{"kubelet.version", "kubelet version"},
	{"containerd.version", "containerd version"},
	{"nodeadm.version", "nodeadm version"},
	{"kubelet.minor_version", "kubelet version as 1.N, when the API server's is known too"},
	{"kubelet.version_skew", "minor versions the kubelet is behind the API server (negative when ahead)"},
	{"kubelet.newer_than_cluster", "true when the kubelet's minor version is above the API server's"},
	{"kubelet.beyond_skew_policy", "true when the kubelet is more than three minor versions behind the API server"},
	{"kubelet.skew_oldest_minor", "oldest kubelet minor version the API server supports (1.N)"},
	{"kubelet.max_pods", "maxPods from the kubelet config, flags or user data"},
	{"kubelet.max_pods_eni_limit", "pods the instance type can address without prefix delegation"},
	{"kubelet.max_pods_exceeds_eni", "true when max_pods is above that limit and prefix delegation is off"},
	{"kubelet.labels", "node labels set through kubelet flags, k=v comma separated"},
	{"kubelet.cgroup_driver", "cgroupDriver of the kubelet config"},
	{"label.", "label.<key>: value of a node label set through kubelet flags"},
	{"cluster.name", "cluster name (NodeConfig, bootstrap.sh, kubeconfig, nodeadm cache)"},
	{"cluster.endpoint", "API server URL"},
	{"cluster.endpoint_host", "API server host name"},
	{"cluster.cidr", "service CIDR from the NodeConfig"},
	{"cluster.dns_ip", "--dns-cluster-ip of bootstrap.sh"},
	{"cluster.ca_expiry", "NotAfter of the cluster CA given in the user data, RFC 3339"},
	{"cluster.version", "Kubernetes version the API server reported at /version to collect's probe"},
	{"cluster.minor_version", "that version as 1.N"},
	{"bootstrap.container_runtime", "--container-runtime of bootstrap.sh"},
	{"userdata.present", "true when the bundle holds the user data"},
	{"userdata.kind", "nodeconfig, shell, cloud-config, mime (several parts), empty, unknown"},
	{"userdata.kinds", "kind of every part, comma separated"},
	{"userdata.mime", "the user data is a MIME multipart document"},
	{"userdata.has_nodeconfig", "nodeadm would find a NodeConfig in the user data"},
	{"userdata.has_shell", "a part is a shell script"},
	{"userdata.bootstrap", "a shell part calls /etc/eks/bootstrap.sh"},
	{"userdata.nodeadm_init", "a shell part calls nodeadm init"},
	{"userdata.nodeadm_init_command", "that call as written"},
	{"userdata.nodeadm_init_sources", "config sources of that call (imds://user-data when none)"},
	{"userdata.nodeconfig_path", "path of a NodeConfig file a shell part writes"},
	{"userdata.corrected_init", "the nodeadm init call that reads that file"},
	{"userdata.unexpanded_labels", "label keys whose values hold shell variables"},
	{"userdata.uses_imds", "a shell part reads instance metadata"},
	{"userdata.problem.", "userdata.problem.<code>: true when the user data check found that problem (codes in internal/userdata/problem.go); <fact>@ is its file:line, <fact>@text its message and <fact>@line the text of that line"},
	{"userdata.nodeconfig_missing", "required spec.cluster fields the NodeConfig lacks (name, apiServerEndpoint, certificateAuthority, cidr), comma separated; @ and @text as for problems"},
	{"userdata.nodeconfig_wrong_type", "apiVersion and/or kind of the NodeConfig are not node.eks.aws/v1alpha1 NodeConfig; @ and @text as for problems"},
	{"userdata.nodeconfig_bad_values", "NodeConfig fields with a value nodeadm rejects or cannot use (cidr, id, name, apiServerEndpoint, certificateAuthority); @ and @text as for problems"},
	{"userdata.config_source_invalid", "a --config-source of a nodeadm call in the user data nodeadm cannot read as meant; @ and @text as for problems"},
	{"userdata.ca_time_invalid", "the cluster CA in the user data is expired or not yet valid; @ and @text as for problems"},
	{"nodeconfig.proxy.", "nodeconfig.proxy.<variable>: the service a proxy variable is set for in spec.instance.environment"},
	{"cni.env.", "cni.env.<VARIABLE>: aws-node environment, from ipamd introspection or container dumps"},
	{"cni.custom_network", "AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG is true"},
	{"cni.prefix_delegation", "ENABLE_PREFIX_DELEGATION is true"},
	{"cni.eniconfig_label", "value of the node's ENIConfig label"},
	{"cni.eniconfig_label_key", "which label key carried it"},
	{"cni.eniconfig_expected", "the ENIConfig name custom networking looks for by default (the AZ)"},
	{"cni.eniconfig_prefixed", "the label names an ENIConfig other than the AZ name"},
	{"cni.label_without_custom_network", "an ENIConfig label is set but custom networking is off"},
	{"cni.eniconfig_unselected", "custom networking is on but nothing tells ipamd which ENIConfig to use"},
	{"cni.eniconfigs_seen", "ipamd introspection listed ENIConfigs"},
	{"probe.failed_endpoints", "regional endpoints (sts, ec2, ecr-api, s3) whose probe failed, comma separated"},
	{"probe.no_route_out", "true when every regional endpoint probed resolved to a public address and the connection timed out"},
	{"probe.", "probe.<name>.<field>: collect's reachability checks (names apiserver, sts, ec2, ecr-api, s3; fields verdict, tcp, tls, address_class, dns_error, tcp_error, tls_error, host; server_version, version_error for apiserver)"},
}

// Known reports whether a fact name belongs to the vocabulary, so that a
// catalog test can catch a misspelt fact.
func Known(name string) bool {
	name = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "@text"), "@line"), "@")
	for _, d := range Vocabulary {
		if d.Name == name || (strings.HasSuffix(d.Name, ".") && strings.HasPrefix(name, d.Name)) {
			return true
		}
	}
	return false
}
