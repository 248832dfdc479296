package logparse

import (
	"testing"
	"time"
)

// benchLines has one typical line per format, as the analyzer meets them.
var benchLines = []struct {
	name   string
	format Format
	line   string
	// maxAllocs is the most allocations Parse may make for the line.
	maxAllocs float64
}{
	{"journal-short/klog", FormatJournalShort, `Nov 29 14:26:31 ip-10-0-1-2.ec2.internal kubelet[2817]: E1129 14:26:31.123456    2817 kubelet_node_status.go:96] "Unable to register node with API server" err="Unauthorized" node="ip-10-0-1-2.ec2.internal"`, 1},
	{"journal-short/zap-console", FormatJournalShort, `Nov 29 14:20:02 ip-10-0-1-2.ec2.internal nodeadm[1845]: fatal cli/main.go:35 Command failed {"error": "no config in chain"}`, 1},
	{"journal-short/zap-json", FormatJournalShort, `Mar 03 21:11:29 localhost nodeadm[1845]: {"level":"fatal","ts":1709500289.81,"caller":"nodeadm/main.go:36","msg":"Command failed","error":"yaml: line 4: could not find expected ':'"}`, 1},
	{"journal-short/logfmt", FormatJournalShort, `Nov 29 14:25:41 ip-10-0-1-2.ec2.internal containerd[2400]: time="2026-11-29T14:25:41.200000000Z" level=error msg="failed to load cni during init" error="cni config load failed: no network config found in /etc/cni/net.d"`, 1},
	{"journal-short/unknown-source", FormatJournalShort, `Nov 29 14:25:41 ip-10-0-1-2.ec2.internal my-agent[77]: something happened`, 2},
	{"journal-iso/klog", FormatJournalISO, `2026-11-29T14:26:31.123456+00:00 ip-10-0-1-2.ec2.internal kubelet[2817]: E1129 14:26:31.123456    2817 kubelet_node_status.go:96] "Unable to register node with API server" err="Unauthorized"`, 1},
	{"klog", FormatKlog, `E1129 14:27:01.200000       1 reflector.go:158] "Unhandled Error" err="failed to list *v1.EndpointSlice: the server could not find the requested resource"`, 1},
	{"zap-json", FormatZapJSON, `{"level":"error","ts":"2026-11-29T14:30:01.000Z","caller":"ipamd/ipamd.go:500","msg":"Failed to check API server connectivity: invalid configuration: no configuration has been provided"}`, 1},
	{"zap-console", FormatZapConsole, `fatal cli/main.go:35 Command failed {"error": "no config in chain"}`, 1},
	{"logfmt", FormatLogfmt, `time="2026-11-29T14:26:40.512345678Z" level=error msg="PullImage \"602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/pause:3.5\" failed" error="dial tcp 52.94.1.1:443: i/o timeout"`, 1},
	{"cloud-init", FormatCloudInit, `2026-11-29 14:20:30,789 - util.py[WARNING]: Failed running /var/lib/cloud/instance/scripts/part-001 [1]`, 1},
	{"cloud-init-output", FormatCloudInitOutput, `2026-11-29T14:20:30+0000 [eks-bootstrap] ERROR: Exhausted retries while describing cluster!`, 1},
	{"dmesg", FormatDmesg, `[ 1234.567890] nf_conntrack: nf_conntrack: table full, dropping packet`, 1},
	{"dmesg-ctime", FormatDmesgCtime, `[Sun Nov 29 14:26:31 2026] watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [kworker/3:1:1234]`, 1},
	{"console", FormatConsole, `[   25.100000] nodeadm[1912]: fatal cli/main.go:35 Command failed {"error": "no config in chain"}`, 1},
	{"cri", FormatCRI, `2026-11-29T14:30:01.000000001Z stderr F {"level":"error","ts":"2026-11-29T14:30:01.000Z","caller":"ipamd/ipamd.go:500","msg":"Failed to check API server connectivity"}`, 1},
	{"plain", FormatPlain, `Exited with error on line 390`, 1},
	{"unknown", FormatUnknown, `Nov 29 14:26:31 ip-10-0-1-2.ec2.internal kubelet[2817]: E1129 14:26:31.123456    2817 kubelet_node_status.go:96] "Unable to register node"`, 1},
}

var benchHint = Hint{Ref: time.Date(2026, 11, 29, 14, 45, 0, 0, time.UTC), BootTime: time.Date(2026, 11, 29, 14, 19, 40, 0, time.UTC)}

func TestParseAllocations(t *testing.T) {
	for _, bl := range benchLines {
		line := []byte(bl.line)
		allocs := testing.AllocsPerRun(100, func() { _ = Parse(bl.format, line, benchHint) })
		if allocs > bl.maxAllocs {
			t.Errorf("%s: %.0f allocations per line, want at most %.0f", bl.name, allocs, bl.maxAllocs)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	for _, bl := range benchLines {
		line := []byte(bl.line)
		b.Run(bl.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				_ = Parse(bl.format, line, benchHint)
			}
		})
	}
}

func BenchmarkStream(b *testing.B) {
	line := []byte(benchLines[0].line)
	s := NewStream(FormatJournalShort, Hint{Year: 2026})
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Parse(line)
	}
}
