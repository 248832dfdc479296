package journal_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nodetriage/nodetriage/internal/journal"
)

// binaryField writes NAME, a little-endian length and the raw value.
func binaryField(name, value string) string {
	var size [8]byte
	binary.LittleEndian.PutUint64(size[:], uint64(len(value)))
	return name + "\n" + string(size[:]) + value + "\n"
}

// parseAll parses export text and returns the entries and the error.
func parseAll(input string) ([]journal.Entry, error) {
	var got []journal.Entry
	err := journal.ParseExport(strings.NewReader(input), func(e journal.Entry) error {
		got = append(got, e)
		return nil
	})
	return got, err
}

func TestParseExport(t *testing.T) {
	boot := "0123456789abcdef0123456789abcdef"
	at := time.UnixMicro(1795946400123456).UTC()
	cases := []struct {
		name    string
		input   string
		want    []journal.Entry
		wantErr error
	}{
		{
			name: "text fields, cursor and unknown fields ignored",
			input: "__CURSOR=s=abc;i=1\n__REALTIME_TIMESTAMP=1795946400123456\n__MONOTONIC_TIMESTAMP=5\n" +
				"_BOOT_ID=" + boot + "\n_HOSTNAME=h\nSYSLOG_IDENTIFIER=kubelet\n_PID=12\n_SYSTEMD_UNIT=kubelet.service\n" +
				"PRIORITY=3\n_TRANSPORT=stdout\nCODE_FILE=x.go\nMESSAGE=a=b=c\n\n",
			want: []journal.Entry{{
				Time: at, BootID: boot, Hostname: "h", Identifier: "kubelet", PID: "12",
				Unit: "kubelet.service", Priority: 3, Transport: "stdout", Message: "a=b=c",
			}},
		},
		{
			name:  "binary field with newlines and NUL",
			input: "__REALTIME_TIMESTAMP=1795946400123456\n" + binaryField("MESSAGE", "one\ntwo\x00three\n") + "\n",
			want:  []journal.Entry{{Time: at, Priority: -1, Message: "one\ntwo\x00three\n"}},
		},
		{
			name:  "empty values and several entries, extra blank lines",
			input: "MESSAGE=\n\n\n\nMESSAGE=second\nPRIORITY=x\n\n",
			want:  []journal.Entry{{Priority: -1}, {Priority: -1, Message: "second"}},
		},
		{
			name:  "last entry without closing blank line or final newline",
			input: "MESSAGE=first\n\nMESSAGE=last",
			want:  []journal.Entry{{Priority: -1, Message: "first"}, {Priority: -1, Message: "last"}},
		},
		{
			name:  "fallbacks for identifier and PID",
			input: "_COMM=bash\nSYSLOG_PID=7\nMESSAGE=m\n\n",
			want:  []journal.Entry{{Identifier: "bash", PID: "7", Priority: -1, Message: "m"}},
		},
		{
			name:    "binary value cut short",
			input:   "MESSAGE=ok\n\n" + binaryField("MESSAGE", "abcdef")[:12],
			want:    []journal.Entry{{Priority: -1, Message: "ok"}},
			wantErr: journal.ErrBadExport,
		},
		{
			name:    "binary value without its newline",
			input:   "MESSAGE\n\x03\x00\x00\x00\x00\x00\x00\x00abcX\n",
			wantErr: journal.ErrBadExport,
		},
		{
			name:    "huge binary length is not allocated",
			input:   "MESSAGE\n\xff\xff\xff\xff\xff\xff\xff\x7fabc",
			wantErr: journal.ErrBadExport,
		},
		{
			name:    "lower-case field name",
			input:   "message=hi\n\n",
			wantErr: journal.ErrBadExport,
		},
		{
			name:    "timestamp not a number",
			input:   "__REALTIME_TIMESTAMP=soon\n\n",
			wantErr: journal.ErrBadExport,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseAll(tc.input)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseExportErrorsSayWhere(t *testing.T) {
	_, err := parseAll("MESSAGE=a\n\nMESSAGE=b\nbad name=x\n\n")
	if err == nil || !strings.Contains(err.Error(), "entry 2") || !strings.Contains(err.Error(), "byte 21") {
		t.Errorf("error %v does not name entry 2 at byte 21", err)
	}
}

func TestParseExportCapsLongValues(t *testing.T) {
	long := strings.Repeat("x", journal.MaxMessageBytes+1000)
	for _, input := range []string{
		"MESSAGE=" + long + "\n_PID=3\n\n",
		binaryField("MESSAGE", long) + "_PID=3\n\n",
	} {
		got, err := parseAll(input)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || len(got[0].Message) != journal.MaxMessageBytes || got[0].PID != "3" {
			t.Errorf("got %d entries, message of %d bytes, PID %q", len(got), len(got[0].Message), got[0].PID)
		}
	}
}

func TestParseExportStopsOnEmitError(t *testing.T) {
	stop := errors.New("enough")
	calls := 0
	err := journal.ParseExport(strings.NewReader("MESSAGE=a\n\nMESSAGE=b\n\n"), func(journal.Entry) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("got %v after %d calls, want the emit error after 1", err, calls)
	}
}

func TestParseExportReaderError(t *testing.T) {
	broken := errors.New("disk gone")
	r := io.MultiReader(strings.NewReader("MESSAGE=a\n\nMESSAGE=b"), failingReader{broken})
	got, err := func() ([]journal.Entry, error) {
		var got []journal.Entry
		err := journal.ParseExport(r, func(e journal.Entry) error { got = append(got, e); return nil })
		return got, err
	}()
	if !errors.Is(err, broken) || len(got) != 1 {
		t.Errorf("got %d entries and %v, want 1 entry and the reader's error", len(got), err)
	}
}

// failingReader fails every read.
type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

// encodeExport writes entries back in the export format, so that a parse of
// the output can be compared with the entries.
func encodeExport(entries []journal.Entry) []byte {
	var b bytes.Buffer
	field := func(name, value string) {
		if strings.ContainsRune(value, '\n') {
			b.WriteString(binaryField(name, value))
			return
		}
		b.WriteString(name + "=" + value + "\n")
	}
	for _, e := range entries {
		field("X_ENTRY", "1")
		if !e.Time.IsZero() {
			field("__REALTIME_TIMESTAMP", strconv.FormatInt(e.Time.UnixMicro(), 10))
		}
		for _, f := range [][2]string{
			{"_BOOT_ID", e.BootID}, {"_HOSTNAME", e.Hostname}, {"SYSLOG_IDENTIFIER", e.Identifier},
			{"_PID", e.PID}, {"_SYSTEMD_UNIT", e.Unit}, {"_TRANSPORT", e.Transport}, {"MESSAGE", e.Message},
		} {
			if f[1] != "" {
				field(f[0], f[1])
			}
		}
		if e.Priority >= 0 {
			field("PRIORITY", strconv.Itoa(e.Priority))
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

func FuzzParseExport(f *testing.F) {
	f.Add([]byte("__REALTIME_TIMESTAMP=1795946400123456\n_BOOT_ID=0123456789abcdef0123456789abcdef\nMESSAGE=hello\nPRIORITY=6\n\n"))
	f.Add([]byte(binaryField("MESSAGE", "multi\nline") + "_PID=1\nUNIT=kubelet.service\n\n"))
	f.Add([]byte("MESSAGE\n\xff\xff\xff\xff\xff\xff\xff\xffx"))
	f.Add([]byte("MESSAGE=a\n\n\n\nSYSLOG_IDENTIFIER=b\n_COMM=c\nSYSLOG_PID=4"))
	f.Add([]byte("__REALTIME_TIMESTAMP=18446744073709551615\nMESSAGE=far future\n\n"))
	f.Add([]byte("=\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var first []journal.Entry
		err := journal.ParseExport(bytes.NewReader(data), func(e journal.Entry) error {
			if len(e.Message) > journal.MaxMessageBytes {
				t.Fatalf("message of %d bytes exceeds the cap", len(e.Message))
			}
			if e.Priority < -1 || e.Priority > 7 {
				t.Fatalf("priority %d out of range", e.Priority)
			}
			first = append(first, e)
			return nil
		})
		if err != nil {
			if !errors.Is(err, journal.ErrBadExport) {
				t.Fatalf("error %v does not wrap ErrBadExport", err)
			}
			return
		}
		second, err := parseAll(string(encodeExport(first)))
		if err != nil {
			t.Fatalf("re-encoded entries do not parse: %v", err)
		}
		if !reflect.DeepEqual(first, second) {
			t.Fatalf("round trip changed entries:\n%+v\n%+v", first, second)
		}
	})
}
