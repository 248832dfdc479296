package signature

import (
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"sync"
	"testing"

	"github.com/nodetriage/nodetriage/patterns"
)

// benchCatalog is the embedded catalog plus testdata/bench, about the size
// the real catalog will reach.
func benchCatalog(t testing.TB) *Catalog {
	t.Helper()
	base, err := Load(patterns.FS)
	if err != nil {
		t.Fatal(err)
	}
	c, err := base.Overlay(os.DirFS("testdata/bench"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// benchFile is the generated text of one bundle file, split into lines.
type benchFile struct {
	path  string
	lines [][]byte
	bytes int
}

const benchSize = 50 << 20

var (
	benchOnce  sync.Once
	benchFiles []benchFile
)

// benchData generates about 50 MB of kubelet and ipamd lines shaped like
// real ones, none matching, with a hit every 40,000 lines.
func benchData() []benchFile {
	benchOnce.Do(func() {
		rng := rand.New(rand.NewPCG(1, 2))
		benchFiles = []benchFile{
			generateFile("kubelet/kubelet.log", benchSize*7/10, rng, kubeletLine, kubeletHits),
			generateFile("var_log/aws-routed-eni/ipamd.log", benchSize*3/10, rng, ipamdLine, ipamdHits),
		}
	})
	return benchFiles
}

func generateFile(path string, size int, rng *rand.Rand, line func(*rand.Rand, int) string, hits []string) benchFile {
	f := benchFile{path: path}
	buf := make([]byte, 0, size+4096)
	for i := 0; len(buf) < size; i++ {
		start := len(buf)
		if i%40000 == 39999 {
			buf = append(buf, hits[i/40000%len(hits)]...)
		} else {
			buf = append(buf, line(rng, i)...)
		}
		f.lines = append(f.lines, buf[start:len(buf):len(buf)])
	}
	f.bytes = len(buf)
	return f
}

func kubeletLine(rng *rand.Rand, i int) string {
	ts := fmt.Sprintf("%02d:%02d:%02d.%06d", 10+i/3600000%10, i/60000%60, i/1000%60, rng.IntN(1000000))
	prefix := fmt.Sprintf("Sep 11 %s ip-10-0-%d-%d kubelet[2001]: ", ts[:8], rng.IntN(256), rng.IntN(256))
	pod := fmt.Sprintf("web-%x-%05x", rng.Uint32(), rng.IntN(1<<20))
	uid := fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<16), rng.IntN(1<<16), rng.Uint64()&(1<<48-1))
	cid := fmt.Sprintf("%016x%016x%016x%016x", rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64())
	switch rng.IntN(8) {
	case 0:
		return prefix + fmt.Sprintf(`I0911 %s    2001 kubelet.go:2455] "SyncLoop (PLEG): event for pod" pod="default/%s" event={"ID":"%s","Type":"ContainerStarted","Data":"%s"}`, ts, pod, uid, cid)
	case 1:
		return prefix + fmt.Sprintf(`I0911 %s    2001 kuberuntime_container.go:779] "Killing container with a grace period" pod="default/%s" podUID="%s" containerName="app" containerID="containerd://%s" gracePeriod=30`, ts, pod, uid, cid)
	case 2:
		return prefix + fmt.Sprintf(`E0911 %s    2001 pod_workers.go:1298] "Error syncing pod, skipping" err="failed to \"StartContainer\" for \"app\" with CrashLoopBackOff: \"back-off 5m0s restarting failed container=app pod=%s_default(%s)\"" pod="default/%s" podUID="%s"`, ts, pod, uid, pod, uid)
	case 3:
		return prefix + fmt.Sprintf(`I0911 %s    2001 topology_manager.go:215] "Topology Admit Handler" podUID="%s" podNamespace="default" podName="%s"`, ts, uid, pod)
	case 4:
		return prefix + fmt.Sprintf(`I0911 %s    2001 reconciler_common.go:258] "operationExecutor.VerifyControllerAttachedVolume started for volume \"kube-api-access-%05x\" (UniqueName: \"kubernetes.io/projected/%s-kube-api-access-%05x\") pod \"%s\" (UID: \"%s\") " pod="default/%s"`, ts, rng.IntN(1<<20), uid, rng.IntN(1<<20), pod, uid, pod)
	case 5:
		return prefix + fmt.Sprintf(`I0911 %s    2001 scope.go:117] "RemoveContainer" containerID="%s"`, ts, cid)
	case 6:
		return prefix + fmt.Sprintf(`I0911 %s    2001 kubelet_volumes.go:163] "Cleaned up orphaned pod volumes dir" podUID="%s" path="/var/lib/kubelet/pods/%s/volumes"`, ts, uid, uid)
	default:
		return prefix + fmt.Sprintf(`I0911 %s    2001 reflector.go:359] Caches populated for *v1.Pod from pkg/kubelet/config/apiserver.go:66`, ts)
	}
}

var kubeletHits = []string{
	`Sep 11 10:57:09 ip-10-0-1-2 kubelet[2001]: E0911 10:57:09.635562    2001 kubelet_node_status.go:96] "Unable to register node with API server" err="Unauthorized" node="ip-10-0-1-2.ec2.internal"`,
	`Sep 11 10:57:09 ip-10-0-1-2 kubelet[2001]: E0911 10:57:09.673575    2001 kubelet.go:2327] "Container runtime network not ready" networkReady="NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized"`,
	`Sep 11 10:57:09 ip-10-0-1-2 kubelet[2001]: E0911 10:57:09.602347    2001 kubelet.go:2412] "Error getting node" err="node \"\" not found"`,
}

func ipamdLine(rng *rand.Rand, i int) string {
	ts := fmt.Sprintf("2025-09-11T%02d:%02d:%02d.%03dZ", 10+i/3600000%10, i/60000%60, i/1000%60, rng.IntN(1000))
	cid := fmt.Sprintf("%016x%016x%016x%016x", rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64())
	switch rng.IntN(5) {
	case 0:
		return fmt.Sprintf(`{"level":"info","ts":"%s","caller":"rpc/rpc.pb.go:713","msg":"Received AddNetwork for NS /var/run/netns/cni-%08x-%04x, Sandbox %s, ifname eth0"}`, ts, rng.Uint32(), rng.IntN(1<<16), cid)
	case 1:
		return fmt.Sprintf(`{"level":"info","ts":"%s","caller":"datastore/data_store.go:961","msg":"AssignPodIPv4Address: Assign IP 10.0.%d.%d to sandbox aws-cni/%s/eth0"}`, ts, rng.IntN(256), rng.IntN(256), cid)
	case 2:
		return fmt.Sprintf(`{"level":"debug","ts":"%s","caller":"ipamd/ipamd.go:694","msg":"IP pool stats: Total IPs/Prefixes = %d/0, AssignedIPs/CidrIPs = %d/0, c.maxIPsPerENI = 10"}`, ts, rng.IntN(60), rng.IntN(60))
	case 3:
		return fmt.Sprintf(`{"level":"debug","ts":"%s","caller":"ipamd/ipamd.go:1262","msg":"Reconcile existing ENI eni-%017x IP pool"}`, ts, rng.Uint64()&(1<<60-1))
	default:
		return fmt.Sprintf(`{"level":"debug","ts":"%s","caller":"ipamd/ipamd.go:1439","msg":"Successfully Reconciled ENI/IP pool"}`, ts)
	}
}

var ipamdHits = []string{
	`{"level":"error","ts":"2025-09-11T10:57:09.000Z","caller":"ipamd/ipamd.go:917","msg":"Failed to increase pool size due to not able to allocate ENI AllocENI: error assigning IPs: InsufficientFreeAddressesInSubnet: There are not enough free addresses"}`,
	`{"level":"info","ts":"2025-09-11T10:57:09.000Z","caller":"aws-k8s-agent/main.go:42","msg":"Starting L-IPAMD   ..."}`,
}

// naiveFile holds, for one file, every positive item of the signatures
// routed to it as one compiled regex: the approach without a prefilter.
func naiveRegexes(t testing.TB, m *Matcher, fm *FileMatcher) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, si := range fm.Signatures() {
		for _, it := range m.Signature(si).Match.Items {
			expr := it.Pattern()
			if it.Regex == nil {
				expr = regexp.QuoteMeta(it.Literal)
				if it.IgnoreCase {
					expr = "(?i)" + expr
				}
			}
			out = append(out, regexp.MustCompile(expr))
		}
	}
	if len(out) == 0 {
		t.Fatal("no regexes routed")
	}
	return out
}

// BenchmarkMatcher measures the prefiltered matcher over ~50 MB of
// realistic, almost entirely non-matching lines.
func BenchmarkMatcher(b *testing.B) {
	m, err := benchCatalog(b).Compile()
	if err != nil {
		b.Fatal(err)
	}
	files := benchData()
	var matchers []*FileMatcher
	total := 0
	for _, f := range files {
		matchers = append(matchers, m.ForPath(f.path))
		total += f.bytes
	}
	b.SetBytes(int64(total))
	hits := make([]Hit, 0, 8)
	hitLines := 0
	b.ResetTimer()
	for b.Loop() {
		hitLines = 0
		for i, f := range files {
			fm := matchers[i]
			for _, line := range f.lines {
				hits = fm.Match(line, hits[:0])
				if len(hits) > 0 {
					hitLines++
				}
			}
		}
	}
	b.ReportMetric(float64(hitLines), "hitlines")
	b.ReportMetric(float64(len(m.sigs)), "signatures")
}

// BenchmarkNaive runs every routed regex on every line, for comparison.
func BenchmarkNaive(b *testing.B) {
	m, err := benchCatalog(b).Compile()
	if err != nil {
		b.Fatal(err)
	}
	files := benchData()
	var sets [][]*regexp.Regexp
	total := 0
	for _, f := range files {
		sets = append(sets, naiveRegexes(b, m, m.ForPath(f.path)))
		total += f.bytes
	}
	b.SetBytes(int64(total))
	hitLines := 0
	b.ResetTimer()
	for b.Loop() {
		hitLines = 0
		for i, f := range files {
			for _, line := range f.lines {
				for _, re := range sets[i] {
					if re.Match(line) {
						hitLines++
						break
					}
				}
			}
		}
	}
	b.ReportMetric(float64(hitLines), "hitlines")
}
