package source

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
)

// statLine builds a /proc/<pid>/stat line with 52 fields, as Linux 5.x and
// 6.x print, with delayacct_blkio_ticks (field 42) set to blkio.
func statLine(pid int, comm string, blkio int) string {
	fields := []string{strconv.Itoa(pid), "(" + comm + ")", "S"}
	for n := 4; n <= 52; n++ {
		v := strconv.Itoa(n * 10)
		if n == procStatBlockIODelay {
			v = strconv.Itoa(blkio)
		}
		fields = append(fields, v)
	}
	return strings.Join(fields, " ") + "\n"
}

// environ builds an environ file of n entries, with a secret among them
// that no reader may ever write out.
func environ(n int) string {
	var b strings.Builder
	b.WriteString("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY\x00")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "VAR_%d=value-%d\x00", i, i)
	}
	return b.String()
}

// fakeProc is a /proc with processes of every kind the readers meet: a
// plain one, one whose name holds spaces and parentheses, one without
// block I/O delay, one that exited between listing and reading, and
// non-process entries.
func fakeProc(t *testing.T) string {
	t.Helper()
	return makeTree(t, map[string]string{
		"1/stat":            statLine(1, "systemd", 0),
		"1/environ":         environ(1000), // exactly the limit: not listed
		"1234/stat":         statLine(1234, "tmux: server (1)", 57),
		"1234/environ":      environ(1500),
		"77/stat":           statLine(77, "kubelet", 3),
		"77/environ":        environ(12),
		"99/cmdline":        "", // exited while read: its stat and environ are gone
		"10001/stat":        "10001 (short) R 1 2 3\n",
		"10001/environ":     strings.TrimSuffix(environ(1001), "\x00"),
		"self":              "->1",
		"sys/kernel/ostype": "Linux\n",
		"meminfo":           "MemTotal: 1 kB\n",
	})
}

func TestProcReaders(t *testing.T) {
	proc := fakeProc(t)
	tests := []struct {
		name string
		fn   func(context.Context, io.Writer) error
		want string
	}{
		{"allprocstat: every stat line in pid order", AllProcStat(proc),
			statLine(1, "systemd", 0) + statLine(77, "kubelet", 3) + statLine(1234, "tmux: server (1)", 57) + "10001 (short) R 1 2 3\n"},
		{"large environments: counts above 1000 only", LargeEnvironments(proc),
			"PID\tCount\n1234\t1500\n10001\t1001\n"},
		{"io throttling: field 42 when non-zero", IOThrottling(proc),
			"PID Name Block IO Delay (centisconds)\n77 (kubelet) 3\n1234 (tmux: server (1)) 57\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.fn(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tt.want)
			}
			if strings.Contains(b.String(), "wJalrXUtnFEMI") || strings.Contains(b.String(), "value-") {
				t.Error("an environment value reached the output")
			}
		})
	}
}

func TestProcReadersStopWithTheirContext(t *testing.T) {
	proc := fakeProc(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, fn := range map[string]func(context.Context, io.Writer) error{
		"allprocstat": AllProcStat(proc), "large-environments": LargeEnvironments(proc), "io-throttling": IOThrottling(proc),
	} {
		if err := fn(ctx, io.Discard); err == nil {
			t.Errorf("%s: no error with a cancelled context", name)
		}
	}
}

func TestProcReadersWithoutProc(t *testing.T) {
	missing := t.TempDir() + "/no-proc"
	for name, fn := range map[string]func(context.Context, io.Writer) error{
		"allprocstat": AllProcStat(missing), "large-environments": LargeEnvironments(missing), "io-throttling": IOThrottling(missing),
	} {
		err := fn(context.Background(), io.Discard)
		if err == nil || !strings.Contains(err.Error(), "no-proc") {
			t.Errorf("%s: error %v, want one naming the folder", name, err)
		}
	}
}

func TestBlockIODelay(t *testing.T) {
	tests := []struct {
		stat  string
		comm  string
		ticks uint64
		ok    bool
	}{
		{statLine(42, "containerd", 1234), "containerd", 1234, true},
		{statLine(43, ") (odd name) 9 9 9", 5), ") (odd name) 9 9 9", 5, true},
		{statLine(44, "idle", 0), "idle", 0, true},
		{"45 (short) R 1 2 3", "", 0, false},
		{strings.Replace(statLine(46, "x", 7), " 7 ", " -7 ", 1), "", 0, false},
		{"garbage", "", 0, false},
	}
	for _, tt := range tests {
		comm, ticks, ok := blockIODelay([]byte(tt.stat))
		if comm != tt.comm || ticks != tt.ticks || ok != tt.ok {
			t.Errorf("blockIODelay(%.40q) = %q %d %v, want %q %d %v", tt.stat, comm, ticks, ok, tt.comm, tt.ticks, tt.ok)
		}
	}
}

func FuzzBlockIODelay(f *testing.F) {
	f.Add([]byte(statLine(1, "a", 2)))
	f.Add([]byte(") ("))
	f.Fuzz(func(t *testing.T, stat []byte) {
		comm, _, ok := blockIODelay(stat)
		if ok && len(comm) > len(stat) {
			t.Fatalf("command name longer than the input")
		}
	})
}

func TestCountEnvironEntries(t *testing.T) {
	tests := map[string]int{
		"":                   0,
		"A=1\x00":            1,
		"A=1\x00B=2\x00":     2,
		"A=1\x00B=2":         2,
		environ(1001):        1001,
		"NO_TERMINATOR=1":    1,
		"A=\x00=\x00C=3\x00": 3,
	}
	for content, want := range tests {
		p := t.TempDir() + "/environ"
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := countEnvironEntries(p)
		if err != nil || got != want {
			t.Errorf("countEnvironEntries(%.30q) = %d, %v; want %d", content, got, err, want)
		}
	}
}
