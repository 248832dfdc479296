package facts

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Builder collects fact files while a bundle streams by, then derives the
// fact set from them.
type Builder struct {
	files map[string][]byte
	Now   time.Time // for certificate expiry checks; zero means time.Now
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder { return &Builder{files: make(map[string][]byte)} }

// Add keeps a fact file's content (the caller has already bounded it).
func (b *Builder) Add(name string, data []byte) { b.files[name] = data }

// File returns a kept file, or nil.
func (b *Builder) File(name string) []byte { return b.files[name] }

// find returns the kept files whose path matches the glob, in name order.
func (b *Builder) find(pattern string) []string {
	var names []string
	for n := range b.files {
		if ok, _ := path.Match(pattern, n); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// first returns the content of the first kept file matching any pattern.
func (b *Builder) first(patterns ...string) (string, []byte) {
	for _, p := range patterns {
		if names := b.find(p); len(names) > 0 {
			return names[0], b.files[names[0]]
		}
	}
	return "", nil
}

// Build derives the facts. Sources are applied best first: what the node
// itself recorded (manifest, instance metadata) before what is inferred.
func (b *Builder) Build() (Set, []string) {
	s := make(Set)
	var notes []string
	now := b.Now
	if now.IsZero() {
		now = time.Now()
	}
	b.manifest(s)
	b.imds(s)
	b.collectorSystem(s)
	b.osRelease(s)
	b.bottlerocket(s)
	notes = append(notes, b.userData(s, now)...)
	b.nodeadmCache(s)
	b.kubelet(s)
	b.cni(s)
	b.probes(s)
	b.scriptOutput(s)
	derive(s)
	return s, notes
}

func (b *Builder) manifest(s Set) {
	data := b.files["manifest.json"]
	if data == nil {
		return
	}
	var m struct {
		Tool     string            `json:"tool"`
		Version  string            `json:"tool_version"`
		Host     map[string]string `json:"host"`
		Partial  bool              `json:"partial"`
		Reason   string            `json:"partial_reason"`
		MaxBytes int64             `json:"max_bytes"`
		Sources  []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
			Error  string `json:"error"`
		} `json:"sources"`
		Redaction struct {
			Enabled bool `json:"enabled"`
		} `json:"redaction"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		s.force("collection.manifest_error", err.Error())
		return
	}
	for k, v := range map[string]string{
		"node.hostname": m.Host["hostname"], "node.instance_id": m.Host["instance_id"], "node.account": m.Host["account_id"],
		"node.region": m.Host["region"], "node.az": m.Host["availability_zone"], "node.instance_type": m.Host["instance_type"],
		"node.ami": m.Host["ami_id"], "node.distro_name": strings.TrimSpace(m.Host["distro"] + " " + m.Host["distro_version"]),
		"node.kernel": m.Host["kernel"], "eks.release": m.Host["eks_release"], "kubelet.version": m.Host["kubelet_version"],
		"containerd.version": m.Host["containerd_version"], "nodeadm.version": m.Host["nodeadm_version"],
	} {
		s.set(k, v)
	}
	s.setBool("collection.partial", m.Partial)
	s.set("collection.partial_reason", m.Reason)
	s.setBool("collection.redacted", m.Redaction.Enabled)
	byStatus := map[string][]string{}
	for _, src := range m.Sources {
		byStatus[src.Status] = append(byStatus[src.Status], src.Name)
	}
	for _, st := range []string{"failed", "timeout", "truncated", "skipped"} {
		sort.Strings(byStatus[st])
		s.set("collection."+st, strings.Join(byStatus[st], ","))
	}
}

func (b *Builder) imds(s Set) {
	_, data := b.first("imds/metadata.json", "imds/*.json")
	if data == nil {
		return
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return
	}
	str := func(k string) string {
		switch v := m[k].(type) {
		case string:
			return v
		case []any:
			parts := make([]string, 0, len(v))
			for _, p := range v {
				parts = append(parts, fmt.Sprint(p))
			}
			return strings.Join(parts, ",")
		}
		return ""
	}
	for fact, key := range map[string]string{
		"node.instance_id": "instance_id", "node.region": "region", "node.az": "availability_zone", "node.az_id": "availability_zone_id",
		"node.instance_type": "instance_type", "node.ami": "ami_id", "node.account": "account_id", "node.role_name": "role_name",
		"node.instance_profile_arn": "instance_profile_arn", "node.private_ip": "private_ip", "node.private_dns": "local_hostname",
		"node.mac": "mac", "node.subnet_id": "subnet_id", "node.vpc_id": "vpc_id", "node.subnet_cidr": "subnet_ipv4_cidr_block",
		"node.vpc_cidrs": "vpc_ipv4_cidr_blocks", "node.security_groups": "security_group_ids", "node.architecture": "architecture",
	} {
		s.set(fact, str(key))
	}
}

// collectorSystem reads the one-line files of the AWS collector's system/ folder.
func (b *Builder) collectorSystem(s Set) {
	for fact, name := range map[string]string{
		"node.instance_id": "system/instance-id.txt", "node.region": "system/region.txt", "node.az": "system/availability-zone.txt",
		"kubelet.version": "system/kubelet-version.txt", "containerd.version": "system/containerd-version.txt",
		"node.hostname": "system/hostname",
	} {
		s.set(fact, firstLine(b.files[name]))
	}
	s.set("kubelet.version", firstLine(b.files["eks/kubelet-version.txt"]))
	s.set("containerd.version", firstLine(b.files["eks/containerd-version.txt"]))
	if _, data := b.first("kernel/uname.txt", "system/uname.txt"); data != nil {
		if f := strings.Fields(firstLine(data)); len(f) >= 3 {
			s.set("node.kernel", f[2])
			s.set("node.hostname", f[1])
		}
	}
	if _, data := b.first("eks/release", "nodeadm/release", "system/eks-release*"); data != nil {
		s.set("eks.release", strings.Join(strings.Fields(string(data)), " "))
		for _, line := range strings.Split(string(data), "\n") {
			k, v, ok := strings.Cut(line, "=")
			if ok && strings.Contains(k, "KUBERNETES_VERSION") {
				s.set("kubelet.version", strings.Trim(v, `"' `))
			}
		}
	}
}

func (b *Builder) osRelease(s Set) {
	_, data := b.first("system/os-release", "*/os-release", "os-release", "*/*/os-release")
	if data == nil {
		return
	}
	kv := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			kv[k] = strings.Trim(v, `"'`)
		}
	}
	distro := kv["ID"] + kv["VERSION_ID"]
	switch {
	case kv["ID"] == "amzn" && kv["VERSION_ID"] == "2023":
		distro = "al2023"
	case kv["ID"] == "amzn" && kv["VERSION_ID"] == "2":
		distro = "al2"
	case kv["ID"] == "bottlerocket":
		distro = "bottlerocket"
	}
	s.force("node.distro", distro) // os-release is the authority on the distribution
	s.force("node.distro_name", kv["PRETTY_NAME"])
	s.force("node.distro_version", kv["VERSION_ID"])
}

// bottlerocket reads the settings.json of a logdog bundle.
func (b *Builder) bottlerocket(s Set) {
	data := b.files["settings.json"]
	if data == nil {
		return
	}
	var m struct {
		Settings struct {
			Kubernetes map[string]any `json:"kubernetes"`
		} `json:"settings"`
	}
	if json.Unmarshal(data, &m) != nil {
		return
	}
	k := m.Settings.Kubernetes
	s.set("node.distro", "bottlerocket")
	s.set("cluster.name", fmt.Sprint(orEmpty(k["cluster-name"])))
	s.set("cluster.endpoint", fmt.Sprint(orEmpty(k["api-server"])))
	s.set("kubelet.max_pods", fmt.Sprint(orEmpty(k["max-pods"])))
}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// nodeadmCache reads the NodeConfig nodeadm resolved and cached.
func (b *Builder) nodeadmCache(s Set) {
	_, data := b.first("nodeadm/config.json", "nodeadm/run/config.json")
	if data == nil {
		return
	}
	var m struct {
		Spec struct {
			Cluster struct {
				Name     string `json:"name"`
				Endpoint string `json:"apiServerEndpoint"`
				CIDR     string `json:"cidr"`
			} `json:"cluster"`
		} `json:"spec"`
		Status struct {
			Instance struct {
				PrivateDNSName string `json:"privateDnsName"`
			} `json:"instance"`
			KubeletVersion string `json:"kubeletVersion"`
		} `json:"status"`
	}
	if json.Unmarshal(data, &m) != nil {
		return
	}
	s.set("cluster.name", m.Spec.Cluster.Name)
	s.set("cluster.endpoint", m.Spec.Cluster.Endpoint)
	s.set("cluster.cidr", m.Spec.Cluster.CIDR)
	s.set("node.private_dns", m.Status.Instance.PrivateDNSName)
	s.set("kubelet.version", m.Status.KubeletVersion)
}

var (
	reMaxPodsFlag = regexp.MustCompile(`--max-pods[= ]"?(\d+)`)
	reNodeLabels  = regexp.MustCompile(`--node-labels[= ]"?([^"\s]+)`)
	reKubeconfig  = regexp.MustCompile(`(?m)^\s*server:\s*(\S+)`)
	// --cluster-name NAME in a kubeconfig's exec args, inline or as YAML list
	// items ("- --cluster-name" then "- NAME"); aws-iam-authenticator uses -i.
	reClusterArg = regexp.MustCompile(`(?:--cluster-name|--cluster-id|\s-i)["',]*\s*(?:-\s+)?["']?([A-Za-z0-9][-A-Za-z0-9]{0,99})`)
)

func (b *Builder) kubelet(s Set) {
	for _, name := range append(b.find("kubelet/config.json"), b.find("kubelet/kubelet-config.json")...) {
		var cfg struct {
			MaxPods      int    `json:"maxPods"`
			CgroupDriver string `json:"cgroupDriver"`
		}
		if json.Unmarshal(b.files[name], &cfg) == nil {
			if cfg.MaxPods > 0 {
				s.set("kubelet.max_pods", strconv.Itoa(cfg.MaxPods))
			}
			s.set("kubelet.cgroup_driver", cfg.CgroupDriver)
		}
	}
	for _, pattern := range []string{"kubelet/environment", "nodeadm/kubelet-environment", "nodeadm/environment", "eks/kubelet/environment", "kubelet/kubelet_service.txt", "kubelet/kubelet-extra-args*"} {
		for _, name := range b.find(pattern) {
			text := string(b.files[name])
			if m := reMaxPodsFlag.FindStringSubmatch(text); m != nil {
				s.force("kubelet.max_pods", m[1])
			}
			if m := reNodeLabels.FindStringSubmatch(text); m != nil {
				addLabels(s, m[1])
			}
		}
	}
	if _, data := b.first("kubelet/kubeconfig.yaml", "kubelet/kubeconfig"); data != nil {
		if m := reKubeconfig.FindSubmatch(data); m != nil {
			s.set("cluster.endpoint", string(m[1]))
		}
		if m := reClusterArg.FindSubmatch(data); m != nil {
			s.set("cluster.name", string(m[1]))
		}
	}
}

// addLabels records node labels given as "k=v,k2=v2".
func addLabels(s Set, list string) {
	for _, kv := range strings.Split(list, ",") {
		k, v, _ := strings.Cut(kv, "=")
		if k = strings.TrimSpace(k); k != "" {
			s.set("label."+k, v)
		}
	}
	s.set("kubelet.labels", list)
}

// reEnv finds the VPC CNI settings in "KEY=VALUE" strings (container
// environments: ctr containers info, docker inspect) and in "KEY": "VALUE"
// pairs (ipamd introspection). The name must start at a word boundary, so
// that a longer variable ending in a known name is not taken for it.
var reEnv = regexp.MustCompile(`"?\b(AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG|ENABLE_PREFIX_DELEGATION|ENI_CONFIG_LABEL_DEF|ENI_CONFIG_ANNOTATION_DEF|AWS_VPC_K8S_CNI_EXTERNALSNAT|WARM_IP_TARGET|WARM_PREFIX_TARGET|MINIMUM_IP_TARGET|ENABLE_IPv6)"?\s*[:=]\s*"?([^",\s}]*)`)

// cni reads VPC CNI settings from the ipamd introspection files and the
// container environment dumps, whichever the bundle has.
func (b *Builder) cni(s Set) {
	names := append(b.find("ipamd/*env-settings.json"), b.find("cni/*.json")...)
	for _, name := range names {
		for _, m := range reEnv.FindAllSubmatch(b.files[name], -1) {
			s.set("cni.env."+string(m[1]), string(m[2]))
		}
	}
	if v, ok := s["cni.env.AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG"]; ok {
		s.set("cni.custom_network", strconv.FormatBool(strings.EqualFold(v, "true")))
	}
	if v, ok := s["cni.env.ENABLE_PREFIX_DELEGATION"]; ok {
		s.set("cni.prefix_delegation", strconv.FormatBool(strings.EqualFold(v, "true")))
	}
	if data := b.files["ipamd/eni-configs.json"]; len(bytes.TrimSpace(data)) > 0 {
		s.set("cni.eniconfigs_seen", "true")
	}
}

func (b *Builder) probes(s Set) {
	_, data := b.first("probes/probes.json", "probes/*.json")
	if data == nil {
		return
	}
	var results []map[string]any
	if json.Unmarshal(data, &results) != nil {
		var wrapped struct {
			RanOn         string           `json:"ran_on"`
			DescribesNode *bool            `json:"describes_node"`
			Results       []map[string]any `json:"results"`
		}
		if json.Unmarshal(data, &wrapped) != nil {
			return
		}
		if !probesDescribeNode(wrapped.RanOn, wrapped.DescribesNode) {
			return
		}
		results = wrapped.Results
	}
	for _, r := range results {
		name, _ := r["name"].(string)
		if name == "" {
			continue
		}
		for _, key := range []string{"verdict", "tcp", "tls", "address_class", "dns_error", "tcp_error", "tls_error", "host", "server_version", "version_error"} {
			if v, ok := r[key]; ok && v != nil && fmt.Sprint(v) != "" {
				s.set("probe."+name+"."+key, fmt.Sprint(v))
			}
		}
	}
}

// probesDescribeNode tells whether probes ran on the node itself. Probes
// run from a rescue machine that mounted the node's volume test that
// machine's network and are ignored; older bundles only say where they ran.
func probesDescribeNode(ranOn string, describesNode *bool) bool {
	if describesNode != nil {
		return *describesNode
	}
	return ranOn == "" || strings.HasPrefix(ranOn, "node")
}

func firstLine(data []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	if sc.Scan() {
		return strings.TrimSpace(sc.Text())
	}
	return ""
}

//go:embed eni-max-pods.txt
var eniMaxPodsTable string

// maxPodsWithoutPrefixes returns how many pods an instance type can address
// in secondary-IP mode, when the embedded table knows the type.
func maxPodsWithoutPrefixes(instanceType string) (int, bool) {
	for _, line := range strings.Split(eniMaxPodsTable, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == instanceType {
			n, err := strconv.Atoi(f[1])
			return n, err == nil
		}
	}
	return 0, false
}

var (
	reBootstrapTrace = regexp.MustCompile(`(?m)/etc/eks/bootstrap\.sh\s+['"]?([-a-zA-Z0-9]{1,100})['"]?(?:\s|$)`)
	reBootstrapFlag  = regexp.MustCompile(`--apiserver-endpoint[= ]['"]?(https://[^\s'"]+)`)
)

// ConsoleName is the name under which the analyzer hands a lone text file
// (EC2 console output, a pasted journal) to the builder.
const ConsoleName = "(console)"

var reConsoleInstance = regexp.MustCompile(`\A\s*(i-[0-9a-f]{8,17})\s*\n`)

// scriptOutput reads what user data scripts printed (cloud-init-output.log,
// user-data.log): in bundles without the user data, the shell trace of a
// bootstrap.sh call still names the cluster and its endpoint.
func (b *Builder) scriptOutput(s Set) {
	for _, name := range []string{"var_log/cloud-init-output.log", "var_log/user-data.log", ConsoleName} {
		data := b.files[name]
		if m := reBootstrapTrace.FindSubmatch(data); m != nil && !bytes.HasPrefix(m[1], []byte("-")) {
			s.set("cluster.name", string(m[1]))
			s.set("userdata.bootstrap", "true")
		}
		if m := reBootstrapFlag.FindSubmatch(data); m != nil {
			s.set("cluster.endpoint", string(m[1]))
		}
	}
	if m := reConsoleInstance.FindSubmatch(b.files[ConsoleName]); m != nil {
		s.set("node.instance_id", string(m[1])) // get-console-output --output text starts with the instance id
	}
}
