package benchgen

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nodetriage/nodetriage/internal/bundle"
)

// klogMessage is the source location and the start of a kubelet message:
// `reconciler_common.go:251] "operationExecutor.VerifyControllerAttachedVolume`.
var klogMessage = regexp.MustCompile(`\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ ([\w.]+:\d+)\] "?([^"=]{0,40})`)

func TestKubeletMessagesAreVaried(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "b")
	generate(t, Options{Dir: dir, Size: 4 << 20, Layout: bundle.LayoutNodetriage, Seed: 1, Plant: []string{NoPlants}})
	data, err := os.ReadFile(filepath.Join(dir, "kubelet/kubelet.log"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	pods := map[string]bool{}
	podRef := regexp.MustCompile(`pod="([^"]+)"`)
	for _, line := range strings.Split(string(data), "\n") {
		if m := klogMessage.FindStringSubmatch(line); m != nil {
			kinds[m[1]+" "+m[2]]++
		}
		if m := podRef.FindStringSubmatch(line); m != nil {
			pods[m[1]] = true
		}
	}
	if len(kinds) < 30 {
		t.Errorf("only %d kinds of kubelet messages: %v", len(kinds), kinds)
	}
	if len(pods) < 50 {
		t.Errorf("only %d pods named", len(pods))
	}
}

func TestLogsAreNotTriviallyCompressible(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "b")
	generate(t, Options{Dir: dir, Size: 4 << 20, Layout: bundle.LayoutLogCollector, Seed: 1})
	for _, name := range []string{"kubelet/kubelet.log", "containerd/containerd-log.txt", "var_log/messages", "var_log/aws-routed-eni/ipamd.log"} {
		data, err := os.ReadFile(relPath(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var packed bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&packed, gzip.BestCompression)
		zw.Write(data)
		zw.Close()
		// Real node logs shrink 5 to 20 times; text of few templates and
		// no random parts would shrink a hundred times.
		if ratio := float64(len(data)) / float64(packed.Len()); ratio > 25 || ratio < 2 {
			t.Errorf("%s: gzip ratio %.1f, want between 2 and 25", name, ratio)
		}
	}
}

func TestWriteJournalExport(t *testing.T) {
	end := time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	n, err := WriteJournalExport(&out, ExportOptions{Size: 256 << 10, Seed: 3, End: end, Span: 48 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(out.Len()) || n < 256<<10 || n > 256<<10+8<<10 {
		t.Fatalf("wrote %d bytes (reported %d) for a request of %d", out.Len(), n, 256<<10)
	}
	entries := strings.Split(strings.TrimSuffix(out.String(), "\n\n"), "\n\n")
	units := map[string]int{}
	for i, e := range entries {
		fields := map[string]string{}
		for _, line := range strings.Split(e, "\n") {
			name, value, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("entry %d: line %q is not NAME=value", i, line)
			}
			fields[name] = value
		}
		for _, need := range []string{"__REALTIME_TIMESTAMP", "__MONOTONIC_TIMESTAMP", "_BOOT_ID", "_SYSTEMD_UNIT", "SYSLOG_IDENTIFIER", "_PID", "MESSAGE"} {
			if fields[need] == "" {
				t.Fatalf("entry %d lacks %s: %q", i, need, e)
			}
		}
		units[fields["_SYSTEMD_UNIT"]]++
	}
	for _, u := range []string{"kubelet.service", "containerd.service"} {
		if units[u] == 0 {
			t.Errorf("no entries of %s: %v", u, units)
		}
	}
	var again bytes.Buffer
	if _, err := WriteJournalExport(&again, ExportOptions{Size: 256 << 10, Seed: 3, End: end, Span: 48 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), again.Bytes()) {
		t.Error("same options wrote different export text")
	}
	t.Run("journal-remote", func(t *testing.T) { checkWithJournalRemote(t, out.Bytes(), len(entries), end) })
}

// checkWithJournalRemote turns the export text into a real journal file and
// reads it back with journalctl.
func checkWithJournalRemote(t *testing.T, export []byte, entries int, end time.Time) {
	const remote = "/lib/systemd/systemd-journal-remote"
	if _, err := os.Stat(remote); err != nil {
		t.Skip("systemd-journal-remote is not installed")
	}
	journalctl, err := exec.LookPath("journalctl")
	if err != nil {
		t.Skip("journalctl is not installed")
	}
	dir := filepath.Join(t.TempDir(), "journal", MachineID(3))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, remote, "--output="+filepath.Join(dir, "system.journal"), "--split-mode=none", "-")
	cmd.Stdin = bytes.NewReader(export)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", remote, err, msg)
	}
	lines, err := exec.CommandContext(ctx, journalctl, "-D", filepath.Dir(dir), "-u", "kubelet", "-o", "short-iso-precise", "--utc", "--no-pager").Output()
	if err != nil {
		t.Fatalf("journalctl: %v", err)
	}
	text := string(lines)
	if !strings.Contains(text, "kubelet[2817]: I") {
		t.Errorf("journalctl -u kubelet shows no kubelet klog line:\n%.500s", text)
	}
	last := strings.Split(strings.TrimSpace(text), "\n")
	stamp, err := time.Parse("2006-01-02T15:04:05.000000-0700", strings.Fields(last[len(last)-1])[0])
	if err != nil || stamp.After(end) || stamp.Before(end.Add(-time.Hour)) {
		t.Errorf("last kubelet entry at %v (%v), want shortly before %v", stamp, err, end)
	}
	all, err := exec.CommandContext(ctx, journalctl, "-D", filepath.Dir(dir), "-o", "cat", "--no-pager").Output()
	if err != nil {
		t.Fatalf("journalctl: %v", err)
	}
	if got := strings.Count(string(all), "\n"); got != entries {
		t.Errorf("journal holds %d entries, export had %d", got, entries)
	}
}
