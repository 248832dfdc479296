package signature

import (
	"slices"
	"strings"
	"testing"

	"github.com/nodetriage/nodetriage/patterns"
)

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"kubelet/kubelet.log", "kubelet/kubelet.log", true},
		{"kubelet/kubelet.log", "kubelet/kubelet.log.1", false},
		{"nodeadm/*.log", "nodeadm/nodeadm-config.log", true},
		{"nodeadm/*.log", "nodeadm/sub/nodeadm-config.log", false},
		{"var_log/aws-node*", "var_log/aws-node-xyz_kube-system.log", true},
		{"var_log/kube-system_aws-node*/**", "var_log/kube-system_aws-node-abc_uid/aws-node/0.log", true},
		{"var_log/kube-system_aws-node*/**", "var_log/kube-system_coredns-abc/coredns/0.log", false},
		{"journal/**", "journal/boot-0.log", true},
		{"journal/**", "journal/a/b/c.log", true},
		{"journal/**", "other/journal.log", false},
		{"**/dmesg*", "kernel/dmesg.current", true},
		{"**/dmesg*", "dmesg", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"kernel/dmesg[.]*", "kernel/dmesg.boot", true},
		{"a/?", "a/bc", false},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.pattern)
		if err != nil {
			t.Fatalf("compileGlob(%q): %v", tt.pattern, err)
		}
		if got := g.match(tt.path); got != tt.want {
			t.Errorf("glob %q match %q = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func TestCompileGlobRejects(t *testing.T) {
	for _, pattern := range []string{"", "/abs/path", "a//b", "a/../b", "a/b**", "a/[x"} {
		if _, err := compileGlob(pattern); err == nil {
			t.Errorf("compileGlob(%q) succeeded, want an error", pattern)
		}
	}
}

func TestCleanBundlePath(t *testing.T) {
	tests := map[string]string{
		"kubelet/kubelet.log":   "kubelet/kubelet.log",
		"./kubelet/kubelet.log": "kubelet/kubelet.log",
		"/kubelet//kubelet.log": "kubelet/kubelet.log",
		"a/../kubelet/x.log":    "kubelet/x.log",
		"../../etc/passwd":      "etc/passwd",
		"var_log\\messages":     "var_log/messages",
		"":                      "",
	}
	for in, want := range tests {
		if got := cleanBundlePath(in); got != want {
			t.Errorf("cleanBundlePath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestEmbeddedSourcesRouting pins where the files of both bundle layouts
// (ours and eks-log-collector.sh) land.
func TestEmbeddedSourcesRouting(t *testing.T) {
	c, err := Load(patterns.FS)
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.Compile()
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{
		"kubelet/kubelet.log":                                    "kubelet",
		"nodeadm/nodeadm-config.log":                             "nodeadm",
		"nodeadm/nodeadm-run.log":                                "nodeadm",
		"nodeadm/nodeadm.d/10-user.yaml":                         "nodeconfig",
		"containerd/containerd-log.txt":                          "containerd",
		"sandbox-image/sandbox-image-log.txt":                    "sandbox-image",
		"var_log/cloud-init-output.log":                          "cloud-init",
		"var_log/user-data.log":                                  "cloud-init",
		"var_log/aws-routed-eni/ipamd.log":                       "ipamd",
		"var_log/aws-routed-eni/plugin.log":                      "ipamd",
		"var_log/aws-node-5xk2p_kube-system_aws-node-0123.log":   "ipamd",
		"var_log/kube-system_aws-node-5xk2p_uid/aws-node/0.log":  "ipamd",
		"var_log/kube-proxy-abc_kube-system_kube-proxy-0123.log": "kube-proxy",
		"kernel/dmesg.current":                                   "kernel",
		"kernel/dmesg.human.current":                             "kernel",
		"var_log/messages":                                       "kernel",
		"system/services.txt":                                    "systemd",
		"userdata/part-2.nodeadm.yaml":                           "userdata",
		"probes/dns.json":                                        "probes",
		"imds/identity.json":                                     "imds",
		"journal/current-boot.log":                               "journal",
		"console/console-output.txt":                             "console",
		"networking/ethtool.txt":                                 "nic-stats",
		"system/ps.txt":                                          "",
		"networking/iptables-save.txt":                           "",
	}
	for p, want := range tests {
		if got := strings.Join(m.SourcesOf(p), ","); got != want {
			t.Errorf("SourcesOf(%q) = %q, want %q", p, got, want)
		}
	}
}

const routingCatalog = `signatures:
  - id: on-kubelet
    title: t
    severity: info
    summary: s
    sources: [kubelet]
    match: {any: [{literal: aaa}]}
  - id: on-ipamd
    title: t
    severity: info
    summary: s
    sources: [ipamd]
    match: {any: [{literal: bbb}]}
  - id: on-both
    title: t
    severity: info
    summary: s
    sources: [kubelet, ipamd]
    match: {any: [{literal: ccc}]}
  - id: on-every-file
    title: t
    severity: info
    summary: s
    match: {any: [{literal: ddd}]}
  - id: facts-only
    title: t
    severity: info
    summary: s
    facts: [{fact: a.b, exists: true}]
`

func TestForPathRouting(t *testing.T) {
	m := compileTest(t, routingCatalog)
	tests := []struct {
		path string
		want []string
	}{
		{"kubelet/kubelet.log", []string{"on-kubelet", "on-both", "on-every-file"}},
		{"./kubelet//kubelet.log", []string{"on-kubelet", "on-both", "on-every-file"}},
		{"var_log/aws-routed-eni/ipamd.log", []string{"on-ipamd", "on-both", "on-every-file"}},
		{"var_log/kube-system_aws-node-x_uid/aws-node/0.log", []string{"on-ipamd", "on-both", "on-every-file"}},
		{"journal/boot.log", []string{"on-kubelet", "on-ipamd", "on-both", "on-every-file"}},
		{"system/ps.txt", []string{"on-every-file"}},
	}
	for _, tt := range tests {
		fm := m.ForPath(tt.path)
		if fm == nil {
			t.Errorf("ForPath(%q) = nil, want %v", tt.path, tt.want)
			continue
		}
		var got []string
		for _, i := range fm.Signatures() {
			got = append(got, m.Signature(i).ID)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("ForPath(%q) signatures = %v, want %v", tt.path, got, tt.want)
		}
	}
	if all := m.ForAll(); len(all.Signatures()) != 4 {
		t.Errorf("ForAll holds %d signatures, want the 4 with a match", len(all.Signatures()))
	}
}

func TestForPathNilWhenNothingReads(t *testing.T) {
	m := compileTest(t, strings.SplitAfter(routingCatalog, "match: {any: [{literal: ccc}]}\n")[0])
	if fm := m.ForPath("system/ps.txt"); fm != nil {
		t.Errorf("ForPath(system/ps.txt) = %v, want nil: no signature reads it", fm.Signatures())
	}
	if fm := m.ForPath("kubelet/kubelet.log"); fm == nil {
		t.Error("ForPath(kubelet/kubelet.log) = nil")
	}
}

func TestForPathSharesCompiledGroups(t *testing.T) {
	m := compileTest(t, routingCatalog)
	a, b := m.ForPath("var_log/aws-routed-eni/ipamd.log"), m.ForPath("var_log/aws-routed-eni/plugin.log")
	if a.g != b.g {
		t.Error("two files of the same sources got separately compiled groups")
	}
	if a == b {
		t.Error("ForPath returned the same FileMatcher twice; each caller needs its own scratch")
	}
}

func compileTest(t testing.TB, catalog string) *Matcher {
	t.Helper()
	c := mustLoad(t, map[string]string{"t.yaml": catalog})
	m, err := c.Compile()
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return m
}
