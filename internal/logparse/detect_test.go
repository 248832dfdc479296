package logparse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDetectFormat(t *testing.T) {
	cases := []struct {
		path string
		head string
		want Format
	}{
		{"kubelet/kubelet.log", "", FormatJournalShort},
		{"./kubelet/kubelet.log", "Nov 29 14:26:31 host kubelet[1]: x\n", FormatJournalShort},
		{"eks_i-0abc_2025-03-06_1822-UTC_0.7.8/kubelet/kubelet.log", "", FormatJournalShort},
		{"kubelet/kubelet.log", "2026-11-29T14:26:31.123456+00:00 host kubelet[1]: x\n", FormatJournalISO},
		{"kubelet/kubelet.log", "-- No entries --\n", FormatJournalShort},
		{"nodeadm/nodeadm-config.log", "", FormatJournalShort},
		{"nodeadm/udev-net-manager_eth0.log", "", FormatJournalShort},
		{"containerd/containerd-log.txt", "The Containerd daemon is not running.\n", FormatJournalShort},
		{"containerd/soci-snapshotter/soci-snapshotter-log.txt", "", FormatJournalShort},
		{"docker/docker.log", "", FormatJournalShort},
		{"sandbox-image/sandbox-image-log.txt", "", FormatJournalShort},
		{"journal/kubelet.log", "", FormatJournalISO},
		{"journal/kubelet.log", "Nov 29 14:26:31 host kubelet[1]: x\n", FormatJournalShort},
		{"var_log/aws-routed-eni/ipamd.log", "", FormatZapJSON},
		{"var_log/aws-routed-eni/plugin.log", `{"level":"info","ts":"2026-11-29T14:30:01.000Z","msg":"x"}` + "\n", FormatZapJSON},
		{"var_log/aws-routed-eni/ipamd.log.gz", "", FormatUnknown},
		{"kernel/dmesg.current", "", FormatDmesg},
		{"kernel/dmesg.boot", "", FormatDmesg},
		{"kernel/dmesg.human.current", "", FormatDmesgCtime},
		{"kernel/dmesg.current", "[Sun Nov 29 14:26:31 2026] x\n", FormatDmesgCtime},
		{"var_log/cloud-init.log", "", FormatCloudInit},
		{"var_log/cloud-init-output.log", "[   12.0] looks like dmesg\n", FormatCloudInitOutput},
		{"var_log/user-data.log", "", FormatCloudInitOutput},
		{"var_log/messages", "", FormatJournalShort},
		{"var_log/messages", "2026-11-29T14:26:31.123456+00:00 host kernel: x\n", FormatJournalISO},
		{"var_log/syslog", "", FormatJournalShort},
		{"var_log/kube-proxy.log", "", FormatKlog},
		{"var_log/aws-node-x7k2p_kube-system_aws-node-" + strings.Repeat("a", 64) + ".log", "", FormatCRI},
		{"var_log/kube-system_coredns-5d78c9869d-abcde_uid/coredns/0.log", "", FormatCRI},
		{"console-output.txt", "[    0.000000] Linux version\n", FormatConsole},
		{"ec2/console.log", "", FormatConsole},
		{"system/ps.txt", "", FormatUnknown},
		{"system/ps.txt", "USER PID %CPU\nroot 1 0.0\n", FormatPlain},
		{"unknown.log", `time="2026-11-29T14:25:40Z" level=info msg="x"` + "\n", FormatLogfmt},
		{"unknown.log", "I1129 14:27:00.100000       1 a.go:1] x\n", FormatKlog},
		{"unknown.log", "info init/init.go:65 Loading configuration..\n", FormatZapConsole},
		{"unknown.log", "2026-11-29 14:20:01,123 - util.py[DEBUG]: x\n", FormatCloudInit},
		{"unknown.log", "2026-11-29T14:29:50Z stdout F x\n", FormatCRI},
		{"unknown.log", "[    0.0] a\n[  OK  ] Started x.\n", FormatConsole},
		{"unknown.log", "[    0.0] a\n[    0.1] b\n", FormatDmesg},
		{"unknown.log", "plain\nNov 29 14:26:31 host a[1]: x\nNov 29 14:26:31 host a[1]: y\n{\"level\":\"info\",\"msg\":\"m\"}\n", FormatJournalShort},
		{"unknown.log", "Nov 29 14:26:31 host a[1]: x\n{\"level\":\"info\",\"msg\":\"m\"}\n", FormatJournalShort},
		{"unknown.log", "Nov 29 14:26:31 host a[1]: complete\n{\"level\":\"info\",\"msg\":\"cut", FormatJournalShort},
		{"", "", FormatUnknown},
		{"", "\n\n  \n", FormatUnknown},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			if got := DetectFormat(tc.path, []byte(tc.head)); got != tc.want {
				t.Errorf("DetectFormat(%q, %q) = %v, want %v", tc.path, tc.head, got, tc.want)
			}
		})
	}
}

func TestSourceFromPath(t *testing.T) {
	cases := map[string]string{
		"kubelet/kubelet.log":                                      "kubelet",
		"./nodeadm/nodeadm-config.log":                             "nodeadm",
		"nodeadm/udev-net-manager_eth0.log":                        "udev-net-manager",
		"containerd/containerd-log.txt":                            "containerd",
		"var_log/aws-routed-eni/ipamd.log":                         "ipamd",
		"var_log/aws-routed-eni/plugin.log":                        "aws-cni",
		"var_log/aws-routed-eni/ipamd-2024-01-01T00-00-00.000.log": "ipamd",
		"var_log/aws-routed-eni/network-policy-agent.log":          "network-policy-agent",
		"kernel/dmesg.current":                                     "kernel",
		"var_log/cloud-init.log":                                   "cloud-init",
		"var_log/cloud-init-output.log":                            "cloud-init",
		"journal/kubelet.service.log":                              "kubelet",
		"var_log/messages":                                         "",
		"var_log/kube-proxy.log":                                   "kube-proxy",
		"var_log/aws-node-x7k2p_kube-system_aws-node-" + strings.Repeat("0", 64) + ".log": "aws-node",
		"var_log/kube-system_aws-node-x7k2p_1f2e/aws-node/0.log":                          "aws-node",
		"system/ps.txt":     "",
		"docker/docker.log": "dockerd",
	}
	for p, want := range cases {
		if got := SourceFromPath(p); got != want {
			t.Errorf("SourceFromPath(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestFormatString(t *testing.T) {
	seen := map[string]bool{}
	for f := FormatUnknown; f <= FormatPlain; f++ {
		name := f.String()
		if name == "" || seen[name] {
			t.Errorf("Format %d has empty or duplicate name %q", f, name)
		}
		seen[name] = true
	}
	if got := Format(200).String(); got != "unknown" {
		t.Errorf("Format(200).String() = %q", got)
	}
}

// fixture is a file under testdata/ with what each of its lines must give.
type fixture struct {
	path   string // below testdata/bundle
	format Format
	hint   Hint
	lines  map[int]Record // 1-based line number → expected record
	// timed lists lines that have no time (others must have one).
	untimed []int
}

func TestFixtures(t *testing.T) {
	boot := utc(2026, 11, 29, 14, 19, 40, 0)
	fixtures := []fixture{
		{
			path: "kubelet/kubelet.log", format: FormatJournalShort, untimed: []int{1},
			lines: map[int]Record{
				5: {Time: utc(2026, 11, 29, 14, 26, 31, 123456000), Level: LevelError, Source: "kubelet",
					Text: `"Unable to register node with API server" err="Unauthorized" node="ip-10-0-1-2.ec2.internal"`},
				10: {Time: utc(2026, 11, 29, 14, 40, 10, 999999000), Level: LevelFatal, Source: "kubelet",
					Text: `"Failed to run kubelet" err="failed to run Kubelet: could not init cloud provider \"aws\""`},
			},
		},
		{
			path: "nodeadm/nodeadm-config.log", format: FormatJournalShort,
			lines: map[int]Record{
				2: {Time: utc(2026, 11, 29, 14, 20, 2, 0), Level: LevelInfo, Source: "nodeadm",
					Text: `Loading configuration.. {"configSource": ["imds://user-data"], "configCache": "/run/eks/nodeadm/config.json"}`},
				4: {Time: utc(2026, 11, 29, 14, 20, 2, 0), Level: LevelFatal, Source: "nodeadm",
					Text: `Command failed {"error": "no config in chain"}`},
				7: {Time: utc(2026, 11, 29, 14, 20, 2, 0), Source: "systemd",
					Text: "Failed to start nodeadm-config.service - EKS Nodeadm Config."},
			},
		},
		{
			path: "nodeadm/nodeadm-run.log", format: FormatJournalShort,
			lines: map[int]Record{
				3: {Time: utc(2026, 11, 29, 14, 27, 40, 0), Level: LevelDebug, Source: "nodeadm",
					Text: "retrying request EC2/DescribeInstances, attempt 2"},
			},
		},
		{
			path: "nodeadm/udev-net-manager_eth0.log", format: FormatJournalShort, untimed: []int{1},
			lines: map[int]Record{1: {Source: "udev-net-manager", Text: "-- No entries --"}},
		},
		{
			path: "var_log/aws-routed-eni/ipamd.log", format: FormatZapJSON,
			lines: map[int]Record{
				3: {Time: utc(2026, 11, 29, 14, 30, 1, 0), Level: LevelError, Source: "ipamd",
					Text: "Failed to check API server connectivity: invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable"},
			},
		},
		{
			path: "containerd/containerd-log.txt", format: FormatJournalShort,
			lines: map[int]Record{
				3: {Time: utc(2026, 11, 29, 14, 25, 41, 200000000), Level: LevelError, Source: "containerd",
					Text: `failed to load cni during init, please check CRI plugin status before setting up network for pods error="cni config load failed: no network config found in /etc/cni/net.d: cni plugin not initialized: failed to load cni config"`},
			},
		},
		{
			path: "kernel/dmesg.current", format: FormatDmesg, hint: Hint{BootTime: boot},
			lines: map[int]Record{
				4: {Time: boot.Add(1234567890 * 1000), Source: "kernel", Text: "nf_conntrack: nf_conntrack: table full, dropping packet"},
			},
		},
		{
			path: "kernel/dmesg.human.current", format: FormatDmesgCtime,
			lines: map[int]Record{
				2: {Time: utc(2026, 11, 29, 14, 19, 44, 0), Source: "systemd", Text: "Detected virtualization amazon."},
			},
		},
		{
			path: "var_log/cloud-init.log", format: FormatCloudInit, untimed: []int{6, 7},
			lines: map[int]Record{
				2: {Time: utc(2026, 11, 29, 14, 20, 5, 456000000), Level: LevelWarn, Source: "cloud-init",
					Text: "Calling 'http://169.254.169.254/latest/api/token' failed [0/1s]: request error [HTTPConnectionPool(host='169.254.169.254', port=80): Max retries exceeded with url: /latest/api/token (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7f2b1c3d4e50>: Failed to establish a new connection: [Errno 101] Network is unreachable'))]"},
			},
		},
		{
			path: "var_log/cloud-init-output.log", format: FormatCloudInitOutput, untimed: []int{2, 3, 7, 8},
			lines: map[int]Record{
				6: {Time: utc(2026, 11, 29, 14, 20, 30, 0), Level: LevelError, Source: "eks-bootstrap",
					Text: "ERROR: Exhausted retries while describing cluster!"},
				8: {Level: LevelError, Source: "cloud-init", Text: "ERROR: bootstrap.sh has been removed from AL2023-based EKS AMIs."},
			},
		},
		{
			path: "journal/kubelet.log", format: FormatJournalISO,
			lines: map[int]Record{
				3: {Time: utc(2026, 11, 29, 14, 26, 45, 100000), Level: LevelError, Source: "kubelet",
					Text: `"Failed to ensure lease exists, will retry" err="Unauthorized" interval="7s"`},
			},
		},
		{
			path: "journal/nodeadm-config.service.log", format: FormatJournalISO,
			lines: map[int]Record{
				2: {Time: utc(2026, 11, 29, 14, 20, 2, 412345000), Level: LevelFatal, Source: "nodeadm",
					Text: `Command failed {"error": "no config in chain"}`},
			},
		},
		{
			path: "console-output.txt", format: FormatConsole, hint: Hint{BootTime: boot, Ref: ref2026},
			untimed: []int{3, 4, 7, 8, 9, 12, 14, 15, 16, 17},
			lines: map[int]Record{
				6:  {Time: boot.Add(25100 * 1000000), Level: LevelFatal, Source: "nodeadm", Text: `Command failed {"error": "no config in chain"}`},
				7:  {Level: LevelError, Source: "systemd", Text: "Failed to start nodeadm-config.service - EKS Nodeadm Config."},
				15: {Level: LevelError, Source: "systemd", Text: "Failed to start kubelet.service - Kubernetes Kubelet."},
				17: {Text: "ip-10-0-1-2 login: "},
			},
		},
		{
			path: "var_log/messages", format: FormatJournalShort,
			lines: map[int]Record{
				2: {Time: utc(2026, 11, 29, 14, 26, 32, 0), Source: "kernel", Text: "nf_conntrack: nf_conntrack: table full, dropping packet"},
			},
		},
		{
			path: "var_log/kube-proxy.log", format: FormatKlog,
			lines: map[int]Record{
				1: {Time: utc(2026, 11, 29, 14, 27, 0, 100000000), Level: LevelInfo, Source: "kube-proxy", Text: `"Using iptables proxy"`},
			},
		},
		{
			path: "var_log/kube-system_aws-node-x7k2p_1f2e3d4c-5b6a-7980-1a2b-3c4d5e6f7a8b/aws-node/0.log", format: FormatCRI,
			lines: map[int]Record{
				2: {Time: utc(2026, 11, 29, 14, 29, 55, 234000000), Level: LevelInfo, Source: "aws-node", Text: "Retrying waiting for IPAM-D"},
			},
		},
	}
	for _, fx := range fixtures {
		t.Run(fx.path, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "bundle", filepath.FromSlash(fx.path)))
			if err != nil {
				t.Fatal(err)
			}
			if got := DetectFormat(fx.path, data); got != fx.format {
				t.Fatalf("DetectFormat = %v, want %v", got, fx.format)
			}
			h := fx.hint
			if h.Ref.IsZero() {
				h.Ref = ref2026
			}
			h.Source = SourceFromPath(fx.path)
			untimed := map[int]bool{}
			for _, n := range fx.untimed {
				untimed[n] = true
			}
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			for i, line := range lines {
				n := i + 1
				rec := Parse(fx.format, []byte(line), h)
				if rec.Time.IsZero() != untimed[n] {
					t.Errorf("line %d: Time = %v, untimed listed %v: %q", n, rec.Time, untimed[n], line)
				}
				if want, ok := fx.lines[n]; ok {
					t.Run(line[:min(len(line), 40)], func(t *testing.T) { assertRecord(t, rec, want) })
				}
			}
			for n := range fx.lines {
				if n > len(lines) {
					t.Errorf("expectation for line %d but the file has %d lines", n, len(lines))
				}
			}
		})
	}
}
