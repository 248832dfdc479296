package journal_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodetriage/nodetriage/internal/journal"
	"github.com/nodetriage/nodetriage/internal/journal/journaltest"
)

// Boot ids and host of testdata/node.export.
const (
	previousBoot = "5e1a9c0d3b7f4e2a9c8d7e6f5a4b3c2d"
	currentBoot  = "9f8e7d6c5b4a49382716a5b4c3d2e1f0"
	nodeHost     = "ip-10-0-1-23.ec2.internal"
	machineID    = "ec2a1b2c3d4e5f60718293a4b5c6d7e8"
	nodeEntries  = 35
)

// backend is one Reader under test.
type backend struct {
	name   string
	reader journal.Reader
}

// backends lists the readers this build has; backends_cgo_test.go adds
// sdjournal to cgo builds.
var backends = []backend{{"journalctl", journal.NewJournalctl("")}}

// readersUnderTest returns the backends, skipping the test when journalctl or
// systemd-journal-remote is missing.
func readersUnderTest(t *testing.T) []backend {
	t.Helper()
	if _, err := exec.LookPath("journalctl"); err != nil {
		t.Skip("journalctl is not installed")
	}
	if !journaltest.Available() {
		t.Skip("systemd-journal-remote is not installed")
	}
	return backends
}

// nodeJournal writes testdata/node.export as the persistent journal of a node
// root and returns the journal directory <root>/var/log/journal.
func nodeJournal(t *testing.T) string {
	t.Helper()
	export, err := os.ReadFile(filepath.Join("testdata", "node.export"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "var", "log", "journal")
	journaltest.Write(t, filepath.Join(dir, machineID), export)
	return dir
}

// readAll runs q on r and returns the entries and the error.
func readAll(t *testing.T, r journal.Reader, q journal.Query) ([]journal.Entry, error) {
	t.Helper()
	var got []journal.Entry
	err := r.Read(context.Background(), q, func(e journal.Entry) error {
		got = append(got, e)
		return nil
	})
	return got, err
}

// messages returns the messages of entries.
func messages(entries []journal.Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Message
	}
	return out
}

// mustTime parses an RFC 3339 time.
func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Messages of testdata/node.export used by the expectations below.
const (
	msgNodeadmStarting  = "Starting nodeadm-config.service - EKS Nodeadm Config..."
	msgNodeadmLoading   = `info init/init.go:65 Loading configuration.. {"configSource": ["imds://user-data"], "configCache": "/run/eks/nodeadm/config.json"}`
	msgNodeadmDone      = "info init/init.go:130 done!"
	msgNodeadmFinished  = "Finished nodeadm-config.service - EKS Nodeadm Config."
	msgNodeadmWarn      = `warn configprovider/chain.go:30 Encountered error in config provider {"error": "could not find NodeConfig within UserData"}`
	msgNodeadmFatal     = `fatal cli/main.go:35 Command failed {"error": "no config in chain"}`
	msgNodeadmExited    = "nodeadm-config.service: Main process exited, code=exited, status=1/FAILURE"
	msgNodeadmResult    = "nodeadm-config.service: Failed with result 'exit-code'."
	msgNodeadmFailed    = "Failed to start nodeadm-config.service - EKS Nodeadm Config."
	msgUdevNet          = `info udev/main.go:41 resolved net manager {"manager": "systemd-networkd"}`
	msgCloudInitA       = "Cloud-init v. 22.2.2 running 'init' at Sat, 28 Nov 2026 10:30:05 +0000. Up 5.81 seconds."
	msgCloudFinalA      = "Cloud-init v. 22.2.2 finished at Sat, 28 Nov 2026 10:30:09 +0000. Up 9.12 seconds"
	msgCloudInitB       = "Cloud-init v. 22.2.2 running 'init' at Sun, 29 Nov 2026 10:00:05 +0000. Up 5.74 seconds."
	msgContainerdA      = `time="2026-11-28T10:30:06.000000000Z" level=info msg="containerd successfully booted in 0.041s"`
	msgContainerdB      = `time="2026-11-29T10:00:06.000000000Z" level=info msg="containerd successfully booted in 0.043s"`
	msgCoredump         = "Process 1529 (containerd) of user 0 dumped core."
	msgKubeletVersion   = `I1128 10:30:07.000000    1611 server.go:484] "Kubelet version" kubeletVersion="v1.31.2-eks-7f9249a"`
	msgKubeletReg       = `I1128 10:30:08.000000    1611 kubelet_node_status.go:76] "Successfully registered node" node="ip-10-0-1-23.ec2.internal"`
	msgKubeletObject    = "object line about kubelet.service from a root daemon, no PRIORITY field"
	msgKubeletFail1     = `E1129 10:00:08.000000    1610 run.go:72] "command failed" err="failed to load kubelet config file, path: /etc/kubernetes/kubelet/config.json, error: open /etc/kubernetes/kubelet/config.json: no such file or directory"`
	msgKubeletFail2     = `E1129 10:00:13.000000    1690 run.go:72] "command failed" err="failed to load kubelet config file, path: /etc/kubernetes/kubelet/config.json, error: open /etc/kubernetes/kubelet/config.json: no such file or directory"`
	msgKubeletExited    = "kubelet.service: Main process exited, code=exited, status=1/FAILURE"
	msgKernelVersion    = "Linux version 6.1.115-126.197.amzn2023.x86_64 (mockbuild@ip-10-0-47-158) (gcc (GCC) 11.4.1 20230605 (Red Hat 11.4.1-2), GNU ld version 2.39-6.amzn2023.0.10) #1 SMP PREEMPT_DYNAMIC Tue Nov  5 02:35:40 UTC 2024"
	msgKernelCmdline    = "Command line: BOOT_IMAGE=(hd0,gpt1)/boot/vmlinuz-6.1.115-126.197.amzn2023.x86_64 root=UUID=2f8e3a8c console=tty0 console=ttyS0,115200n8 nvme_core.io_timeout=4294967295"
	msgKernelENA        = "ena 0000:00:05.0 eth0: Elastic Network Adapter (ENA) found at mem febf4000, mac addr 0a:1b:2c:3d:4e:5f"
	msgKernelOOM        = "Out of memory: Killed process 2701 (stress) total-vm:2145004kB, anon-rss:1931112kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:3840kB oom_score_adj:0"
	msgSSHD             = "Accepted publickey for ec2-user from 10.0.0.5 port 52144 ssh2"
	msgNodeadmRunDepend = "Dependency failed for nodeadm-run.service - EKS Nodeadm Run."
)

func TestReadQueries(t *testing.T) {
	readers := readersUnderTest(t)
	dir := nodeJournal(t)
	cases := []struct {
		name  string
		query journal.Query
		want  []string // messages, in order; nil means "check count only"
		count int
	}{
		{name: "everything", query: journal.Query{}, count: nodeEntries},
		{
			name:  "unit without suffix includes PID 1 lines about it",
			query: journal.Query{Units: []string{"nodeadm-config"}},
			want: []string{
				msgNodeadmStarting, msgNodeadmLoading, msgNodeadmDone, msgNodeadmFinished,
				msgNodeadmStarting, msgNodeadmLoading, msgNodeadmWarn, msgNodeadmFatal,
				msgNodeadmExited, msgNodeadmResult, msgNodeadmFailed,
			},
		},
		{
			name:  "unit in one boot",
			query: journal.Query{Units: []string{"nodeadm-config.service"}, Boot: currentBoot},
			want: []string{
				msgNodeadmStarting, msgNodeadmLoading, msgNodeadmWarn, msgNodeadmFatal,
				msgNodeadmExited, msgNodeadmResult, msgNodeadmFailed,
			},
		},
		{
			name:  "dependency failure is a PID 1 line about the other unit",
			query: journal.Query{Units: []string{"nodeadm-run"}},
			want:  []string{msgNodeadmRunDepend},
		},
		{
			name:  "template instance pattern",
			query: journal.Query{Units: []string{"udev-net-manager@*"}},
			want:  []string{msgUdevNet, msgUdevNet, msgUdevNet},
		},
		{
			name:  "one template instance without suffix",
			query: journal.Query{Units: []string{"udev-net-manager@eth1"}},
			want:  []string{msgUdevNet},
		},
		{
			name:  "prefix pattern",
			query: journal.Query{Units: []string{"cloud-*"}},
			want:  []string{msgCloudInitA, msgCloudFinalA, msgCloudInitB},
		},
		{
			name:  "core dump of the unit",
			query: journal.Query{Units: []string{"containerd"}},
			want:  []string{msgContainerdA, msgContainerdB, msgCoredump},
		},
		{
			name:  "root daemon line about the unit and PID 1 line",
			query: journal.Query{Units: []string{"kubelet"}},
			want: []string{
				msgKubeletVersion, msgKubeletReg, msgKubeletObject,
				msgKubeletFail1, msgKubeletFail2, msgKubeletExited,
			},
		},
		{
			name:  "several units merge in time order",
			query: journal.Query{Units: []string{"containerd", "kubelet"}, Boot: previousBoot},
			want:  []string{msgContainerdA, msgKubeletVersion, msgKubeletReg},
		},
		{
			name:  "slice selects the units in it",
			query: journal.Query{Units: []string{"runtime.slice"}, Boot: currentBoot},
			want:  []string{msgContainerdB, msgKubeletFail1, msgKubeletFail2},
		},
		{
			name:  "kernel only",
			query: journal.Query{Kernel: true},
			want:  []string{msgKernelVersion, msgKernelCmdline, msgKernelVersion, msgKernelENA, msgKernelOOM},
		},
		{
			name:  "kernel in one boot, boot id with dashes and upper case",
			query: journal.Query{Kernel: true, Boot: "9F8E7D6C-5B4A-4938-2716-A5B4C3D2E1F0"},
			want:  []string{msgKernelVersion, msgKernelENA, msgKernelOOM},
		},
		{
			name:  "kernel and a unit select nothing",
			query: journal.Query{Kernel: true, Units: []string{"kubelet"}},
			want:  []string{},
		},
		{
			name:  "since",
			query: journal.Query{Since: mustTime(t, "2026-11-29T10:00:08Z")},
			want:  []string{msgKubeletFail1, msgKubeletFail2, msgKubeletExited, msgSSHD, msgKernelOOM},
		},
		{
			name:  "since is inclusive to the microsecond",
			query: journal.Query{Since: mustTime(t, "2026-11-29T10:00:13.1Z"), Units: []string{"kubelet"}},
			want:  []string{msgKubeletExited},
		},
		{
			name:  "since between microseconds rounds up",
			query: journal.Query{Since: mustTime(t, "2026-11-29T10:00:13.000000001Z"), Units: []string{"kubelet"}},
			want:  []string{msgKubeletExited},
		},
		{
			name:  "previous boot",
			query: journal.Query{Boot: previousBoot},
			count: 12,
		},
		{
			name:  "unknown unit",
			query: journal.Query{Units: []string{"no-such-unit"}},
			want:  []string{},
		},
		{
			name:  "pattern matching nothing",
			query: journal.Query{Units: []string{"no-such-*"}},
			want:  []string{},
		},
		{
			name:  "unknown boot",
			query: journal.Query{Boot: "00000000000000000000000000000000"},
			want:  []string{},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var first []journal.Entry
			for i, b := range readers {
				q := tc.query
				q.Dir = dir
				got, err := readAll(t, b.reader, q)
				if err != nil {
					t.Fatalf("%s: %v", b.name, err)
				}
				checkEntries(t, b.name, got, tc.want, tc.count)
				checkSorted(t, b.name, got)
				checkReverse(t, b, q, got)
				if i == 0 {
					first = got
				} else if !reflect.DeepEqual(got, first) {
					t.Errorf("%s and %s disagree:\n%v\n%v", readers[0].name, b.name, first, got)
				}
			}
		})
	}
}

// checkReverse reads q again newest first and expects the forward entries
// in the opposite order.
func checkReverse(t *testing.T, b backend, q journal.Query, forward []journal.Entry) {
	t.Helper()
	q.Reverse = true
	got, err := readAll(t, b.reader, q)
	if err != nil {
		t.Fatalf("%s, reverse: %v", b.name, err)
	}
	want := slices.Clone(forward)
	slices.Reverse(want)
	if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
		t.Errorf("%s, reverse: got %q, want %q", b.name, messages(got), messages(want))
	}
}

// checkEntries compares messages to want, or the count when want is nil.
func checkEntries(t *testing.T, name string, got []journal.Entry, want []string, count int) {
	t.Helper()
	if want == nil {
		if len(got) != count {
			t.Errorf("%s: got %d entries, want %d", name, len(got), count)
		}
		return
	}
	if !slices.Equal(messages(got), want) {
		t.Errorf("%s: messages:\n got %q\nwant %q", name, messages(got), want)
	}
}

// checkSorted fails when entries go back in time.
func checkSorted(t *testing.T, name string, got []journal.Entry) {
	t.Helper()
	for i := 1; i < len(got); i++ {
		if got[i].Time.Before(got[i-1].Time) {
			t.Errorf("%s: entry %d (%s) is older than entry %d (%s)", name, i, got[i].Time, i-1, got[i-1].Time)
		}
	}
}

func TestEntryFields(t *testing.T) {
	readers := readersUnderTest(t)
	dir := nodeJournal(t)
	want := map[string]journal.Entry{
		msgNodeadmFailed: {
			Time: mustTime(t, "2026-11-29T10:00:03.52Z"), BootID: currentBoot, Hostname: nodeHost,
			Identifier: "systemd", PID: "1", Priority: 3, Transport: "journal", Message: msgNodeadmFailed,
		},
		msgKernelOOM: {
			Time: mustTime(t, "2026-11-29T10:00:15Z"), BootID: currentBoot, Hostname: nodeHost,
			Identifier: "kernel", Priority: 3, Transport: "kernel", Message: msgKernelOOM,
		},
		msgKubeletObject: {
			Time: mustTime(t, "2026-11-29T10:00:07.5Z"), BootID: currentBoot, Hostname: nodeHost,
			Identifier: "auditd", PID: "2350", Priority: -1, Transport: "journal", Message: msgKubeletObject,
		},
		msgNodeadmFatal: {
			Time: mustTime(t, "2026-11-29T10:00:03.41Z"), BootID: currentBoot, Hostname: nodeHost,
			Identifier: "nodeadm", PID: "1318", Unit: "nodeadm-config.service", Priority: 2,
			Transport: "stdout", Message: msgNodeadmFatal,
		},
	}
	for _, b := range readers {
		got, err := readAll(t, b.reader, journal.Query{Dir: dir, Boot: currentBoot})
		if err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
		found := 0
		for _, e := range got {
			w, ok := want[e.Message]
			if !ok {
				continue
			}
			found++
			if e != w {
				t.Errorf("%s: entry\n got %+v\nwant %+v", b.name, e, w)
			}
		}
		if found != len(want) {
			t.Errorf("%s: found %d of %d entries", b.name, found, len(want))
		}
	}
}

func TestIdentifierAndPIDFallbacks(t *testing.T) {
	readers := readersUnderTest(t)
	dir := t.TempDir()
	journaltest.Write(t, dir, journaltest.Export(
		[]string{"__REALTIME_TIMESTAMP=1795946400000000", "_BOOT_ID=" + currentBoot, "_COMM=bash", "SYSLOG_PID=77", "PRIORITY=9", "MESSAGE=comm and syslog pid"},
		[]string{"__REALTIME_TIMESTAMP=1795946400000001", "_BOOT_ID=" + currentBoot, "SYSLOG_IDENTIFIER=ident", "_COMM=comm", "_PID=5", "SYSLOG_PID=6", "PRIORITY=0", "MESSAGE=ident and pid win"},
	))
	want := []journal.Entry{
		{Time: time.UnixMicro(1795946400000000).UTC(), BootID: currentBoot, Identifier: "bash", PID: "77", Priority: -1, Message: "comm and syslog pid"},
		{Time: time.UnixMicro(1795946400000001).UTC(), BootID: currentBoot, Identifier: "ident", PID: "5", Priority: 0, Message: "ident and pid win"},
	}
	for _, b := range readers {
		got, err := readAll(t, b.reader, journal.Query{Dir: dir})
		if err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", b.name, got, want)
		}
	}
}

func TestMultiLineAndHugeMessages(t *testing.T) {
	readers := readersUnderTest(t)
	dir := t.TempDir()
	huge := strings.Repeat("0123456789abcdef", (journal.MaxMessageBytes+journal.MaxMessageBytes/2)/16)
	multi := "panic: runtime error\n\ngoroutine 1 [running]:\n\tmain.main()\n"
	binary := "bytes \x00\x01\xff end"
	journaltest.Write(t, dir, journaltest.Export(
		[]string{"__REALTIME_TIMESTAMP=1795946400000000", "_BOOT_ID=" + currentBoot, "SYSLOG_IDENTIFIER=app", "MESSAGE=" + multi},
		[]string{"__REALTIME_TIMESTAMP=1795946400000001", "_BOOT_ID=" + currentBoot, "SYSLOG_IDENTIFIER=app", "MESSAGE=" + huge},
		[]string{"__REALTIME_TIMESTAMP=1795946400000002", "_BOOT_ID=" + currentBoot, "SYSLOG_IDENTIFIER=app", "MESSAGE=" + binary},
	))
	for _, b := range readers {
		got, err := readAll(t, b.reader, journal.Query{Dir: dir})
		if err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
		want := []string{multi, huge[:journal.MaxMessageBytes], binary}
		if !slices.Equal(messages(got), want) {
			t.Errorf("%s: messages differ (lengths %d, want %d)", b.name, messageLengths(got), []int{len(want[0]), len(want[1]), len(want[2])})
		}
	}
}

// messageLengths returns the byte length of each message.
func messageLengths(entries []journal.Entry) []int {
	out := make([]int, len(entries))
	for i, e := range entries {
		out[i] = len(e.Message)
	}
	return out
}

func TestListBoots(t *testing.T) {
	readers := readersUnderTest(t)
	dir := nodeJournal(t)
	want := []journal.Boot{
		{ID: previousBoot, First: mustTime(t, "2026-11-28T10:30:00Z"), Last: mustTime(t, "2026-11-28T10:30:09Z")},
		{ID: currentBoot, First: mustTime(t, "2026-11-29T10:00:00Z"), Last: mustTime(t, "2026-11-29T10:00:15Z")},
	}
	for _, b := range readers {
		for _, lister := range []struct {
			name   string
			reader journal.Reader
		}{{"own", b.reader}, {"by reading entries", readOnly{b.reader}}} {
			got, err := journal.ListBoots(context.Background(), lister.reader, dir)
			if err != nil {
				t.Fatalf("%s %s: %v", b.name, lister.name, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s:\n got %+v\nwant %+v", b.name, lister.name, got, want)
			}
		}
		if _, err := journal.ListBoots(context.Background(), b.reader, filepath.Join(dir, "missing")); !errors.Is(err, journal.ErrNoJournal) {
			t.Errorf("%s: missing dir: got %v, want ErrNoJournal", b.name, err)
		}
	}
}

// readOnly hides every method of a Reader but Read.
type readOnly struct{ journal.Reader }

func TestBackendNames(t *testing.T) {
	for _, b := range backends {
		// A variant of a backend is named after it: "sdjournal reopened ...".
		want, _, _ := strings.Cut(b.name, " ")
		if got := journal.Backend(b.reader); got != want {
			t.Errorf("Backend(%T) = %q, want %q", b.reader, got, want)
		}
	}
	if got := journal.Backend(readOnly{}); got != "unknown" {
		t.Errorf("Backend of a foreign reader = %q, want unknown", got)
	}
	name := journal.Backend(journal.Default())
	if !slices.ContainsFunc(backends, func(b backend) bool { return b.name == name }) {
		t.Errorf("Default() is %q, not one of this build's backends", name)
	}
}

func TestReadStopsWhenContextEnds(t *testing.T) {
	readers := readersUnderTest(t)
	dir := nodeJournal(t)
	for _, b := range readers {
		ctx, cancel := context.WithCancel(context.Background())
		seen := 0
		err := b.reader.Read(ctx, journal.Query{Dir: dir}, func(journal.Entry) error {
			seen++
			if seen == 3 {
				cancel()
			}
			return nil
		})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: got %v, want context.Canceled", b.name, err)
		}
		if seen != 3 {
			t.Errorf("%s: %d entries emitted, want 3 (none after the cancel)", b.name, seen)
		}
	}
}

func TestReadStopsWhenEmitFails(t *testing.T) {
	readers := readersUnderTest(t)
	dir := nodeJournal(t)
	stop := errors.New("budget exhausted")
	for _, b := range readers {
		seen := 0
		err := b.reader.Read(context.Background(), journal.Query{Dir: dir}, func(journal.Entry) error {
			seen++
			return stop
		})
		if !errors.Is(err, stop) {
			t.Errorf("%s: got %v, want the emit error", b.name, err)
		}
		if seen != 1 {
			t.Errorf("%s: emit called %d times, want 1", b.name, seen)
		}
	}
}

func TestDamagedFilesAreSkippedAndNamed(t *testing.T) {
	readers := readersUnderTest(t)
	dir := nodeJournal(t)
	good := filepath.Join(dir, machineID, "system.journal")
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, machineID, "system@truncated.journal")
	garbage := filepath.Join(dir, machineID, "user-1000@garbage.journal~")
	empty := filepath.Join(dir, "empty.journal")
	unsupported := filepath.Join(dir, machineID, "system@unsupported.journal")
	writeFile(t, truncated, data[:len(data)/3])
	writeFile(t, garbage, []byte(strings.Repeat("not a journal file\n", 100)))
	writeFile(t, empty, nil)
	// A header that passes the size checks but asks for a feature no
	// reader knows: libsystemd refuses to open it.
	odd := slices.Clone(data)
	odd[15] |= 0x80
	writeFile(t, unsupported, odd)
	for _, b := range readers {
		got, err := readAll(t, b.reader, journal.Query{Dir: dir})
		if len(got) != nodeEntries {
			t.Errorf("%s: got %d entries, want the %d of the sound file", b.name, len(got), nodeEntries)
		}
		if !errors.Is(err, journal.ErrUnreadableFile) {
			t.Fatalf("%s: got %v, want ErrUnreadableFile", b.name, err)
		}
		for _, path := range []string{truncated, garbage, empty, unsupported} {
			if !strings.Contains(err.Error(), path) {
				t.Errorf("%s: error does not name %s:\n%v", b.name, path, err)
			}
		}
		if strings.Contains(err.Error(), good) {
			t.Errorf("%s: error names the sound file:\n%v", b.name, err)
		}
		t.Logf("%s: %v", b.name, err)
		boots, err := journal.ListBoots(context.Background(), b.reader, dir)
		if len(boots) != 2 || !errors.Is(err, journal.ErrUnreadableFile) {
			t.Errorf("%s: ListBoots gave %d boots and %v, want 2 and ErrUnreadableFile", b.name, len(boots), err)
		}
	}
}

func TestOnlyDamagedFiles(t *testing.T) {
	readers := readersUnderTest(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "system.journal")
	writeFile(t, bad, []byte("LPKSHHRH but nothing else"))
	for _, b := range readers {
		got, err := readAll(t, b.reader, journal.Query{Dir: dir})
		if len(got) != 0 || !errors.Is(err, journal.ErrNoJournal) || !errors.Is(err, journal.ErrUnreadableFile) {
			t.Errorf("%s: got %d entries and %v, want ErrNoJournal and ErrUnreadableFile", b.name, len(got), err)
		}
		if err != nil && !strings.Contains(err.Error(), bad) {
			t.Errorf("%s: error does not name %s: %v", b.name, bad, err)
		}
	}
}

func TestDamageInsideFileSparesOtherFiles(t *testing.T) {
	readers := readersUnderTest(t)
	dir := nodeJournal(t)
	path := filepath.Join(dir, machineID, "system.journal")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Overwrite the first data objects with a pattern; the header stays sound.
	start := bytes.Index(data, []byte("MESSAGE=")) - 64
	if start < 0 {
		t.Fatal("no MESSAGE data object in the journal file")
	}
	for i := start; i < start+2048; i++ {
		data[i] = byte(i * 7)
	}
	writeFile(t, path, data)
	journaltest.Write(t, filepath.Join(dir, machineID), journaltest.Export(
		[]string{"__REALTIME_TIMESTAMP=1795946420000000", "_BOOT_ID=" + currentBoot, "SYSLOG_IDENTIFIER=x", "MESSAGE=sound file, first"},
		[]string{"__REALTIME_TIMESTAMP=1795946421000000", "_BOOT_ID=" + currentBoot, "SYSLOG_IDENTIFIER=x", "MESSAGE=sound file, second"},
	))
	for _, b := range readers {
		got, err := readAll(t, b.reader, journal.Query{Dir: dir})
		if len(got) > nodeEntries+2 {
			t.Errorf("%s: %d entries, more than the files hold", b.name, len(got))
		}
		msgs := messages(got)
		for _, want := range []string{"sound file, first", "sound file, second"} {
			if !slices.Contains(msgs, want) {
				t.Errorf("%s: %q missing; got %q (error %v)", b.name, want, msgs, err)
			}
		}
		t.Logf("%s: %d entries, error %v", b.name, len(got), err)
	}
}

func TestMissingOrEmptyDirectory(t *testing.T) {
	readers := readersUnderTest(t)
	empty := t.TempDir()
	writeFile(t, filepath.Join(empty, "notes.txt"), []byte("no journal here"))
	cases := []struct {
		name string
		dir  string
		want error
	}{
		{"missing", filepath.Join(empty, "nope"), journal.ErrNoJournal},
		{"no journal files", empty, journal.ErrNoJournal},
		{"a file, not a directory", filepath.Join(empty, "notes.txt"), journal.ErrNoJournal},
		{"not given", "", journal.ErrInvalidQuery},
	}
	for _, tc := range cases {
		for _, b := range readers {
			got, err := readAll(t, b.reader, journal.Query{Dir: tc.dir})
			if len(got) != 0 || !errors.Is(err, tc.want) {
				t.Errorf("%s %s: got %d entries and %v, want %v", tc.name, b.name, len(got), err, tc.want)
			}
			if tc.dir != "" && (err == nil || !strings.Contains(err.Error(), tc.dir)) {
				t.Errorf("%s %s: error does not name %s: %v", tc.name, b.name, tc.dir, err)
			}
		}
	}
}

func TestInvalidQueries(t *testing.T) {
	readers := readersUnderTest(t)
	dir := nodeJournal(t)
	for _, q := range []journal.Query{
		{Boot: "not-a-boot-id"},
		{Units: []string{""}},
		{Units: []string{"bad[pattern"}},
	} {
		for _, b := range readers {
			q.Dir = dir
			if _, err := readAll(t, b.reader, q); !errors.Is(err, journal.ErrInvalidQuery) {
				t.Errorf("%s %+v: got %v, want ErrInvalidQuery", b.name, q, err)
			}
		}
	}
}

func TestRuntimeJournalTree(t *testing.T) {
	readers := readersUnderTest(t)
	root := t.TempDir()
	export, err := os.ReadFile(filepath.Join("testdata", "node.export"))
	if err != nil {
		t.Fatal(err)
	}
	// A volatile journal deeper in a tree, plus a second file for the same
	// machine: both are found and merged.
	journaltest.Write(t, filepath.Join(root, "run", "log", "journal", machineID), export)
	journaltest.Write(t, filepath.Join(root, "run", "log", "journal", machineID), journaltest.Export(
		[]string{"__REALTIME_TIMESTAMP=1795946410500000", "_BOOT_ID=" + currentBoot, "SYSLOG_IDENTIFIER=late", "MESSAGE=from the second file"},
	))
	for _, b := range readers {
		got, err := readAll(t, b.reader, journal.Query{Dir: filepath.Join(root, "run"), Boot: currentBoot, Since: mustTime(t, "2026-11-29T10:00:10Z")})
		if err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
		want := []string{"from the second file", msgKubeletFail2, msgKubeletExited, msgSSHD, msgKernelOOM}
		if !slices.Equal(messages(got), want) {
			t.Errorf("%s:\n got %q\nwant %q", b.name, messages(got), want)
		}
	}
}

// writeFile writes data to path, creating its directory.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
