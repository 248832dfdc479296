package facts

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nodetriage/nodetriage/internal/userdata"
)

// userDataFile finds the raw user data in the bundle (collect stores it
// redacted as userdata/user-data.txt).
func (b *Builder) userDataFile() (string, []byte) {
	return b.first("userdata/user-data.txt", "userdata/user-data*", "userdata/userdata*")
}

// userData parses the user data and records what the node was told to do:
// its kind, the NodeConfig nodeadm would read, bootstrap.sh arguments, the
// nodeadm calls of a shell script, and every problem found, each as
// "userdata.problem.<code>" with its location.
func (b *Builder) userData(s Set, now time.Time) []string {
	name, raw := b.userDataFile()
	if raw == nil {
		s.set("userdata.present", "false")
		return nil
	}
	ud, err := userdata.Parse(raw)
	if err != nil {
		return []string{fmt.Sprintf("%s: user data could not be parsed: %v", name, err)}
	}
	s.force("userdata.present", "true")
	s.force("userdata.kind", userDataKind(ud))
	s.force("userdata.mime", strconv.FormatBool(ud.MIME))
	var kinds []string
	for _, p := range ud.Parts {
		kinds = append(kinds, string(p.Kind))
		if p.Shell != nil {
			shellFacts(s, *p.Shell, partFile(name, ud, p.Index))
		}
	}
	s.force("userdata.kinds", strings.Join(kinds, ","))
	nc, ok := ud.NodeConfig()
	s.force("userdata.has_nodeconfig", strconv.FormatBool(ok))
	if ok {
		nodeConfigFacts(s, nc)
	}
	for _, p := range ud.Check(now) {
		key := "userdata.problem." + p.Code
		if _, dup := s[key]; dup {
			continue
		}
		s.force(key, "true")
		where := partFile(name, ud, p.Part)
		if p.Line > 0 {
			where += ":" + strconv.Itoa(p.Line)
		}
		s.force(key+"@", where)
		s.force(key+"@text", p.Message)
		s.force(key+"@line", problemLine(ud, raw, p))
	}
	return nil
}

// userDataKind names the user data as a whole: the kind of its only part,
// or "mime" with several.
func userDataKind(ud *userdata.UserData) string {
	switch {
	case len(ud.Parts) == 0:
		return string(userdata.KindEmpty)
	case ud.MIME && len(ud.Parts) > 1:
		return string(userdata.KindMIME)
	}
	return string(ud.Parts[0].Kind)
}

// partFile is the bundle file where collect wrote a decoded MIME part; the
// raw file for single-part user data or blob-level problems.
func partFile(raw string, ud *userdata.UserData, index int) string {
	if !ud.MIME || index <= 0 || index > len(ud.Parts) {
		return raw
	}
	return path.Join(path.Dir(raw), ud.Parts[index-1].FileName())
}

func shellFacts(s Set, sh userdata.Shell, file string) {
	s.force("userdata.has_shell", "true")
	if bc := sh.Bootstrap; bc != nil {
		s.force("userdata.bootstrap", "true")
		s.force("userdata.bootstrap@", fmt.Sprintf("%s:%d", file, bc.Line))
		s.force("userdata.bootstrap@text", bc.Command)
		s.set("cluster.name", firstNonBlank(bc.ExpandedClusterName, bc.ClusterName))
		s.set("cluster.endpoint", bc.Expanded["--apiserver-endpoint"])
		s.set("cluster.dns_ip", bc.Expanded["--dns-cluster-ip"])
		s.set("bootstrap.container_runtime", bc.Expanded["--container-runtime"])
		if bc.MaxPods > 0 {
			s.set("kubelet.max_pods", strconv.Itoa(bc.MaxPods))
		}
		setLabels(s, bc.Labels)
	}
	for _, in := range sh.NodeadmInits {
		s.force("userdata.nodeadm_init", "true")
		s.set("userdata.nodeadm_init_command", in.Command)
		s.set("userdata.nodeadm_init@", fmt.Sprintf("%s:%d", file, in.Line))
		s.set("userdata.nodeadm_init@text", in.Command)
		s.set("userdata.nodeadm_init_sources", strings.Join(in.Sources(), ","))
	}
	if len(sh.NodeConfigFiles) > 0 {
		p := sh.NodeConfigFiles[0]
		s.set("userdata.nodeconfig_path", p)
		s.set("userdata.corrected_init", userdata.CorrectedInit(p))
	}
	for _, f := range sh.WrittenFiles {
		if f.NodeConfig != nil {
			nodeConfigFacts(s, f.NodeConfig)
		}
	}
	setLabels(s, sh.Labels)
	if len(sh.UnexpandedLabels) > 0 {
		s.set("userdata.unexpanded_labels", strings.Join(sh.UnexpandedLabels, ","))
	}
	if sh.UsesIMDS {
		s.set("userdata.uses_imds", "true")
	}
}

func nodeConfigFacts(s Set, nc *userdata.NodeConfig) {
	c := nc.Spec.Cluster
	s.set("cluster.name", c.Name)
	s.set("cluster.endpoint", c.APIServerEndpoint)
	s.set("cluster.cidr", c.CIDR)
	if exp, ok := nc.CAExpiry(); ok {
		s.set("cluster.ca_expiry", exp.UTC().Format(time.RFC3339))
	}
	if n, ok := nc.MaxPods(); ok {
		s.set("kubelet.max_pods", strconv.Itoa(n))
	}
	setLabels(s, nc.Labels())
	services := make([]string, 0, len(nc.Spec.Instance.Environment))
	for svc := range nc.Spec.Instance.Environment {
		services = append(services, svc)
	}
	sort.Strings(services) // the first service (in name order) wins, the same on every run
	for _, svc := range services {
		for k := range nc.Spec.Instance.Environment[svc] {
			if strings.Contains(strings.ToLower(k), "proxy") {
				s.set("nodeconfig.proxy."+strings.ToLower(k), svc)
			}
		}
	}
}

func setLabels(s Set, labels map[string]string) {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var list []string
	for _, k := range keys {
		s.set("label."+k, labels[k])
		list = append(list, k+"="+labels[k])
	}
	if len(list) > 0 {
		s.set("kubelet.labels", strings.Join(list, ","))
	}
}

func firstNonBlank(v ...string) string {
	for _, s := range v {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// problemLine is the text of the line a problem points at: in the decoded
// part for part problems, in the user data as a whole otherwise.
func problemLine(ud *userdata.UserData, raw []byte, p userdata.Problem) string {
	if p.Line <= 0 {
		return ""
	}
	text := ud.Decoded
	if ud.MIME && p.Part > 0 && p.Part <= len(ud.Parts) {
		text = ud.Parts[p.Part-1].Body
	} else if len(text) == 0 {
		text = raw
	}
	lines := strings.Split(string(text), "\n")
	if p.Line > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[p.Line-1])
}
