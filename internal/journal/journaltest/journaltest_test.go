package journaltest

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestExportRoundTrip(t *testing.T) {
	data := Export(
		[]string{"__REALTIME_TIMESTAMP=1", "_BOOT_ID=b", "MESSAGE=two\nlines"},
		[]string{"__REALTIME_TIMESTAMP=2", "_BOOT_ID=b", "MESSAGE=a=b", "EMPTY="},
	)
	if !bytes.Contains(data, []byte("MESSAGE\n\x09\x00\x00\x00\x00\x00\x00\x00two\nlines\n")) {
		t.Errorf("multi-line value not in binary form:\n%q", data)
	}
	got, err := parseFixture(data)
	if err != nil {
		t.Fatal(err)
	}
	want := []entry{
		{{"__REALTIME_TIMESTAMP", []byte("1")}, {"_BOOT_ID", []byte("b")}, {"MESSAGE", []byte("two\nlines")}},
		{{"__REALTIME_TIMESTAMP", []byte("2")}, {"_BOOT_ID", []byte("b")}, {"MESSAGE", []byte("a=b")}, {"EMPTY", []byte{}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestParseFixture(t *testing.T) {
	cases := []struct {
		name    string
		text    string
		entries int
		wantErr string
	}{
		{"comments and no final blank line", "# c\n__REALTIME_TIMESTAMP=1\n# inside\n_BOOT_ID=b\n\n\n__REALTIME_TIMESTAMP=2\n_BOOT_ID=b", 2, ""},
		{"binary value cut short", "MESSAGE\n\x09\x00\x00\x00\x00\x00\x00\x00two", 0, "line 1: binary field MESSAGE"},
		{"nothing", "# only a comment\n\n", 0, "no entries"},
		{"lower-case name", "message=hi\n", 0, `line 1: invalid field name "message"`},
		{"stray text", "MESSAGE=a\nnot a field\n", 0, "line 2: \"not a field\" is neither"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseFixture([]byte(tc.text))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(got) != tc.entries {
				t.Fatalf("got %d entries and %v, want %d", len(got), err, tc.entries)
			}
		})
	}
}

func TestAddMonotonic(t *testing.T) {
	entries := []entry{
		{{"__REALTIME_TIMESTAMP", []byte("5000000")}, {"_BOOT_ID", []byte("a")}},
		{{"__REALTIME_TIMESTAMP", []byte("7500000")}, {"_BOOT_ID", []byte("a")}},
		{{"__REALTIME_TIMESTAMP", []byte("9000000")}, {"_BOOT_ID", []byte("b")}, {"__MONOTONIC_TIMESTAMP", []byte("42")}},
	}
	if err := addMonotonic(entries); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"5000000", "7500000", "42"} {
		got, _ := entries[i].get("__MONOTONIC_TIMESTAMP")
		if string(got) != want {
			t.Errorf("entry %d: monotonic %s, want %s", i, got, want)
		}
	}
	for _, missing := range []entry{
		{{"_BOOT_ID", []byte("a")}},
		{{"__REALTIME_TIMESTAMP", []byte("1")}},
		{{"__REALTIME_TIMESTAMP", []byte("soon")}, {"_BOOT_ID", []byte("a")}},
	} {
		if err := addMonotonic([]entry{missing}); err == nil {
			t.Errorf("entry %q accepted", missing)
		}
	}
}

func TestWriteMakesReadableFiles(t *testing.T) {
	if !Available() {
		t.Skip("systemd-journal-remote is not installed")
	}
	if _, err := exec.LookPath("journalctl"); err != nil {
		t.Skip("journalctl is not installed")
	}
	dir := filepath.Join(t.TempDir(), "new", "dir")
	text := "# a fixture\n__REALTIME_TIMESTAMP=1795946400000000\n_BOOT_ID=0123456789abcdef0123456789abcdef\nMESSAGE=first\n\n" +
		"__REALTIME_TIMESTAMP=1795946401000000\n_BOOT_ID=0123456789abcdef0123456789abcdef\nMESSAGE=second"
	first := Write(t, dir, []byte(text))
	second := Write(t, dir, Export([]string{"__REALTIME_TIMESTAMP=1795946402000000", "_BOOT_ID=0123456789abcdef0123456789abcdef", "MESSAGE=third\nline"}))
	if first != filepath.Join(dir, "system.journal") || second != filepath.Join(dir, "system-2.journal") {
		t.Errorf("paths %s and %s", first, second)
	}
	out, err := exec.Command("journalctl", "--file="+first, "--file="+second, "-o", "cat", "-q", "--no-pager", "-a").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), "first\nsecond\nthird\nline\n"; got != want {
		t.Errorf("journalctl read %q, want %q", got, want)
	}
}

func TestWriteFailsOnBadFixture(t *testing.T) {
	if !Available() {
		t.Skip("systemd-journal-remote is not installed")
	}
	rec := &recorder{TB: t}
	rec.run(func() { Write(rec, t.TempDir(), []byte("MESSAGE=no time or boot\n")) })
	if !strings.Contains(rec.fatal, "entry 1: no _BOOT_ID field") {
		t.Errorf("Write reported %q", rec.fatal)
	}
}

// recorder is a testing.TB whose Fatalf records the message and ends the
// calling goroutine, so that a test can check how a helper fails.
type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls f on its own goroutine and waits for it, even when f ends it.
func (r *recorder) run(f func()) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f()
	}()
	wg.Wait()
}

func FuzzParseFixture(f *testing.F) {
	f.Add([]byte("# c\n__REALTIME_TIMESTAMP=1\n_BOOT_ID=b\nMESSAGE=hi\n\n"))
	f.Add(Export([]string{"MESSAGE=two\nlines", "X=\x01"}))
	f.Add([]byte("MESSAGE\n\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Add([]byte("=\n\n\n#\nA"))
	f.Add([]byte("=\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := parseFixture(data)
		if err != nil {
			return
		}
		again, err := parseFixture(encode(entries))
		if err != nil {
			t.Fatalf("encoded entries do not parse: %v", err)
		}
		if !reflect.DeepEqual(normalized(entries), normalized(again)) {
			t.Fatalf("round trip changed entries:\n%q\n%q", entries, again)
		}
	})
}

// normalized makes empty and nil values compare equal.
func normalized(entries []entry) [][][2]string {
	var out [][][2]string
	for _, e := range entries {
		var fields [][2]string
		for _, f := range e {
			fields = append(fields, [2]string{f.name, string(f.value)})
		}
		out = append(out, fields)
	}
	return out
}
