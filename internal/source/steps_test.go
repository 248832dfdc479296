package source

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// onlyTools makes the fake tools the only ones on PATH, so that a tool the
// test leaves out is missing even if this machine has it.
func onlyTools(t *testing.T, scripts map[string]string) {
	t.Helper()
	dir := fakeTools(t, scripts)
	t.Setenv("PATH", dir)
}

// fakeEthtool answers -S like the ENA driver for eth*, like veth for eni*,
// and fails like a dummy interface (NodeLocal DNSCache) for the rest.
const fakeEthtool = `[ "$1" = "-S" ] || exit 2
case "$2" in
eth*) printf 'NIC statistics:\n     tx_timeout: 0\n     linklocal_allowance_exceeded: 0\n' ;;
eni*) printf 'NIC statistics:\n     peer_ifindex: 3\n' ;;
*) echo "no stats available" >&2; exit 94 ;;
esac
`

func TestEthtoolStats(t *testing.T) {
	tests := []struct {
		name    string
		ifaces  []string
		tools   map[string]string
		want    string
		wantErr error
	}{
		{"every interface but lo, a failure noted", []string{"lo", "eth0", "eni1a2b3c4d5e6", "nodelocaldns"},
			map[string]string{"ethtool": fakeEthtool},
			"Interface eni1a2b3c4d5e6\nNIC statistics:\n     peer_ifindex: 3\n" +
				"Interface eth0\nNIC statistics:\n     tx_timeout: 0\n     linklocal_allowance_exceeded: 0\n" +
				"Interface nodelocaldns\n(failed: ", nil},
		{"a name that looks like an option is left out", []string{"-S", "eth0"},
			map[string]string{"ethtool": fakeEthtool},
			"Interface eth0\nNIC statistics:\n     tx_timeout: 0\n     linklocal_allowance_exceeded: 0\n", nil},
		{"every run failing fails the source", []string{"dummy0", "dummy1"},
			map[string]string{"ethtool": fakeEthtool}, "Interface dummy0\n(failed: ", ErrCommandFailed},
		{"ethtool not installed", []string{"eth0"}, nil, "", ErrSkipped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			onlyTools(t, tt.tools)
			net := t.TempDir()
			for _, name := range tt.ifaces {
				if err := os.Mkdir(filepath.Join(net, name), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// the bonding driver adds a file that is not an interface
			if err := os.WriteFile(filepath.Join(net, "bonding_masters"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			err := EthtoolStats(net)(context.Background(), &b)
			checkStepOutput(t, b.String(), err, tt.want, tt.wantErr)
		})
	}
}

// checkStepOutput compares a reader's output with want (up to a "(failed: "
// note, whose text is the tool's error) and its error with wantErr.
func checkStepOutput(t *testing.T, got string, err error, want string, wantErr error) {
	t.Helper()
	if wantErr == nil && err != nil || wantErr != nil && !errors.Is(err, wantErr) {
		t.Fatalf("error = %v, want %v", err, wantErr)
	}
	if prefix, ok := strings.CutSuffix(want, "(failed: "); ok {
		if !strings.HasPrefix(got, want) || !strings.Contains(got, "no stats available") {
			t.Fatalf("got:\n%s\nwant it to start with:\n%s", got, prefix+"(failed: ...no stats available)")
		}
		return
	}
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestEthtoolStatsWithoutSysClassNet(t *testing.T) {
	onlyTools(t, map[string]string{"ethtool": fakeEthtool})
	err := EthtoolStats(filepath.Join(t.TempDir(), "none"))(context.Background(), io.Discard)
	if err == nil || errors.Is(err, ErrSkipped) {
		t.Fatalf("error = %v, want a failure naming the folder", err)
	}
}

func TestXFSInfo(t *testing.T) {
	mounts := strings.Join([]string{
		"/dev/nvme0n1p1 / xfs rw,noatime,attr2,inode64 0 0",
		"proc /proc proc rw,nosuid 0 0",
		"overlay /run/containerd/io.containerd.runtime.v2.task/k8s.io/4f9e/rootfs overlay rw 0 0",
		"/dev/nvme0n1p1 /var/lib/kubelet/pods/3c1a/volume-subpaths/x xfs rw 0 0",
		`/dev/nvme1n1 /mnt/data\040disk xfs rw 0 0`,
		"/dev/nvme0n1p128 /boot/efi vfat rw 0 0",
	}, "\n") + "\n"
	xfsInfo := `echo "meta-data=$1 isize=512 agcount=16"` + "\n"
	tests := []struct {
		name    string
		table   string
		tools   map[string]string
		want    string
		wantErr error
	}{
		{"once per device, mount points unescaped", mounts, map[string]string{"xfs_info": xfsInfo},
			"Device /dev/nvme0n1p1 mounted on /\nmeta-data=/ isize=512 agcount=16\n\n" +
				"Device /dev/nvme1n1 mounted on /mnt/data disk\nmeta-data=/mnt/data disk isize=512 agcount=16\n\n", nil},
		{"no XFS file system", "/dev/sda1 / ext4 rw 0 0\n", map[string]string{"xfs_info": xfsInfo}, "", ErrSkipped},
		{"xfs_info not installed", mounts, nil, "", ErrSkipped},
		{"xfs_info failing", mounts, map[string]string{"xfs_info": "echo 'no stats available' >&2; exit 1\n"},
			"Device /dev/nvme0n1p1 mounted on /\n(failed: ", ErrCommandFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			onlyTools(t, tt.tools)
			table := filepath.Join(t.TempDir(), "mounts")
			if err := os.WriteFile(table, []byte(tt.table), 0o644); err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			err := XFSInfo(table)(context.Background(), &b)
			checkStepOutput(t, b.String(), err, tt.want, tt.wantErr)
		})
	}
}

// TestStepReadersThroughLive stages the readers the way the catalog runs
// them: a skipped one leaves no file, and under --root none runs.
func TestStepReadersThroughLive(t *testing.T) {
	onlyTools(t, map[string]string{"ethtool": fakeEthtool})
	net := makeTree(t, map[string]string{"eth0/operstate": "up\n"})
	proc := makeTree(t, map[string]string{"mounts": "/dev/sda1 / ext4 rw 0 0\n"})
	tests := []struct {
		name     string
		tree     *Tree
		fn       func(context.Context, io.Writer) error
		wantErr  error
		wantFile bool
	}{
		{"runs on the live tree", openTree(t, "/"), EthtoolStats(net), nil, true},
		{"skipped reader stages nothing", openTree(t, "/"), XFSInfo(filepath.Join(proc, "mounts")), ErrSkipped, false},
		{"under --root it is skipped", openTree(t, t.TempDir()), EthtoolStats(net), ErrSkipped, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStage(t, StageOptions{})
			err := NewLive("test", tt.tree, "networking/ethtool.txt", tt.fn).WithDeadline(stepsDeadline).Collect(context.Background(), s.Sink("test"))
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("Collect = %v, want %v", err, tt.wantErr)
			}
			if got := len(s.Records()) > 0; got != tt.wantFile {
				t.Fatalf("staged %v, want a file: %v", s.Records(), tt.wantFile)
			}
			if tt.wantFile && !strings.HasPrefix(readStaged(t, s, "networking/ethtool.txt"), "Interface eth0\nNIC statistics:") {
				t.Errorf("staged %q", readStaged(t, s, "networking/ethtool.txt"))
			}
		})
	}
}
