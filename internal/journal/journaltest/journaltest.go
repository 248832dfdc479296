// Package journaltest makes real systemd journal files for tests, from
// journal export text that people can read and edit.
//
// Fixture text is the journal export format (`journalctl -o export`):
// "NAME=value" lines, an empty line after each entry. Write accepts two
// conveniences on top: lines starting with '#' are comments, and the last
// entry needs no closing empty line. Each entry must carry
// __REALTIME_TIMESTAMP (microseconds since the epoch) and _BOOT_ID, because
// systemd-journal-remote silently copies them from the previous entry when
// they are missing; Write adds __MONOTONIC_TIMESTAMP when it is absent (see
// addMonotonic). Values
// that hold a newline are written with Export, which uses the binary form of
// the format.
package journaltest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// remoteBinaries are the places systemd-journal-remote is installed.
var remoteBinaries = []string{
	"/lib/systemd/systemd-journal-remote",
	"/usr/lib/systemd/systemd-journal-remote",
}

// writeTimeout bounds one run of systemd-journal-remote.
const writeTimeout = 30 * time.Second

// Available tells whether systemd-journal-remote is installed, so that Write
// can make journal files.
func Available() bool {
	return remoteBinary() != ""
}

// remoteBinary returns the path of systemd-journal-remote, or "".
func remoteBinary() string {
	for _, path := range remoteBinaries {
		if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return path
		}
	}
	return ""
}

// Write turns export text into a journal file in dir (created if needed) and
// returns its path: dir/system.journal, or dir/system-N.journal when that
// name is taken, so calling Write twice makes two files. It skips the test
// when systemd-journal-remote is not installed and fails it when the text is
// not valid fixture text or journal-remote does not write every entry.
func Write(t testing.TB, dir string, export []byte) string {
	t.Helper()
	binaryPath := remoteBinary()
	if binaryPath == "" {
		t.Skipf("journaltest: systemd-journal-remote is not installed (looked in %v); install the systemd-journal-remote package", remoteBinaries)
	}
	entries, err := parseFixture(export)
	if err != nil {
		t.Fatalf("journaltest: fixture text: %v", err)
	}
	if err := addMonotonic(entries); err != nil {
		t.Fatalf("journaltest: fixture text: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("journaltest: %v", err)
	}
	out := freeJournalName(dir)
	if err := runRemote(binaryPath, out, encode(entries), len(entries)); err != nil {
		t.Fatalf("journaltest: writing %s: %v", out, err)
	}
	return out
}

// freeJournalName picks the first unused system[-N].journal name in dir.
func freeJournalName(dir string) string {
	name := filepath.Join(dir, "system.journal")
	for n := 2; fileExists(name); n++ {
		name = filepath.Join(dir, fmt.Sprintf("system-%d.journal", n))
	}
	return name
}

// fileExists tells whether anything exists at path.
func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// writtenCount finds journal-remote's report of how many entries it wrote.
var writtenCount = regexp.MustCompile(`Finishing after writing (\d+) entries`)

// runRemote feeds export data to systemd-journal-remote and checks that it
// wrote want entries to out.
func runRemote(binaryPath, out string, export []byte, want int) error {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binaryPath, "--output="+out, "--split-mode=none", "-")
	cmd.Stdin = bytes.NewReader(export)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w: %s", binaryPath, err, stderr.String())
	}
	found := writtenCount.FindStringSubmatch(stderr.String())
	if found == nil {
		return fmt.Errorf("%s did not say how many entries it wrote: %s", binaryPath, stderr.String())
	}
	if got, _ := strconv.Atoi(found[1]); got != want {
		return fmt.Errorf("%s wrote %d of %d entries: %s", binaryPath, got, want, stderr.String())
	}
	return nil
}

// field is one NAME=value pair of a fixture entry.
type field struct {
	name  string
	value []byte
}

// entry is the fields of one fixture entry, in order.
type entry []field

// get returns the value of the first field called name.
func (e entry) get(name string) ([]byte, bool) {
	for _, f := range e {
		if f.name == name {
			return f.value, true
		}
	}
	return nil, false
}

// Export renders entries in the journal export format. Each entry is a list
// of "NAME=value" strings; a value holding a newline or another control
// character is written in the binary form, so multi-line messages survive.
func Export(entries ...[]string) []byte {
	var out []entry
	for _, fields := range entries {
		var e entry
		for _, f := range fields {
			name, value, _ := bytes.Cut([]byte(f), []byte("="))
			e = append(e, field{name: string(name), value: value})
		}
		out = append(out, e)
	}
	return encode(out)
}

// encode writes entries in the export format.
func encode(entries []entry) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		for _, f := range e {
			if isPlainText(f.value) {
				fmt.Fprintf(&b, "%s=%s\n", f.name, f.value)
				continue
			}
			b.WriteString(f.name)
			b.WriteByte('\n')
			_ = binary.Write(&b, binary.LittleEndian, uint64(len(f.value)))
			b.Write(f.value)
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// isPlainText tells whether a value can be written as a text line.
func isPlainText(value []byte) bool {
	for _, c := range value {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// parseFixture splits export text into entries, dropping comment lines. It
// reads the binary form too.
func parseFixture(data []byte) ([]entry, error) {
	var entries []entry
	var current entry
	for lineNo := 1; len(data) > 0; lineNo++ {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		data = rest
		switch {
		case len(line) == 0:
			if len(current) > 0 {
				entries = append(entries, current)
			}
			current = nil
		case line[0] == '#':
		case bytes.IndexByte(line, '=') >= 0:
			name, value, _ := bytes.Cut(line, []byte("="))
			if !validFieldName(name) {
				return nil, fmt.Errorf("line %d: invalid field name %q (want A-Z, 0-9 and _)", lineNo, name)
			}
			current = append(current, field{name: string(name), value: value})
		case !validFieldName(line):
			return nil, fmt.Errorf("line %d: %q is neither NAME=value nor a binary field name", lineNo, line)
		default:
			value, rest, err := cutBinaryValue(data)
			if err != nil {
				return nil, fmt.Errorf("line %d: binary field %s: %w", lineNo, line, err)
			}
			data = rest
			current = append(current, field{name: string(line), value: value})
		}
	}
	if len(current) > 0 {
		entries = append(entries, current)
	}
	if len(entries) == 0 {
		return nil, errors.New("no entries")
	}
	return entries, nil
}

// validFieldName accepts journal field names: upper-case letters, digits
// and underscores.
func validFieldName(name []byte) bool {
	if len(name) == 0 {
		return false
	}
	for _, c := range name {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// cutBinaryValue reads the length, bytes and newline of a binary field.
func cutBinaryValue(data []byte) (value, rest []byte, err error) {
	if len(data) < 8 {
		return nil, nil, errors.New("missing length")
	}
	n := binary.LittleEndian.Uint64(data)
	data = data[8:]
	if n > uint64(len(data)) || n == uint64(len(data)) || data[n] != '\n' {
		return nil, nil, fmt.Errorf("value of %d bytes not followed by a newline", n)
	}
	return data[:n], data[n+1:], nil
}

// addMonotonic checks the fields every entry needs and gives entries without
// __MONOTONIC_TIMESTAMP their realtime value as one. A real boot's clock
// starts near zero, but any clock that runs with the realtime one keeps
// entries of one boot in time order, also across files written by separate
// calls.
func addMonotonic(entries []entry) error {
	for i, e := range entries {
		_, realtime, err := required(e)
		if err != nil {
			return fmt.Errorf("entry %d: %w", i+1, err)
		}
		if _, ok := e.get("__MONOTONIC_TIMESTAMP"); !ok {
			entries[i] = append(e, field{name: "__MONOTONIC_TIMESTAMP", value: []byte(strconv.FormatUint(realtime, 10))})
		}
	}
	return nil
}

// required returns the boot id and realtime of an entry, or why it lacks them.
func required(e entry) (string, uint64, error) {
	boot, ok := e.get("_BOOT_ID")
	if !ok {
		return "", 0, errors.New("no _BOOT_ID field")
	}
	realtime, ok := e.get("__REALTIME_TIMESTAMP")
	if !ok {
		return "", 0, errors.New("no __REALTIME_TIMESTAMP field")
	}
	micros, err := strconv.ParseUint(string(realtime), 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("__REALTIME_TIMESTAMP %q: %w", realtime, err)
	}
	return string(boot), micros, nil
}
