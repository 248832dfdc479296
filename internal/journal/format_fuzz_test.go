package journal_test

import (
	"strings"
	"testing"
	"time"

	"github.com/nodetriage/nodetriage/internal/journal"
)

// FuzzFormatShortISOPrecise checks that formatting never panics, starts
// with the time stamp, and keeps every line of the message: dropping the
// prefix and the continuation indent gives the message back, less one
// final newline.
func FuzzFormatShortISOPrecise(f *testing.F) {
	f.Add(int64(1764411991123456), "ip-10-0-0-1", "kubelet", "1234", "plain line")
	f.Add(int64(0), "", "", "", "first\nsecond\n")
	f.Add(int64(-1), "h", "id", "", "\n\n")
	f.Add(int64(253402300799999999), "host", "ü", "1", "tab\tand \x00 bytes\n")
	f.Fuzz(func(t *testing.T, micros int64, host, ident, pid, message string) {
		e := journal.Entry{Time: time.UnixMicro(micros), Hostname: host, Identifier: ident, PID: pid, Message: message}
		got := journal.FormatShortISOPrecise(e)
		stamp := e.Time.UTC().Format("2006-01-02T15:04:05.000000-07:00")
		if !strings.HasPrefix(got, stamp) {
			t.Fatalf("%q does not start with %q", got, stamp)
		}
		prefix := stamp
		if host != "" {
			prefix += " " + host
		}
		if ident == "" {
			ident = "unknown"
		}
		prefix += " " + ident
		if pid != "" {
			prefix += "[" + pid + "]"
		}
		prefix += ": "
		body, ok := strings.CutPrefix(got, prefix)
		if !ok {
			t.Fatalf("%q does not start with the prefix %q", got, prefix)
		}
		back := strings.ReplaceAll(body, "\n"+strings.Repeat(" ", len(prefix)), "\n")
		if want := strings.TrimSuffix(message, "\n"); back != want {
			t.Fatalf("message %q came back as %q", want, back)
		}
	})
}
