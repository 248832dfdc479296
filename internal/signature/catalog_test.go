package signature

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/nodetriage/nodetriage/patterns"
)

func embeddedMatcher(t testing.TB) (*Catalog, *Matcher) {
	t.Helper()
	c, err := Load(patterns.FS)
	if err != nil {
		t.Fatalf("loading the embedded catalog: %v", err)
	}
	m, err := c.Compile()
	if err != nil {
		t.Fatalf("compiling the embedded catalog: %v", err)
	}
	return c, m
}

// TestEmbeddedDeclaredLiteralsOccurInRegex is the catalog's quality bar:
// a regex item's declared prefilter literals must be written in the regex
// itself. (Load enforces it too; this test keeps the rule visible.)
func TestEmbeddedDeclaredLiteralsOccurInRegex(t *testing.T) {
	c, _ := embeddedMatcher(t)
	for _, s := range c.Signatures() {
		if s.Match == nil {
			continue
		}
		for _, it := range slices.Concat(s.Match.Items, s.Match.Not) {
			if it.Regex == nil {
				if len(it.Literals) != 1 || it.Literals[0] != it.Literal {
					t.Errorf("%s: literal item %q has prefilter literals %q", s.ID, it.Literal, it.Literals)
				}
				continue
			}
			parsed, err := syntax.Parse(it.Regex.String(), syntax.Perl)
			if err != nil {
				t.Fatalf("%s: %v", s.ID, err)
			}
			runs := literalRuns(parsed)
			for _, lit := range it.Literals {
				if !it.Derived && !containsInAny(runs, lowerASCII(lit)) {
					t.Errorf("%s (%s:%d): declared literal %q does not occur in regex %q", s.ID, s.File, it.Line, lit, it.Regex)
				}
				if len(lit) == 0 {
					t.Errorf("%s: empty prefilter literal", s.ID)
				}
			}
		}
	}
}

// TestEmbeddedCatalogShape checks what Load cannot: conventions of the
// catalog itself.
func TestEmbeddedCatalogShape(t *testing.T) {
	c, _ := embeddedMatcher(t)
	if len(c.Signatures()) == 0 {
		t.Fatal("the embedded catalog is empty")
	}
	milestones := map[string]string{}
	for _, s := range c.Signatures() {
		if s.Component+".yaml" != s.File {
			t.Errorf("%s: component %q differs from its file %s", s.ID, s.Component, s.File)
		}
		if !strings.HasPrefix(s.ID, s.Component+"-") {
			t.Errorf("%s: id should start with its component %q", s.ID, s.Component)
		}
		if s.Milestone != "" {
			if other, dup := milestones[s.Milestone]; dup {
				t.Errorf("milestone %q marked by both %s and %s", s.Milestone, other, s.ID)
			}
			milestones[s.Milestone] = s.ID
			continue
		}
		if len(s.Fix) == 0 {
			t.Errorf("%s: a problem signature needs fix steps", s.ID)
		}
		if len(s.References) == 0 {
			t.Errorf("%s: a problem signature needs at least one reference", s.ID)
		}
	}
}

// TestEmbeddedFactsAreDocumented: every fact the catalog reads must be
// listed in patterns/README.md, so the analyzer knows to compute it.
func TestEmbeddedFactsAreDocumented(t *testing.T) {
	c, _ := embeddedMatcher(t)
	readme, err := os.ReadFile(filepath.Join("..", "..", "patterns", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, fact := range c.FactNames() {
		if !strings.Contains(string(readme), "`"+fact+"`") {
			t.Errorf("fact %q is used by the catalog but not listed in patterns/README.md", fact)
		}
	}
}

// TestEmbeddedSignaturesOnRealLines runs the catalog on log lines shaped
// like real ones, in the file each would be found in.
func TestEmbeddedSignaturesOnRealLines(t *testing.T) {
	const (
		kubelet = "kubelet/kubelet.log"
		nodeadm = "nodeadm/nodeadm-config.log"
		journal = "journal/boot-0.log"
		ethtool = "networking/ethtool.txt"
	)
	tests := []struct {
		path, line string
		want       []string // "id" or "id name=value ..." for captures
	}{
		{nodeadm, `Mar 03 21:11:29 ip-192-168-10-5.ec2.internal nodeadm[1834]: fatal cli/main.go:35 Command failed {"error": "no config in chain"}`,
			[]string{"nodeadm-command-failed error=no config in chain", "nodeadm-no-config-in-chain"}},
		{nodeadm, `Mar 03 21:11:29 ip-192-168-10-5 nodeadm[1834]: {"level":"fatal","ts":1709500289.81,"caller":"nodeadm/main.go:36","msg":"Command failed","error":"could not find NodeConfig within UserData","stacktrace":"main.main\n\t/workdir/nodeadm/cmd/nodeadm/main.go:36"}`,
			[]string{"nodeadm-command-failed error=could not find NodeConfig within UserData", "nodeadm-no-config-in-chain where=UserData"}},
		{nodeadm, `Mar 03 21:11:28 ip-192-168-10-5 nodeadm[1834]: warn configprovider/chain.go:30 Encountered error in config provider {"error": "could not find NodeConfig within UserData"}`,
			nil},
		{nodeadm, `Mar 03 21:11:29 ip-192-168-10-5 nodeadm[1834]: fatal cli/main.go:35 Command failed {"error": "CIDR is missing in cluster configuration"}`,
			[]string{"nodeadm-command-failed error=CIDR is missing in cluster configuration", "nodeadm-nodeconfig-incomplete field=CIDR"}},
		{nodeadm, `{"level":"fatal","ts":1709500289.81,"caller":"nodeadm/main.go:36","msg":"Command failed","error":"failed to decode \"NodeConfig\" (wrong Kind)"}`,
			[]string{`nodeadm-command-failed error=failed to decode \"NodeConfig\" (wrong Kind)`}},
		{nodeadm, `Mar 03 21:11:40 ip-192-168-10-5 nodeadm[1834]: info init/init.go:113 done!`, []string{"nodeadm-init-done"}},
		{nodeadm, `{"level":"info","ts":1709500299.1,"caller":"init/init.go:103","msg":"done!"}`, []string{"nodeadm-init-done"}},
		{kubelet, `Mar 03 21:15:02 ip-192-168-10-5 kubelet[2001]: E0303 21:15:02.123456    2001 kubelet_node_status.go:96] "Unable to register node with API server" err="Unauthorized" node="ip-192-168-10-5.ec2.internal"`,
			[]string{"kubelet-register-node-failed error=Unauthorized", "kubelet-unauthorized"}},
		{kubelet, `E1115 07:12:31.482913    3790 kubelet_node_status.go:94] Unable to register node "ip-10-40-175-122.ec2.internal" with API server: Unauthorized`,
			[]string{"kubelet-register-node-failed error=Unauthorized node=ip-10-40-175-122.ec2.internal", "kubelet-unauthorized node=ip-10-40-175-122.ec2.internal"}},
		{kubelet, `E0303 21:15:02.200000    2001 reflector.go:147] vendor/k8s.io/client-go/informers/factory.go:150: Failed to watch *v1.Node: failed to list *v1.Node: Unauthorized`,
			[]string{"kubelet-unauthorized"}},
		{kubelet, `E0303 21:15:02.300000    2001 controller.go:145] "Failed to ensure lease exists, will retry" err="Unauthorized" interval="7s"`,
			[]string{"kubelet-unauthorized"}},
		{kubelet, `E0303 21:15:09.000000    2001 csi_plugin.go:300] Failed to initialize CSINode: error updating CSINode annotation: timed out waiting for the condition; caused by: Failed to contact API server when waiting for CSINode publishing: Unauthorized`,
			[]string{"kubelet-unauthorized"}},
		{kubelet, `E0303 21:15:02.400000    2001 kubelet.go:2412] "Error getting node" err="node \"\" not found"`,
			[]string{"kubelet-node-name-empty"}},
		{kubelet, `E0303 21:15:02.400000    2001 kubelet_node_status.go:462] Error updating node status, will retry: error getting node "": node "" not found`,
			[]string{"kubelet-node-name-empty"}},
		{kubelet, `E0303 21:15:02.500000    2001 kubelet_node_status.go:92] "Unable to register node with API server" err="Post \"https://ABCD.gr7.us-west-2.eks.amazonaws.com/api/v1/nodes\": dial tcp 10.0.1.10:443: i/o timeout" node="ip-192-168-10-5.ec2.internal"`,
			[]string{`kubelet-register-node-failed error=Post \"https://ABCD.gr7.us-west-2.eks.amazonaws.com/api/v1/nodes\": dial tcp 10.0.1.10:443: i/o timeout`}},
		{kubelet, `Sep 11 10:57:09 ip-172-31-63-152 kubelet[9919]: I0911 10:57:09.524826    9919 server.go:1232] "Started kubelet"`, []string{"kubelet-started"}},
		{journal, `2025-03-03T21:14:58.000000+0000 ip-192-168-10-5 systemd[1]: Started kubelet.service - Kubernetes Kubelet.`, []string{"kubelet-started"}},
		{kubelet, `I0303 21:15:20.000000    2001 kubelet_node_status.go:76] "Successfully registered node" node="ip-192-168-10-5.ec2.internal"`,
			[]string{"kubelet-node-registered node=ip-192-168-10-5.ec2.internal"}},
		{kubelet, `I1102 09:04:12.880518     214 kubelet_node_status.go:75] Successfully registered node ip-10-0-0-1.ec2.internal`,
			[]string{"kubelet-node-registered node=ip-10-0-0-1.ec2.internal"}},
		// the whole journal is read by every signature
		{journal, `2025-03-03T21:11:29.000000+0000 ip-192-168-10-5 nodeadm[1834]: fatal cli/main.go:35 Command failed {"error": "no config in chain"}`,
			[]string{"nodeadm-command-failed error=no config in chain", "nodeadm-no-config-in-chain"}},
		// a kubelet string in a nodeadm file is not routed to kubelet signatures
		{nodeadm, `"Unable to register node with API server" err="Unauthorized"`, nil},
		// ENA allowance counters of ethtool -S: a counter at zero is healthy
		{ethtool, `     linklocal_allowance_exceeded: 18734`, []string{"network-ena-linklocal-allowance count=18734"}},
		{ethtool, `     conntrack_allowance_exceeded: 40`, []string{"network-ena-conntrack-allowance count=40"}},
		{ethtool, `     bw_in_allowance_exceeded: 7`, []string{"network-ena-bandwidth-allowance count=7 direction=in"}},
		{ethtool, `     bw_out_allowance_exceeded: 2291`, []string{"network-ena-bandwidth-allowance count=2291 direction=out"}},
		{ethtool, `     pps_allowance_exceeded: 512`, []string{"network-ena-pps-allowance count=512"}},
		{ethtool, `     linklocal_allowance_exceeded: 0`, nil},
		{ethtool, `     conntrack_allowance_exceeded: 0`, nil},
		{ethtool, `     bw_in_allowance_exceeded: 0`, nil},
		{ethtool, `     bw_out_allowance_exceeded: 0`, nil},
		{ethtool, `     pps_allowance_exceeded: 0`, nil},
		{ethtool, `     conntrack_allowance_available: 116234`, nil},
	}
	_, m := embeddedMatcher(t)
	for _, tt := range tests {
		fm := m.ForPath(tt.path)
		if fm == nil {
			t.Fatalf("ForPath(%s) = nil", tt.path)
		}
		got := describeSorted(m, fm.Match([]byte(tt.line), nil))
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %s\n got %q\nwant %q", tt.path, tt.line, got, tt.want)
		}
	}
}

// describeSorted renders hits as "id name=value ..." sorted by id.
func describeSorted(m *Matcher, hits []Hit) []string {
	var out []string
	for _, h := range hits {
		parts := []string{m.Signature(h.Sig).ID}
		var caps []string
		for k, v := range h.Captures {
			if v != "" {
				caps = append(caps, k+"="+v)
			}
		}
		slices.Sort(caps)
		out = append(out, strings.Join(append(parts, caps...), " "))
	}
	slices.Sort(out)
	return out
}

// healthyKubelet is a kubelet start on a node that joined; only milestones
// may fire on it.
const healthyKubelet = `Sep 11 10:57:09 ip-172-31-63-152 kubelet[9919]: I0911 10:57:09.520930    9919 kubelet.go:393] "Attempting to sync node with API server"
Sep 11 10:57:09 ip-172-31-63-152 kubelet[9919]: I0911 10:57:09.523826    9919 kuberuntime_manager.go:257] "Container runtime initialized" containerRuntime="containerd" version="1.7.22" apiVersion="v1"
Sep 11 10:57:09 ip-172-31-63-152 kubelet[9919]: I0911 10:57:09.524826    9919 server.go:1232] "Started kubelet"
Sep 11 10:57:09 ip-172-31-63-152 kubelet[9919]: E0911 10:57:09.602347    9919 eviction_manager.go:258] "Eviction manager: failed to get summary stats" err="failed to get node info: node \"ip-172-31-63-152.ec2.internal\" not found"
Sep 11 10:57:09 ip-172-31-63-152 kubelet[9919]: I0911 10:57:09.635148    9919 kubelet_node_status.go:70] "Attempting to register node" node="ip-172-31-63-152.ec2.internal"
Sep 11 10:57:09 ip-172-31-63-152 kubelet[9919]: E0911 10:57:09.673575    9919 kubelet.go:2327] "Skipping pod synchronization" err="PLEG is not healthy: pleg has yet to be successful"
Sep 11 10:57:10 ip-172-31-63-152 kubelet[9919]: I0911 10:57:10.135148    9919 kubelet_node_status.go:76] "Successfully registered node" node="ip-172-31-63-152.ec2.internal"
Sep 11 10:57:10 ip-172-31-63-152 kubelet[9919]: I0911 10:57:10.200000    9919 kubelet.go:2303] "Starting kubelet main sync loop"
`

const healthyNodeadm = `Mar 03 21:11:20 ip-192-168-10-5 nodeadm[1834]: info init/init.go:65 Loading configuration.. {"configSource": ["imds://user-data", "file:///etc/eks/nodeadm.d/"], "configCache": "/run/eks/nodeadm/config.json"}
Mar 03 21:11:20 ip-192-168-10-5 nodeadm[1834]: warn configprovider/chain.go:30 Encountered error in config provider {"error": "no config found in directory"}
Mar 03 21:11:21 ip-192-168-10-5 nodeadm[1834]: info init/init.go:92 Validating configuration..
Mar 03 21:11:21 ip-192-168-10-5 nodeadm[1834]: info init/init.go:96 Creating daemon manager..
Mar 03 21:11:22 ip-192-168-10-5 nodeadm[1834]: info kubelet/config.go:372 Setup IP for node {"ip": "192.168.10.5"}
Mar 03 21:11:40 ip-192-168-10-5 nodeadm[1834]: info init/init.go:113 done!
`

func TestEmbeddedCatalogOnHealthyLogs(t *testing.T) {
	_, m := embeddedMatcher(t)
	for path, text := range map[string]string{"kubelet/kubelet.log": healthyKubelet, "nodeadm/nodeadm-config.log": healthyNodeadm} {
		fm := m.ForPath(path)
		sc := bufio.NewScanner(strings.NewReader(text))
		for sc.Scan() {
			for _, h := range fm.Match(sc.Bytes(), nil) {
				if s := m.Signature(h.Sig); s.Milestone == "" {
					t.Errorf("%s: %s fired on a healthy line: %s", path, s.ID, sc.Text())
				}
			}
		}
	}
}

// TestFixtureBundles runs the line matcher over the fixture bundles in
// testdata/logs/<signature id>/ (laid out like a bundle) and checks that
// the named signature hits at least one line. The analyzer's tests cover
// facts and ranking on the same fixtures.
func TestFixtureBundles(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "logs")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Skipf("no fixture folder: %v", err)
	}
	c, m := embeddedMatcher(t)
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		s := c.Lookup(d.Name())
		if s == nil {
			t.Errorf("testdata/logs/%s: no signature has this id", d.Name())
			continue
		}
		if s.Match == nil {
			continue
		}
		if !fixtureHits(t, m, filepath.Join(root, d.Name()), s.ID) {
			t.Errorf("testdata/logs/%s: no line of the fixture matches the signature", d.Name())
		}
	}
}

func fixtureHits(t *testing.T, m *Matcher, dir, id string) bool {
	t.Helper()
	found := false
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || found {
			return err
		}
		fm := m.ForPath(p)
		if fm == nil {
			return nil
		}
		f, err := os.Open(filepath.Join(dir, p))
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() && !found {
			for _, h := range fm.Match(sc.Bytes(), nil) {
				found = found || m.Signature(h.Sig).ID == id
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Errorf("%s: %v", dir, err)
	}
	return found
}

func TestRenderEmbeddedSummary(t *testing.T) {
	c, m := embeddedMatcher(t)
	fm := m.ForPath("nodeadm/nodeadm-config.log")
	hits := fm.Match([]byte(`fatal cli/main.go:35 Command failed {"error": "Certificate authority is missing in cluster configuration"}`), nil)
	s := c.Lookup("nodeadm-nodeconfig-incomplete")
	for _, h := range hits {
		if m.Signature(h.Sig) != s {
			continue
		}
		facts := map[string]string{"cluster.name": "prod-eu"}
		got := Render(s.Summary, facts, h.Captures)
		for _, want := range []string{`"Certificate authority" is missing`, "<userdata.nodeconfig_path>"} {
			if !strings.Contains(got, want) {
				t.Errorf("rendered summary lacks %q:\n%s", want, got)
			}
		}
		if fix := Render(s.Fix[0], facts, h.Captures); !strings.Contains(fix, "prod-eu") {
			t.Errorf("rendered fix lacks the cluster name: %s", fix)
		}
		return
	}
	t.Fatal("nodeadm-nodeconfig-incomplete did not hit its own example line")
}

func TestExportPatterns(t *testing.T) {
	c := mustLoad(t, map[string]string{"t.yaml": matcherCatalog})
	literals, regexes := c.ExportPatterns()
	if !slices.Contains(literals, "no config in chain") || !slices.Contains(literals, "Unauthorized") {
		t.Errorf("literals = %q, want the case-sensitive literal items", literals)
	}
	if slices.Contains(literals, "x509") || !slices.Contains(regexes, "(?i)x509") {
		t.Errorf("ignore_case literal x509 must be exported as a (?i) regex; literals %q regexes %q", literals, regexes)
	}
	if slices.Contains(literals, "169.254.169.254") {
		t.Error("not items must not be exported")
	}
	for _, re := range regexes {
		if _, err := regexp.Compile(re); err != nil {
			t.Errorf("exported regex %q does not compile: %v", re, err)
		}
	}
	if len(literals)+len(regexes) != 11 {
		t.Errorf("exported %d patterns, want the 11 positive items", len(literals)+len(regexes))
	}
}
