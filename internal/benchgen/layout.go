package benchgen

import (
	"strings"

	"github.com/nodetriage/nodetriage/internal/bundle"
)

// LayoutNodeRoot is not a bundle but a node's file system (etc/, var/log/)
// as collect --root reads it from a mounted volume. The journal is left to
// the caller: WriteJournalExport makes its export text.
const LayoutNodeRoot bundle.Layout = "node-root"

// stream is one kind of log content; a layout decides where it is written.
type stream int

const (
	streamKubelet stream = iota
	streamContainerd
	streamNodeadmConfig
	streamNodeadmRun
	streamIpamd
	streamPlugin
	streamDmesg
	streamSyslog
	streamCloudInit
	streamCloudInitOutput
	streamAwsNode
	streamKubeProxy
	streamCoreDNS
)

// maker returns the line maker of the stream for node id.
func (s stream) maker(id *identity) payloadMaker {
	switch s {
	case streamKubelet:
		return kubeletJournalLine
	case streamContainerd:
		return containerdJournalLine
	case streamNodeadmConfig:
		u := &nodeadmUnit{unit: "nodeadm-config", title: "EKS Nodeadm Config", pid: pidNodeadm, lines: nodeadmConfigRun(id)}
		return u.line
	case streamNodeadmRun:
		u := &nodeadmUnit{unit: "nodeadm-run", title: "EKS Nodeadm Run", pid: pidNodeadmRun, lines: nodeadmRunRun()}
		return u.line
	case streamIpamd:
		return ipamdLine
	case streamPlugin:
		return pluginLine
	case streamDmesg:
		return dmesgLine
	case streamSyslog:
		return syslogLine
	case streamCloudInit:
		return cloudInitLine
	case streamCloudInitOutput:
		return cloudInitOutputLine
	case streamAwsNode:
		return awsNodeLine
	case streamKubeProxy:
		return kubeProxyLine
	default:
		return coreDNSLine
	}
}

// fileSpec is one streamed file of a layout.
type fileSpec struct {
	path   string // slash separated, relative to the output folder
	stream stream
	weight int   // share of the streamed bytes, per mille
	limit  int64 // most bytes the file gets; 0 for no limit
	source string
}

// streamShare is how the bytes of a bundle split between the streams,
// roughly as on a busy node after ten days: the kubelet journal and the
// syslog file dominate, nodeadm and cloud-init stay small whatever the size.
var streamShare = []struct {
	stream stream
	weight int
	limit  int64
	source string
}{
	{streamKubelet, 330, 0, "kubelet"},
	{streamSyslog, 250, 0, "messages"},
	{streamContainerd, 140, 0, "containerd"},
	{streamIpamd, 120, 0, "ipamd"},
	{streamPlugin, 40, 0, "ipamd"},
	{streamAwsNode, 25, 0, "pod-logs"},
	{streamKubeProxy, 25, 0, "pod-logs"},
	{streamCoreDNS, 30, 0, "pod-logs"},
	{streamDmesg, 20, 4 << 20, "dmesg"},
	{streamCloudInit, 10, 2 << 20, "cloud-init"},
	{streamCloudInitOutput, 5, 256 << 10, "cloud-init"},
	{streamNodeadmConfig, 3, 64 << 10, "nodeadm"},
	{streamNodeadmRun, 2, 64 << 10, "nodeadm"},
}

// streamPath is where a stream goes in a layout; "" means the layout has no
// file for it (the node root keeps unit logs in the journal).
func streamPath(l bundle.Layout, s stream, id *identity) string {
	if l == LayoutNodeRoot {
		return rootPath(s, id)
	}
	switch s {
	case streamKubelet:
		return "kubelet/kubelet.log"
	case streamContainerd:
		return "containerd/containerd-log.txt"
	case streamNodeadmConfig:
		return "nodeadm/nodeadm-config.log"
	case streamNodeadmRun:
		return "nodeadm/nodeadm-run.log"
	case streamIpamd:
		return "var_log/aws-routed-eni/ipamd.log"
	case streamPlugin:
		return "var_log/aws-routed-eni/plugin.log"
	case streamDmesg:
		return "kernel/dmesg.current"
	case streamSyslog:
		return "var_log/messages"
	case streamCloudInit:
		return "var_log/cloud-init.log"
	case streamCloudInitOutput:
		return "var_log/cloud-init-output.log"
	}
	p, container := podOf(s, id)
	return "var_log/" + p.podDir() + "/" + container + "/0.log"
}

// rootPath is where a stream lives on the node itself.
func rootPath(s stream, id *identity) string {
	switch s {
	case streamIpamd:
		return "var/log/aws-routed-eni/ipamd.log"
	case streamPlugin:
		return "var/log/aws-routed-eni/plugin.log"
	case streamSyslog:
		return "var/log/messages"
	case streamCloudInit:
		return "var/log/cloud-init.log"
	case streamCloudInitOutput:
		return "var/log/cloud-init-output.log"
	case streamAwsNode, streamKubeProxy, streamCoreDNS:
		p, container := podOf(s, id)
		return "var/log/pods/" + p.podDir() + "/" + container + "/0.log"
	}
	return ""
}

// podOf is the pod and container whose log a pod-log stream is.
func podOf(s stream, id *identity) (*pod, string) {
	switch s {
	case streamAwsNode:
		return id.findPod("aws-node-"), "aws-node"
	case streamKubeProxy:
		return id.findPod("kube-proxy-"), "kube-proxy"
	default:
		return id.findPod("coredns-"), "coredns"
	}
}

// layoutFiles lists the streamed files of a layout.
func layoutFiles(l bundle.Layout, id *identity) []fileSpec {
	var specs []fileSpec
	for _, s := range streamShare {
		p := streamPath(l, s.stream, id)
		if p == "" {
			continue
		}
		specs = append(specs, fileSpec{path: p, stream: s.stream, weight: s.weight, limit: s.limit, source: s.source})
	}
	return specs
}

// staticFile is a small file written whole.
type staticFile struct {
	path    string
	content string
	source  string
}

// staticFiles are the small files of a layout besides the logs (and, for
// our layout, besides manifest.json, which is written last).
func staticFiles(l bundle.Layout, id *identity) []staticFile {
	uname := "Linux " + id.hostname + " " + id.kernel + " #1 SMP PREEMPT_DYNAMIC Mon Nov 10 17:50:45 UTC 2025 x86_64 x86_64 x86_64 GNU/Linux\n"
	switch l {
	case bundle.LayoutLogCollector:
		return []staticFile{
			{"kernel/uname.txt", uname, "system"},
			{"system/instance-id.txt", id.instanceID + "\n", "system"},
			{"system/region.txt", id.region + "\n", "system"},
			{"system/availability-zone.txt", id.zone + "\n", "system"},
			{"system/script-params.txt", "--mode=collect\n--eks_hybrid=false\n", "system"},
			{"kubelet/svc.log", "======== Unable to find KUBECONFIG, IGNORING POD DATA =========\n", "kubelet"},
		}
	case LayoutNodeRoot:
		return []staticFile{
			{"etc/os-release", osRelease, "system"},
			{"etc/hostname", id.hostname + "\n", "system"},
			{"etc/machine-id", id.machineID + "\n", "system"},
			{"var/lib/cloud/data/instance-id", id.instanceID + "\n", "system"},
		}
	}
	return []staticFile{
		{"kernel/uname.txt", uname, "system"},
		{"system/instance-id.txt", id.instanceID + "\n", "system"},
	}
}

const osRelease = `NAME="Amazon Linux"
VERSION="2023"
ID="amzn"
ID_LIKE="fedora"
VERSION_ID="2023"
PLATFORM_ID="platform:al2023"
PRETTY_NAME="Amazon Linux 2023.9.20251117"
ANSI_COLOR="0;33"
CPE_NAME="cpe:2.3:o:amazon:amazon_linux:2023"
HOME_URL="https://aws.amazon.com/linux/amazon-linux-2023/"
SUPPORT_END="2029-06-30"
`

// containerLinks are the /var/log/containers symbolic links of the node
// root: "<pod>_<namespace>_<container>-<id>.log" → the pod's log file.
func containerLinks(id *identity) map[string]string {
	links := map[string]string{}
	for _, s := range []stream{streamAwsNode, streamKubeProxy, streamCoreDNS} {
		p, container := podOf(s, id)
		name := "var/log/containers/" + p.name + "_" + p.namespace + "_" + container + "-" + p.sandbox + ".log"
		links[name] = "/" + rootPath(s, id)
	}
	return links
}

// isKnownLayout tells whether Generate can write l.
func isKnownLayout(l bundle.Layout) bool {
	switch l {
	case bundle.LayoutNodetriage, bundle.LayoutLogCollector, LayoutNodeRoot:
		return true
	}
	return false
}

// layoutNames lists the layouts Generate writes, for error messages.
func layoutNames() string {
	return strings.Join([]string{string(bundle.LayoutNodetriage), string(bundle.LayoutLogCollector), string(LayoutNodeRoot)}, ", ")
}
