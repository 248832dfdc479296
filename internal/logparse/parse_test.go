package logparse

import (
	"strings"
	"testing"
	"time"
)

var (
	ref2026  = time.Date(2026, 11, 29, 14, 45, 0, 0, time.UTC)
	hint2026 = Hint{Ref: ref2026}
)

func utc(year int, month time.Month, day, hour, min, sec, nsec int) time.Time {
	return time.Date(year, month, day, hour, min, sec, nsec, time.UTC)
}

type parseCase struct {
	name   string
	format Format
	line   string
	hint   Hint
	want   Record
}

func runParseCases(t *testing.T, cases []parseCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Parse(tc.format, []byte(tc.line), tc.hint)
			assertRecord(t, got, tc.want)
		})
	}
}

func assertRecord(t *testing.T, got, want Record) {
	t.Helper()
	if !got.Time.Equal(want.Time) {
		t.Errorf("Time = %v, want %v", got.Time, want.Time)
	}
	if !got.Time.IsZero() && got.Time.Location() != time.UTC {
		t.Errorf("Time location = %v, want UTC", got.Time.Location())
	}
	if got.Level != want.Level {
		t.Errorf("Level = %v, want %v", got.Level, want.Level)
	}
	if got.Source != want.Source {
		t.Errorf("Source = %q, want %q", got.Source, want.Source)
	}
	if got.Text != want.Text {
		t.Errorf("Text = %q\n            want %q", got.Text, want.Text)
	}
}

func TestParseJournal(t *testing.T) {
	runParseCases(t, []parseCase{
		{
			name:   "short with klog payload",
			format: FormatJournalShort,
			line:   `Nov 29 14:26:31 ip-10-0-1-2.ec2.internal kubelet[2817]: E1129 14:26:31.123456    2817 kubelet_node_status.go:96] "Unable to register node with API server" err="Unauthorized" node="ip-10-0-1-2.ec2.internal"`,
			hint:   hint2026,
			want: Record{
				Time: utc(2026, 11, 29, 14, 26, 31, 123456000), Level: LevelError, Source: "kubelet",
				Text: `"Unable to register node with API server" err="Unauthorized" node="ip-10-0-1-2.ec2.internal"`,
			},
		},
		{
			name:   "short with plain payload",
			format: FormatJournalShort,
			line:   "Jun 06 19:33:03 ip-10-150-127-198 systemd[1]: Failed to start kubelet.service - Kubernetes Kubelet.\n",
			hint:   Hint{Year: 2025},
			want: Record{
				Time: utc(2025, 6, 6, 19, 33, 3, 0), Source: "systemd",
				Text: "Failed to start kubelet.service - Kubernetes Kubelet.",
			},
		},
		{
			name:   "short without year hint has no time",
			format: FormatJournalShort,
			line:   "Jun 06 19:33:03 host kubelet[3214]: Flag --cloud-provider has been deprecated",
			want:   Record{Source: "kubelet", Text: "Flag --cloud-provider has been deprecated"},
		},
		{
			name:   "short precise",
			format: FormatJournalShort,
			line:   "Jun 06 19:33:03.250000 host containerd[99]: plain words",
			hint:   Hint{Year: 2025},
			want:   Record{Time: utc(2025, 6, 6, 19, 33, 3, 250000000), Source: "containerd", Text: "plain words"},
		},
		{
			name:   "syslog padded day, identifier without pid",
			format: FormatJournalShort,
			line:   "Nov  9 03:00:01 ip-10-0-1-2 systemd: Started Session 1 of user root.",
			hint:   hint2026,
			want:   Record{Time: utc(2026, 11, 9, 3, 0, 1, 0), Source: "systemd", Text: "Started Session 1 of user root."},
		},
		{
			name:   "identifier with instance and unit suffix",
			format: FormatJournalShort,
			line:   "Nov 29 14:19:58 host udev-net-manager@eth0.service[812]: link configured",
			hint:   hint2026,
			want:   Record{Time: utc(2026, 11, 29, 14, 19, 58, 0), Source: "udev-net-manager", Text: "link configured"},
		},
		{
			name:   "unknown identifier",
			format: FormatJournalShort,
			line:   "Nov 29 14:19:58 host my-agent[77]: hello",
			hint:   hint2026,
			want:   Record{Time: utc(2026, 11, 29, 14, 19, 58, 0), Source: "my-agent", Text: "hello"},
		},
		{
			name:   "empty message",
			format: FormatJournalShort,
			line:   "Nov 29 14:19:58 host kubelet[1]:",
			hint:   hint2026,
			want:   Record{Time: utc(2026, 11, 29, 14, 19, 58, 0), Source: "kubelet", Text: ""},
		},
		{
			name:   "meta line falls back to plain",
			format: FormatJournalShort,
			line:   "-- No entries --",
			hint:   Hint{Year: 2026, Source: "udev-net-manager"},
			want:   Record{Source: "udev-net-manager", Text: "-- No entries --"},
		},
		{
			name:   "short with zap JSON payload",
			format: FormatJournalShort,
			line:   `Mar 03 21:11:29 localhost nodeadm[1845]: {"level":"fatal","ts":1709500289.81,"caller":"nodeadm/main.go:36","msg":"Command failed","error":"yaml: line 4: could not find expected ':'","stacktrace":"main.main\n\t/workdir/main.go:36"}`,
			hint:   Hint{Year: 2024},
			want: Record{
				Time: utc(2024, 3, 3, 21, 11, 29, 810000000), Level: LevelFatal, Source: "nodeadm",
				Text: `Command failed {"error": "yaml: line 4: could not find expected ':'"}`,
			},
		},
		{
			name:   "short with zap console payload",
			format: FormatJournalShort,
			line:   `Nov 29 14:20:02 ip-10-0-1-2.ec2.internal nodeadm[1845]: fatal cli/main.go:35 Command failed {"error": "no config in chain"}`,
			hint:   hint2026,
			want: Record{
				Time: utc(2026, 11, 29, 14, 20, 2, 0), Level: LevelFatal, Source: "nodeadm",
				Text: `Command failed {"error": "no config in chain"}`,
			},
		},
		{
			name:   "short with logfmt payload",
			format: FormatJournalShort,
			line:   `Nov 29 14:25:41 host containerd[2400]: time="2026-11-29T14:25:41.200000000Z" level=error msg="failed to load cni during init" error="cni config load failed"`,
			hint:   hint2026,
			want: Record{
				Time: utc(2026, 11, 29, 14, 25, 41, 200000000), Level: LevelError, Source: "containerd",
				Text: `failed to load cni during init error="cni config load failed"`,
			},
		},
		{
			name:   "short with AWS SDK payload",
			format: FormatJournalShort,
			line:   "Nov 29 14:27:40 host nodeadm[2101]: SDK 2026/11/29 14:27:40 DEBUG retrying request EC2/DescribeInstances, attempt 2",
			hint:   hint2026,
			want: Record{
				Time: utc(2026, 11, 29, 14, 27, 40, 0), Level: LevelDebug, Source: "nodeadm",
				Text: "retrying request EC2/DescribeInstances, attempt 2",
			},
		},
		{
			name:   "short with level word payload",
			format: FormatJournalShort,
			line:   "Nov 29 14:20:30 host sandbox-image[900]: ERROR: failed to pull the pause image",
			hint:   hint2026,
			want: Record{
				Time: utc(2026, 11, 29, 14, 20, 30, 0), Level: LevelError, Source: "sandbox-image",
				Text: "ERROR: failed to pull the pause image",
			},
		},
		{
			name:   "iso precise",
			format: FormatJournalISO,
			line:   `2026-11-29T14:26:31.123456+00:00 ip-10-0-1-2.ec2.internal kubelet[2817]: E1129 14:26:31.123456    2817 kubelet_node_status.go:96] "Unable to register node with API server" err="Unauthorized"`,
			want: Record{
				Time: utc(2026, 11, 29, 14, 26, 31, 123456000), Level: LevelError, Source: "kubelet",
				Text: `"Unable to register node with API server" err="Unauthorized"`,
			},
		},
		{
			name:   "iso with +0000 zone",
			format: FormatJournalISO,
			line:   "2026-11-29T14:26:45+0000 ip-10-0-1-2 systemd[1]: Started kubelet.service.",
			want:   Record{Time: utc(2026, 11, 29, 14, 26, 45, 0), Source: "systemd", Text: "Started kubelet.service."},
		},
		{
			name:   "iso with other zone",
			format: FormatJournalISO,
			line:   "2026-11-29T16:26:45.5+02:00 ip-10-0-1-2 systemd[1]: Started kubelet.service.",
			want:   Record{Time: utc(2026, 11, 29, 14, 26, 45, 500000000), Source: "systemd", Text: "Started kubelet.service."},
		},
		{
			name:   "iso outer keeps its time when inner klog is in another zone",
			format: FormatJournalISO,
			line:   "2026-11-29T16:26:45+02:00 host kubelet[1]: I1129 16:26:45.000001    1 a.go:1] msg",
			want:   Record{Time: utc(2026, 11, 29, 14, 26, 45, 0), Level: LevelInfo, Source: "kubelet", Text: "msg"},
		},
	})
}

func TestParseKlog(t *testing.T) {
	runParseCases(t, []parseCase{
		{
			name:   "error with structured fields",
			format: FormatKlog,
			line:   `E1129 14:26:31.123456    2817 kubelet_node_status.go:96] "Unable to register node with API server" err="Unauthorized" node="ip-10-0-1-2.ec2.internal"`,
			hint:   hint2026,
			want: Record{
				Time: utc(2026, 11, 29, 14, 26, 31, 123456000), Level: LevelError,
				Text: `"Unable to register node with API server" err="Unauthorized" node="ip-10-0-1-2.ec2.internal"`,
			},
		},
		{
			name:   "info, source from hint",
			format: FormatKlog,
			line:   `I1129 14:27:00.100000       1 server_linux.go:66] "Using iptables proxy"`,
			hint:   Hint{Ref: ref2026, Source: "kube-proxy"},
			want:   Record{Time: utc(2026, 11, 29, 14, 27, 0, 100000000), Level: LevelInfo, Source: "kube-proxy", Text: `"Using iptables proxy"`},
		},
		{
			name:   "warning and fatal letters",
			format: FormatKlog,
			line:   "F0102 03:04:05.000006 1 main.go:9] boom",
			hint:   Hint{Year: 2026},
			want:   Record{Time: utc(2026, 1, 2, 3, 4, 5, 6000), Level: LevelFatal, Text: "boom"},
		},
		{
			name:   "not klog falls back to plain",
			format: FormatKlog,
			line:   "Flag --cloud-provider has been deprecated",
			hint:   hint2026,
			want:   Record{Text: "Flag --cloud-provider has been deprecated"},
		},
		{
			name:   "bad month is not klog",
			format: FormatKlog,
			line:   "E1329 14:26:31.123456 1 a.go:1] x",
			hint:   hint2026,
			want:   Record{Text: "E1329 14:26:31.123456 1 a.go:1] x"},
		},
	})
}

func TestParseZap(t *testing.T) {
	runParseCases(t, []parseCase{
		{
			name:   "nodeadm JSON with epoch ts and stacktrace",
			format: FormatZapJSON,
			line:   `{"level":"fatal","ts":1709500289.81,"caller":"nodeadm/main.go:36","msg":"Command failed","error":"yaml: line 4: could not find expected ':'","stacktrace":"..."}`,
			want: Record{
				Time: utc(2024, 3, 3, 21, 11, 29, 810000000), Level: LevelFatal,
				Text: `Command failed {"error": "yaml: line 4: could not find expected ':'"}`,
			},
		},
		{
			name:   "ipamd JSON with ISO ts",
			format: FormatZapJSON,
			line:   `{"level":"error","ts":"2026-11-29T14:30:01.000Z","caller":"ipamd/ipamd.go:500","msg":"Failed to check API server connectivity: invalid configuration: no configuration has been provided"}`,
			hint:   Hint{Source: "ipamd"},
			want: Record{
				Time: utc(2026, 11, 29, 14, 30, 1, 0), Level: LevelError, Source: "ipamd",
				Text: "Failed to check API server connectivity: invalid configuration: no configuration has been provided",
			},
		},
		{
			name:   "escapes in msg are decoded, fields kept raw",
			format: FormatZapJSON,
			line:   `{"level":"warn","ts":"2026-11-29T14:31:02.417+0000","msg":"a \"quoted\"\n\ttab \u00e9 \ud83d\ude00","eni":"eni-1","count":3,"nested":{"a":[1,"}"]}}`,
			want: Record{
				Time: utc(2026, 11, 29, 14, 31, 2, 417000000), Level: LevelWarn,
				Text: "a \"quoted\"\n\ttab é 😀 {\"eni\": \"eni-1\", \"count\": 3, \"nested\": {\"a\":[1,\"}\"]}}",
			},
		},
		{
			name:   "configSource field as in issue 1701",
			format: FormatZapJSON,
			line:   `{"level":"info","ts":1709500289.795,"caller":"init/init.go:57","msg":"Loading configuration..","configSource":"imds://user-data"}`,
			want: Record{
				Time: utc(2024, 3, 3, 21, 11, 29, 795000000), Level: LevelInfo,
				Text: `Loading configuration.. {"configSource": "imds://user-data"}`,
			},
		},
		{
			name:   "no msg key",
			format: FormatZapJSON,
			line:   `{"level":"info","error":"x"}`,
			want:   Record{Level: LevelInfo, Text: `{"error": "x"}`},
		},
		{
			name:   "truncated JSON falls back to plain",
			format: FormatZapJSON,
			line:   `{"level":"error","ts":"2026-11-29T14:30:01.000Z","msg":"Failed to`,
			want:   Record{Text: `{"level":"error","ts":"2026-11-29T14:30:01.000Z","msg":"Failed to`},
		},
		{
			name:   "JSON without level or msg is plain",
			format: FormatZapJSON,
			line:   `{"cniVersion":"0.4.0","name":"aws-cni"}`,
			want:   Record{Text: `{"cniVersion":"0.4.0","name":"aws-cni"}`},
		},
		{
			name:   "console, nodeadm",
			format: FormatZapConsole,
			line:   `fatal cli/main.go:35 Command failed {"error": "no config in chain"}`,
			hint:   Hint{Source: "nodeadm"},
			want:   Record{Level: LevelFatal, Source: "nodeadm", Text: `Command failed {"error": "no config in chain"}`},
		},
		{
			name:   "console, warn",
			format: FormatZapConsole,
			line:   `warn configprovider/chain.go:30 Encountered error in config provider {"error": "could not find NodeConfig within UserData"}`,
			want:   Record{Level: LevelWarn, Text: `Encountered error in config provider {"error": "could not find NodeConfig within UserData"}`},
		},
		{
			name:   "console with tabs and stamp",
			format: FormatZapConsole,
			line:   "2026-11-29T14:20:02.000Z\tINFO\tinit/init.go:65\tLoading configuration..",
			want:   Record{Time: utc(2026, 11, 29, 14, 20, 2, 0), Level: LevelInfo, Text: "Loading configuration.."},
		},
		{
			name:   "free text starting with a level word is not zap",
			format: FormatZapConsole,
			line:   "error while reading config",
			want:   Record{Text: "error while reading config"},
		},
	})
}

func TestParseLogfmt(t *testing.T) {
	runParseCases(t, []parseCase{
		{
			name:   "containerd error with quoted escapes",
			format: FormatLogfmt,
			line:   `time="2026-11-29T14:26:40.512345678Z" level=error msg="PullImage \"602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/pause:3.5\" failed" error="failed to do request: Head \"https://x/v2/\": dial tcp 52.94.1.1:443: i/o timeout"`,
			hint:   Hint{Source: "containerd"},
			want: Record{
				Time: utc(2026, 11, 29, 14, 26, 40, 512345678), Level: LevelError, Source: "containerd",
				Text: `PullImage "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/pause:3.5" failed error="failed to do request: Head \"https://x/v2/\": dial tcp 52.94.1.1:443: i/o timeout"`,
			},
		},
		{
			name:   "bare values",
			format: FormatLogfmt,
			line:   `time="2026-11-29T14:25:40.101234567Z" level=info msg="starting containerd" revision=57f17b0 version=1.7.23`,
			want: Record{
				Time: utc(2026, 11, 29, 14, 25, 40, 101234567), Level: LevelInfo,
				Text: "starting containerd revision=57f17b0 version=1.7.23",
			},
		},
		{
			name:   "trailing text that is not a pair is kept",
			format: FormatLogfmt,
			line:   `level=warning msg=short then some words`,
			want:   Record{Level: LevelWarn, Text: "short then some words"},
		},
		{
			name:   "Go escapes in msg",
			format: FormatLogfmt,
			line:   `level=error msg="line1\nline2 \u00e9 \x41"`,
			want:   Record{Level: LevelError, Text: "line1\nline2 é A"},
		},
		{
			name:   "no level and no msg is plain",
			format: FormatLogfmt,
			line:   `a=b c=d`,
			want:   Record{Text: "a=b c=d"},
		},
		{
			name:   "unterminated quote is kept as text",
			format: FormatLogfmt,
			line:   `level=error msg="never closed`,
			want:   Record{Level: LevelError, Text: `msg="never closed`},
		},
	})
}

func TestParseCloudInit(t *testing.T) {
	runParseCases(t, []parseCase{
		{
			name:   "cloud-init.log warning",
			format: FormatCloudInit,
			line:   "2026-11-29 14:20:30,789 - util.py[WARNING]: Failed running /var/lib/cloud/instance/scripts/part-001 [1]",
			want: Record{
				Time: utc(2026, 11, 29, 14, 20, 30, 789000000), Level: LevelWarn, Source: "cloud-init",
				Text: "Failed running /var/lib/cloud/instance/scripts/part-001 [1]",
			},
		},
		{
			name:   "cloud-init.log debug",
			format: FormatCloudInit,
			line:   "2026-11-29 14:20:01,123 - handlers.py[DEBUG]: finish: modules-final/config-scripts-user: FAIL: running config-scripts-user",
			want: Record{
				Time: utc(2026, 11, 29, 14, 20, 1, 123000000), Level: LevelDebug, Source: "cloud-init",
				Text: "finish: modules-final/config-scripts-user: FAIL: running config-scripts-user",
			},
		},
		{
			name:   "traceback line is plain",
			format: FormatCloudInit,
			line:   "Traceback (most recent call last):",
			hint:   Hint{Source: "cloud-init"},
			want:   Record{Source: "cloud-init", Text: "Traceback (most recent call last):"},
		},
		{
			name:   "bootstrap.sh line",
			format: FormatCloudInitOutput,
			line:   "2024-01-01T00:00:00+0000 [eks-bootstrap] INFO: starting...",
			hint:   Hint{Source: "cloud-init"},
			want:   Record{Time: utc(2024, 1, 1, 0, 0, 0, 0), Level: LevelInfo, Source: "eks-bootstrap", Text: "INFO: starting..."},
		},
		{
			name:   "bootstrap.sh error",
			format: FormatCloudInitOutput,
			line:   "2026-11-29T14:20:30+0000 [eks-bootstrap] ERROR: Exhausted retries while describing cluster!",
			want: Record{
				Time: utc(2026, 11, 29, 14, 20, 30, 0), Level: LevelError, Source: "eks-bootstrap",
				Text: "ERROR: Exhausted retries while describing cluster!",
			},
		},
		{
			name:   "AL2023 bootstrap.sh stub",
			format: FormatCloudInitOutput,
			line:   "ERROR: bootstrap.sh has been removed from AL2023-based EKS AMIs.",
			hint:   Hint{Source: "cloud-init"},
			want:   Record{Level: LevelError, Source: "cloud-init", Text: "ERROR: bootstrap.sh has been removed from AL2023-based EKS AMIs."},
		},
		{
			name:   "cloud-init banner has a full date",
			format: FormatCloudInitOutput,
			line:   "Cloud-init v. 22.2.2 running 'init' at Sun, 29 Nov 2026 14:20:02 +0000. Up 5.23 seconds.",
			want: Record{
				Time: utc(2026, 11, 29, 14, 20, 2, 0), Source: "cloud-init",
				Text: "Cloud-init v. 22.2.2 running 'init' at Sun, 29 Nov 2026 14:20:02 +0000. Up 5.23 seconds.",
			},
		},
		{
			name:   "ci-info",
			format: FormatCloudInitOutput,
			line:   "ci-info: | Device |  Up  |",
			want:   Record{Source: "cloud-init", Text: "ci-info: | Device |  Up  |"},
		},
		{
			name:   "free text",
			format: FormatCloudInitOutput,
			line:   "Exited with error on line 390",
			hint:   Hint{Source: "cloud-init"},
			want:   Record{Source: "cloud-init", Text: "Exited with error on line 390"},
		},
	})
}

func TestParseDmesg(t *testing.T) {
	boot := utc(2026, 11, 29, 14, 19, 40, 0)
	runParseCases(t, []parseCase{
		{
			name:   "relative with boot time",
			format: FormatDmesg,
			line:   "[ 1234.567890] nf_conntrack: nf_conntrack: table full, dropping packet",
			hint:   Hint{BootTime: boot},
			want: Record{
				Time: boot.Add(1234*time.Second + 567890*time.Microsecond), Source: "kernel",
				Text: "nf_conntrack: nf_conntrack: table full, dropping packet",
			},
		},
		{
			name:   "relative without boot time",
			format: FormatDmesg,
			line:   "[    0.000000] Linux version 6.1.115-126.197.amzn2023.x86_64",
			want:   Record{Source: "kernel", Text: "Linux version 6.1.115-126.197.amzn2023.x86_64"},
		},
		{
			name:   "user space line in the ring buffer",
			format: FormatDmesg,
			line:   "[    2.345678] systemd[1]: Detected virtualization amazon.",
			want:   Record{Source: "systemd", Text: "Detected virtualization amazon."},
		},
		{
			name:   "raw priority",
			format: FormatDmesg,
			line:   "<3>[   12.000000] nvme nvme0: I/O error",
			want:   Record{Level: LevelError, Source: "kernel", Text: "nvme nvme0: I/O error"},
		},
		{
			name:   "decoded facility and level",
			format: FormatDmesg,
			line:   "kern  :warn  : [   12.000000] hrtimer: interrupt took 1234 ns",
			want:   Record{Level: LevelWarn, Source: "kernel", Text: "hrtimer: interrupt took 1234 ns"},
		},
		{
			name:   "ctime",
			format: FormatDmesgCtime,
			line:   "[Sun Nov 29 14:26:31 2026] watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [kworker/3:1:1234]",
			want: Record{
				Time: utc(2026, 11, 29, 14, 26, 31, 0), Source: "kernel",
				Text: "watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [kworker/3:1:1234]",
			},
		},
		{
			name:   "ctime with padded day",
			format: FormatDmesgCtime,
			line:   "[Mon Nov  2 01:02:03 2026] x",
			want:   Record{Time: utc(2026, 11, 2, 1, 2, 3, 0), Source: "kernel", Text: "x"},
		},
		{
			name:   "ctime in a zone",
			format: FormatDmesgCtime,
			line:   "[Sun Nov 29 15:26:31 2026] x",
			hint:   Hint{Location: time.FixedZone("CET", 3600)},
			want:   Record{Time: utc(2026, 11, 29, 14, 26, 31, 0), Source: "kernel", Text: "x"},
		},
	})
}

func TestParseConsole(t *testing.T) {
	boot := utc(2026, 11, 29, 14, 20, 0, 0)
	runParseCases(t, []parseCase{
		{
			name:   "systemd OK",
			format: FormatConsole,
			line:   "[  OK  ] Started systemd-networkd.service - Network Configuration.",
			want:   Record{Level: LevelInfo, Source: "systemd", Text: "Started systemd-networkd.service - Network Configuration."},
		},
		{
			name:   "systemd FAILED with colour",
			format: FormatConsole,
			line:   "[\x1b[0;1;31mFAILED\x1b[0m] Failed to start kubelet.service - Kubernetes Kubelet.",
			want:   Record{Level: LevelError, Source: "systemd", Text: "Failed to start kubelet.service - Kubernetes Kubelet."},
		},
		{
			name:   "systemd DEPEND",
			format: FormatConsole,
			line:   "[DEPEND] Dependency failed for cloud-init.service - Cloud-init: Network Stage.",
			want:   Record{Level: LevelWarn, Source: "systemd", Text: "Dependency failed for cloud-init.service - Cloud-init: Network Stage."},
		},
		{
			name:   "kernel line",
			format: FormatConsole,
			line:   "[    3.000000] nvme nvme0: pci function 0000:00:04.0",
			hint:   Hint{BootTime: boot},
			want:   Record{Time: boot.Add(3 * time.Second), Source: "kernel", Text: "nvme nvme0: pci function 0000:00:04.0"},
		},
		{
			name:   "nodeadm forwarded by journald, zap console",
			format: FormatConsole,
			line:   `[   25.100000] nodeadm[1912]: fatal cli/main.go:35 Command failed {"error": "no config in chain"}`,
			hint:   Hint{BootTime: boot},
			want: Record{
				Time: boot.Add(25*time.Second + 100*time.Millisecond), Level: LevelFatal, Source: "nodeadm",
				Text: `Command failed {"error": "no config in chain"}`,
			},
		},
		{
			name:   "nodeadm forwarded, zap JSON gives the time",
			format: FormatConsole,
			line:   `[    5.501234] nodeadm[1845]: {"level":"info","ts":1795962005.501,"caller":"init/init.go:57","msg":"Checking user is root.."}`,
			want:   Record{Time: utc(2026, 11, 29, 14, 20, 5, 501000000), Level: LevelInfo, Source: "nodeadm", Text: "Checking user is root.."},
		},
		{
			name:   "cloud-init carrying a journal line (issue 1821)",
			format: FormatConsole,
			line:   `[   35.200000] cloud-init[2133]: Nov 29 14:20:35 ip-10-0-1-2 nodeadm[1234]: {"level":"fatal","ts":1795962035.2,"caller":"nodeadm/main.go:36","msg":"Command failed","error":"no config in chain"}`,
			hint:   Hint{Ref: ref2026},
			want: Record{
				Time: utc(2026, 11, 29, 14, 20, 35, 200000000), Level: LevelFatal, Source: "nodeadm",
				Text: `Command failed {"error": "no config in chain"}`,
			},
		},
		{
			name:   "cloud-init carrying bootstrap.sh",
			format: FormatConsole,
			line:   "[   35.200000] cloud-init[2133]: 2026-11-29T14:20:35+0000 [eks-bootstrap] ERROR: cluster name is not defined!",
			want: Record{
				Time: utc(2026, 11, 29, 14, 20, 35, 0), Level: LevelError, Source: "eks-bootstrap",
				Text: "ERROR: cluster name is not defined!",
			},
		},
		{
			name:   "syslog priority without host",
			format: FormatConsole,
			line:   "<14>Nov 29 14:20:36 cloud-init: ####",
			hint:   hint2026,
			want:   Record{Time: utc(2026, 11, 29, 14, 20, 36, 0), Level: LevelInfo, Source: "cloud-init", Text: "####"},
		},
		{
			name:   "ci-info",
			format: FormatConsole,
			line:   "ci-info: no authorized SSH keys fingerprints found for user ec2-user.",
			want:   Record{Source: "cloud-init", Text: "ci-info: no authorized SSH keys fingerprints found for user ec2-user."},
		},
		{
			name:   "free text",
			format: FormatConsole,
			line:   "         Starting nodeadm-config.service - EKS Nodeadm Config...",
			want:   Record{Text: "         Starting nodeadm-config.service - EKS Nodeadm Config..."},
		},
	})
}

func TestParseCRI(t *testing.T) {
	runParseCases(t, []parseCase{
		{
			name:   "aws-node JSON",
			format: FormatCRI,
			line:   `2026-11-29T14:30:01.000000001Z stderr F {"level":"error","ts":"2026-11-29T14:30:01.000Z","caller":"ipamd/ipamd.go:500","msg":"Failed to check API server connectivity: x"}`,
			hint:   Hint{Source: "aws-node"},
			want: Record{
				Time: utc(2026, 11, 29, 14, 30, 1, 0), Level: LevelError, Source: "aws-node",
				Text: "Failed to check API server connectivity: x",
			},
		},
		{
			name:   "kube-proxy klog",
			format: FormatCRI,
			line:   `2026-11-29T14:27:01.200000500Z stderr F E1129 14:27:01.200000       1 reflector.go:158] "Unhandled Error"`,
			want:   Record{Time: utc(2026, 11, 29, 14, 27, 1, 200000000), Level: LevelError, Text: `"Unhandled Error"`},
		},
		{
			name:   "plain stdout",
			format: FormatCRI,
			line:   "2026-11-29T14:29:50.123456789Z stdout F Installed /host/opt/cni/bin/loopback",
			want:   Record{Time: utc(2026, 11, 29, 14, 29, 50, 123456789), Text: "Installed /host/opt/cni/bin/loopback"},
		},
		{
			name:   "partial line",
			format: FormatCRI,
			line:   "2026-11-29T14:29:50Z stdout P first half",
			want:   Record{Time: utc(2026, 11, 29, 14, 29, 50, 0), Text: "first half"},
		},
	})
}

func TestParseUnknownRecognisesEachLine(t *testing.T) {
	runParseCases(t, []parseCase{
		{
			name: "journal",
			line: "Nov 29 14:26:31 host kubelet[1]: I1129 14:26:31.000001    1 a.go:1] ok",
			hint: hint2026,
			want: Record{Time: utc(2026, 11, 29, 14, 26, 31, 1000), Level: LevelInfo, Source: "kubelet", Text: "ok"},
		},
		{
			name: "zap JSON",
			line: `{"level":"warn","msg":"x"}`,
			want: Record{Level: LevelWarn, Text: "x"},
		},
		{
			name: "plain",
			line: "hello world",
			want: Record{Text: "hello world"},
		},
		{
			name: "empty",
			line: "",
			want: Record{Text: ""},
		},
	})
}

func TestParseWrongFormatFallsBack(t *testing.T) {
	line := `Nov 29 14:20:02 host nodeadm[1845]: fatal cli/main.go:35 Command failed {"error": "no config in chain"}`
	got := Parse(FormatDmesg, []byte(line), hint2026)
	assertRecord(t, got, Record{
		Time: utc(2026, 11, 29, 14, 20, 2, 0), Level: LevelFatal, Source: "nodeadm",
		Text: `Command failed {"error": "no config in chain"}`,
	})
}

func TestParseTextIsCopied(t *testing.T) {
	line := []byte("Nov 29 14:20:02 host kubelet[1]: original")
	rec := Parse(FormatJournalShort, line, hint2026)
	copy(line[len(line)-8:], "XXXXXXXX")
	if rec.Text != "original" {
		t.Fatalf("Text changed with the input buffer: %q", rec.Text)
	}
}

func TestParseVeryLongLine(t *testing.T) {
	const size = 1 << 20
	msg := strings.Repeat("x", size)
	cases := []struct {
		format Format
		line   string
		text   string
	}{
		{FormatJournalShort, "Nov 29 14:26:31 host kubelet[1]: E1129 14:26:31.000001    1 a.go:1] " + msg, msg},
		{FormatZapJSON, `{"level":"error","msg":"` + msg + `"}`, msg},
		{FormatLogfmt, `level=error msg="` + msg + `"`, msg},
		{FormatPlain, msg, msg},
		{FormatDmesg, "[ 1.0] " + msg, msg},
		{FormatJournalShort, strings.Repeat("{", size), strings.Repeat("{", size)},
		{FormatZapJSON, strings.Repeat("[", size), strings.Repeat("[", size)},
	}
	for _, tc := range cases {
		t.Run(tc.format.String(), func(t *testing.T) {
			rec := Parse(tc.format, []byte(tc.line), hint2026)
			if rec.Text != tc.text {
				t.Fatalf("Text has %d bytes, want %d", len(rec.Text), len(tc.text))
			}
		})
	}
}

func TestParseInvalidUTF8(t *testing.T) {
	bad := "\xff\xfe\xc3("
	cases := []struct {
		format Format
		line   string
		want   Record
	}{
		{FormatJournalShort, "Nov 29 14:26:31 host kubelet[1]: " + bad, Record{Time: utc(2026, 11, 29, 14, 26, 31, 0), Source: "kubelet", Text: bad}},
		{FormatJournalShort, "Nov 29 14:26:31 host \xff\xfe[1]: x", Record{Time: utc(2026, 11, 29, 14, 26, 31, 0), Source: "\xff\xfe", Text: "x"}},
		{FormatZapJSON, `{"level":"error","msg":"` + bad + `"}`, Record{Level: LevelError, Text: bad}},
		{FormatKlog, "E1129 14:26:31.000001 1 a.go:1] " + bad, Record{Time: utc(2026, 11, 29, 14, 26, 31, 1000), Level: LevelError, Text: bad}},
		{FormatPlain, bad, Record{Text: bad}},
	}
	for _, tc := range cases {
		t.Run(tc.format.String(), func(t *testing.T) {
			assertRecord(t, Parse(tc.format, []byte(tc.line), hint2026), tc.want)
		})
	}
}

func TestParseMalformedNeverPanics(t *testing.T) {
	lines := []string{
		"", "\n", "\r\n", "[", "]", "{", "}", `{"`, `{"level"`, `{"level":`, `{"level":"error"`, `{"level":"error",`,
		"Nov", "Nov 29", "Nov 29 14:26", "Nov 29 14:26:31", "Nov 29 14:26:31 ", "Nov 29 14:26:31 host",
		"Nov 29 14:26:31 host kubelet", "Nov 29 14:26:31 host kubelet[", "Nov 29 25:26:31 host a: b",
		"2026-11-29T", "2026-11-29T14:26:31", "2026-11-29T14:26:31+", "2026-11-29T14:26:31+99:00 h a: b",
		"2026-02-30T14:26:31Z h a: b", "E1129", "E1129 14:26:31.123456", "E1129 14:26:31.123456 1 a.go:1",
		"[ 1.", "[ 1.0", "[Sun Nov 29", "[Sun Nov 29 14:26:31 2026", "<", "<1", "<1>", "<99>[",
		"time=", `time="`, `level=error msg="\`, `level=error msg="\x"`, `level=error msg="\u12"`,
		"SDK 2026/11/29", "SDK 2026/11/29 14:27:40", "SDK 2026/11/29 14:27:40 ", "kern  :", "kern  :err",
		"2026-11-29 14:20:01,123 - ", "2026-11-29 14:20:01,123 - x.py[", "2026-11-29T14:20:29+0000 [",
		"2026-11-29T14:20:29+0000 [eks-bootstrap]", "Cloud-init v. 1 at Sun, 29", "\x1b[", "[\x1b[0m",
		"2026-11-29T14:29:50Z stdout", "2026-11-29T14:29:50Z stdout F", `{"msg":"\ud800"}`, `{"msg":"\`,
		"fatal cli/main.go:", "fatal cli/main.go:35",
	}
	for f := FormatUnknown; f <= FormatPlain; f++ {
		for _, line := range lines {
			rec := Parse(f, []byte(line), Hint{Ref: ref2026, BootTime: ref2026})
			if rec.Level < LevelUnknown || rec.Level > LevelFatal {
				t.Errorf("%v %q: Level %d out of range", f, line, rec.Level)
			}
		}
	}
}

func TestZapTimestamps(t *testing.T) {
	want := utc(2024, 3, 3, 21, 11, 29, 810000000)
	cases := map[string]time.Time{
		`1709500289.81`:                   want,
		`1709500289810`:                   want,
		`1709500289810000`:                want,
		`1709500289810000000`:             want,
		`"2024-03-03T21:11:29.810Z"`:      want,
		`"2024-03-03T22:11:29.810+0100"`:  want,
		`"2024-03-03T21:11:29.810+00:00"`: want,
		`"2024-03-03 21:11:29.810Z"`:      want,
		`1.7e9`:                           {},
		`-5`:                              {},
		`0`:                               {},
		`"yesterday"`:                     {},
		`"2024-03-03T21:11:29.810Z junk"`: {},
		`null`:                            {},
	}
	for ts, want := range cases {
		rec := Parse(FormatZapJSON, []byte(`{"level":"info","ts":`+ts+`,"msg":"m"}`), Hint{})
		if !rec.Time.Equal(want) {
			t.Errorf("ts %s: Time = %v, want %v", ts, rec.Time, want)
		}
	}
}

func TestJSONKeySynonymsAndEscapedKeys(t *testing.T) {
	rec := Parse(FormatZapJSON, []byte(`{"severity":"WARNING","time":"2026-11-29T14:00:00Z","message":"m\u0031","caller":"x.go:1","k":true}`), Hint{})
	assertRecord(t, rec, Record{Time: utc(2026, 11, 29, 14, 0, 0, 0), Level: LevelWarn, Text: `m1 {"k": true}`})
	rec = Parse(FormatZapJSON, []byte(`{"m\u0073g":"escaped key","l\u0065vel":"\u0065rror"}`), Hint{})
	assertRecord(t, rec, Record{Level: LevelError, Text: "escaped key"})
}

func TestConsoleCarriageReturnAndSpinner(t *testing.T) {
	rec := Parse(FormatConsole, []byte("\r[  *** ] A start job is running for nodeadm-config.service (1min 2s / no limit)"), Hint{})
	assertRecord(t, rec, Record{Source: "systemd", Text: "A start job is running for nodeadm-config.service (1min 2s / no limit)"})
	rec = Parse(FormatConsole, []byte("[ TIME ] Timed out waiting for device dev-nvme1n1.device."), Hint{})
	assertRecord(t, rec, Record{Level: LevelError, Source: "systemd", Text: "Timed out waiting for device dev-nvme1n1.device."})
	rec = Parse(FormatConsole, []byte("[ABC] not a status"), Hint{})
	assertRecord(t, rec, Record{Text: "[ABC] not a status"})
}
