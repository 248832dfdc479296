package source

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestFormatKmsg(t *testing.T) {
	tests := []struct {
		record string
		want   string
		ok     bool
	}{
		{"6,339,5140900,-;ena 0000:00:05.0: Elastic Network Adapter (ENA) v2.13.0g\n", "[    5.140900] ena 0000:00:05.0: Elastic Network Adapter (ENA) v2.13.0g\n", true},
		{"4,1,0,-;first\n SUBSYSTEM=net\n DEVICE=n2\n", "[    0.000000] first\n", true},
		{"6,12,notanumber,-;x\n", "", false},
		{"no separator", "", false},
	}
	for _, tt := range tests {
		got, ok := FormatKmsg([]byte(tt.record))
		if got != tt.want || ok != tt.ok {
			t.Errorf("FormatKmsg(%q) = %q, %v; want %q, %v", tt.record, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzFormatKmsg(f *testing.F) {
	f.Add([]byte("6,339,5140900,-;message\n"))
	f.Add([]byte("0,0,18446744073709551615,c;x"))
	f.Add([]byte(";;;"))
	f.Fuzz(func(t *testing.T, record []byte) {
		line, ok := FormatKmsg(record)
		if ok && (!strings.HasPrefix(line, "[") || !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1) {
			t.Fatalf("FormatKmsg(%q) = %q: not one dmesg line", record, line)
		}
	})
}

func TestParseProcStat(t *testing.T) {
	tests := []struct{ stat, comm, state, ppid string }{
		{"1234 (kubelet) S 1 1234 1234 0 -1", "kubelet", "S", "1"},
		{"77 (tmux: server (1)) R 1 77", "tmux: server (1)", "R", "1"},
		{"garbage", "", "?", "?"},
	}
	for _, tt := range tests {
		comm, state, ppid := parseProcStat([]byte(tt.stat))
		if comm != tt.comm || state != tt.state || ppid != tt.ppid {
			t.Errorf("parseProcStat(%q) = %q %q %q", tt.stat, comm, state, ppid)
		}
	}
}

func FuzzParseProcStat(f *testing.F) {
	f.Add([]byte("1 (a) S 0"))
	f.Add([]byte(")("))
	f.Fuzz(func(t *testing.T, stat []byte) {
		comm, _, _ := parseProcStat(stat)
		if len(comm) > len(stat) {
			t.Fatalf("command name longer than the input")
		}
	})
}

func TestUnescapeMount(t *testing.T) {
	tests := map[string]string{`/mnt/with\040space`: "/mnt/with space", `/plain`: "/plain", `/bad\09`: `/bad\09`, `\`: `\`}
	for in, want := range tests {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLiveReadersOnThisMachine(t *testing.T) {
	readers := map[string]struct {
		fn   func(context.Context, *bytes.Buffer) error
		want string
	}{
		"uname":   {func(ctx context.Context, b *bytes.Buffer) error { return Uname(ctx, b) }, "Linux "},
		"uptime":  {func(ctx context.Context, b *bytes.Buffer) error { return Uptime(ctx, b) }, "load average:"},
		"mounts":  {func(ctx context.Context, b *bytes.Buffer) error { return Mounts(ctx, b) }, "Mounted on"},
		"inodes":  {func(ctx context.Context, b *bytes.Buffer) error { return Inodes(ctx, b) }, "IUse%"},
		"sysctls": {func(ctx context.Context, b *bytes.Buffer) error { return Sysctls(ctx, b) }, "kernel.ostype = Linux"},
		"addrs":   {func(ctx context.Context, b *bytes.Buffer) error { return Addresses(ctx, b) }, "lo:"},
		"allprocstat": {func(ctx context.Context, b *bytes.Buffer) error { return AllProcStat("/proc")(ctx, b) },
			fmt.Sprintf("\n%d (", os.Getpid())},
		"large-environments": {func(ctx context.Context, b *bytes.Buffer) error { return LargeEnvironments("/proc")(ctx, b) }, "PID\tCount\n"},
		"cpu-throttling": {func(ctx context.Context, b *bytes.Buffer) error {
			return CPUThrottling("/sys/fs/cgroup", "/proc")(ctx, b)
		}, "\n"},
		"io-throttling": {func(ctx context.Context, b *bytes.Buffer) error { return IOThrottling("/proc")(ctx, b) },
			"PID Name Block IO Delay (centisconds)\n"},
	}
	for name, r := range readers {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := r.fn(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), r.want) {
				t.Fatalf("output lacks %q:\n%.400s", r.want, b.String())
			}
		})
	}
}
