package journal_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nodetriage/nodetriage/internal/journal"
	"github.com/nodetriage/nodetriage/internal/journal/journaltest"
)

func TestFormatShortISOPrecise(t *testing.T) {
	at := time.Date(2026, 11, 29, 14, 26, 31, 123456789, time.UTC)
	cases := []struct {
		name  string
		entry journal.Entry
		want  string
	}{
		{
			name:  "service line",
			entry: journal.Entry{Time: at, Hostname: "ip-10-0-1-23", Identifier: "kubelet", PID: "3214", Message: "E1129 started"},
			want:  "2026-11-29T14:26:31.123456+00:00 ip-10-0-1-23 kubelet[3214]: E1129 started",
		},
		{
			name:  "kernel line has no PID",
			entry: journal.Entry{Time: at, Hostname: "h", Identifier: "kernel", Message: "Out of memory"},
			want:  "2026-11-29T14:26:31.123456+00:00 h kernel: Out of memory",
		},
		{
			name:  "time in another zone is shown in UTC",
			entry: journal.Entry{Time: at.In(time.FixedZone("X", -5*3600)), Hostname: "h", Identifier: "a", Message: "m"},
			want:  "2026-11-29T14:26:31.123456+00:00 h a: m",
		},
		{
			name:  "no host, no identifier",
			entry: journal.Entry{Time: at, Message: "bare"},
			want:  "2026-11-29T14:26:31.123456+00:00 unknown: bare",
		},
		{
			name:  "empty message keeps the separator",
			entry: journal.Entry{Time: at, Hostname: "h", Identifier: "a", PID: "1"},
			want:  "2026-11-29T14:26:31.123456+00:00 h a[1]: ",
		},
		{
			name:  "continuation lines are indented by the prefix",
			entry: journal.Entry{Time: at, Hostname: "h", Identifier: "ml", PID: "5", Message: "line1\nline2\n  line3\n"},
			want: "2026-11-29T14:26:31.123456+00:00 h ml[5]: line1\n" +
				strings.Repeat(" ", 42) + "line2\n" +
				strings.Repeat(" ", 42) + "  line3",
		},
		{
			name:  "only one final newline is dropped",
			entry: journal.Entry{Time: at, Hostname: "h", Identifier: "a", Message: "a\n\n"},
			want:  "2026-11-29T14:26:31.123456+00:00 h a: a\n" + strings.Repeat(" ", 38),
		},
		{
			name:  "control characters stay",
			entry: journal.Entry{Time: at, Hostname: "h", Identifier: "a", Message: "tab\there \x1b[31mred"},
			want:  "2026-11-29T14:26:31.123456+00:00 h a: tab\there \x1b[31mred",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := journal.FormatShortISOPrecise(tc.entry); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// journalctlZone is the "+0000" offset that journalctl 252 prints.
var journalctlZone = regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6})\+0000 `)

// TestFormatMatchesJournalctl renders every entry of the fixtures and
// compares with journalctl's own short-iso-precise output of the same file.
func TestFormatMatchesJournalctl(t *testing.T) {
	readersUnderTest(t)
	dir := nodeJournal(t)
	// journalctl --directory reads only subdirectories named by a machine id.
	journaltest.Write(t, filepath.Join(dir, "0123456789abcdef0123456789abcdef"), journaltest.Export(
		[]string{"__REALTIME_TIMESTAMP=1795946430000000", "_BOOT_ID=" + currentBoot, "_HOSTNAME=h", "SYSLOG_IDENTIFIER=ml", "_PID=5", "MESSAGE=a\n\nb"},
		[]string{"__REALTIME_TIMESTAMP=1795946430000001", "_BOOT_ID=" + currentBoot, "_HOSTNAME=h", "SYSLOG_IDENTIFIER=ml", "_PID=5", "MESSAGE=x\n\n\ny\n"},
		[]string{"__REALTIME_TIMESTAMP=1795946430000002", "_BOOT_ID=" + currentBoot, "_COMM=bash", "SYSLOG_PID=9", "MESSAGE=\nleading newline"},
		[]string{"__REALTIME_TIMESTAMP=1795946430000003", "_BOOT_ID=" + currentBoot, "MESSAGE=no identifier"},
	))
	var lines []string
	err := journal.NewJournalctl("").Read(context.Background(), journal.Query{Dir: dir}, func(e journal.Entry) error {
		lines = append(lines, journal.FormatShortISOPrecise(e))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(lines, "\n") + "\n"
	cmd := exec.Command("journalctl", "--directory="+dir, "--utc", "-a", "-q", "--no-pager", "-o", "short-iso-precise")
	cmd.Env = append(cmd.Environ(), "LC_ALL=C")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := normalizeZone(string(out))
	if got != want {
		t.Errorf("our lines differ from journalctl's:\n--- ours\n%s--- journalctl (zone as +00:00)\n%s", got, want)
	}
}

// normalizeZone rewrites journalctl's "+0000" offset as "+00:00" and widens
// continuation lines by the extra character, so that journalctl versions
// before and after that change compare alike.
func normalizeZone(out string) string {
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		switch {
		case journalctlZone.MatchString(line):
			lines[i] = journalctlZone.ReplaceAllString(line, "${1}+00:00 ")
		case strings.HasPrefix(line, " ") && strings.Contains(out, "+0000 "):
			lines[i] = " " + line
		}
	}
	return strings.Join(lines, "\n")
}
