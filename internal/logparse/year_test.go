package logparse

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func readLines(t *testing.T, rel string) [][]byte {
	t.Helper()
	lines, err := fixtureLines(rel)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// fixtureLines reads the lines of a file below testdata/.
func fixtureLines(rel string) ([][]byte, error) {
	f, err := os.Open(filepath.Join("testdata", filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	return lines, nil
}

func TestYearRolloverWithRef(t *testing.T) {
	lines := readLines(t, "rollover/kubelet/kubelet.log")
	want := []time.Time{
		utc(2025, 12, 31, 23, 59, 58, 900000000),
		utc(2026, 1, 1, 0, 0, 0, 100000), // inner klog is already in the new year
		utc(2026, 1, 1, 0, 0, 5, 0),
		utc(2026, 1, 2, 10, 0, 0, 0),
	}
	ref := utc(2026, 1, 2, 10, 5, 0, 0) // bundle made after the last line
	for _, parse := range []struct {
		name string
		fn   func([]byte) Record
	}{
		{"Parse", func(b []byte) Record { return Parse(FormatJournalShort, b, Hint{Ref: ref}) }},
		{"Stream", NewStream(FormatJournalShort, Hint{Ref: ref}).Parse},
	} {
		t.Run(parse.name, func(t *testing.T) {
			for i, line := range lines {
				if got := parse.fn(line).Time; !got.Equal(want[i]) {
					t.Errorf("line %d: Time = %v, want %v", i+1, got, want[i])
				}
			}
		})
	}
}

func TestYearRolloverStreamWithYear(t *testing.T) {
	lines := readLines(t, "rollover/kubelet/kubelet.log")
	s := NewStream(FormatJournalShort, Hint{Year: 2025})
	wantYears := []int{2025, 2026, 2026, 2026}
	for i, line := range lines {
		if got := s.Parse(line).Time.Year(); got != wantYears[i] {
			t.Errorf("line %d: year %d, want %d", i+1, got, wantYears[i])
		}
	}
	if s.Format() != FormatJournalShort {
		t.Errorf("Format() = %v", s.Format())
	}
}

func TestStreamOnlySeesSomeLines(t *testing.T) {
	s := NewStream(FormatKlog, Hint{Year: 2025})
	lines := []string{
		"E1130 10:00:00.000000 1 a.go:1] november",
		"E1231 10:00:00.000000 1 a.go:1] december",
		"E1231 09:00:00.000000 1 a.go:1] clock stepped back a little",
		"E0315 10:00:00.000000 1 a.go:1] march, next year",
		"E0301 10:00:00.000000 1 a.go:1] clock correction back one month stays in the year",
	}
	want := []int{2025, 2025, 2025, 2026, 2026}
	for i, line := range lines {
		if got := s.Parse([]byte(line)).Time.Year(); got != want[i] {
			t.Errorf("%q: year %d, want %d", line, got, want[i])
		}
	}
}

func TestYearFromRef(t *testing.T) {
	cases := []struct {
		name string
		ref  time.Time
		line string
		want time.Time
	}{
		{"same year", utc(2026, 11, 29, 15, 0, 0, 0), "Nov 29 14:00:00 h a: x", utc(2026, 11, 29, 14, 0, 0, 0)},
		{"later month is last year", utc(2026, 3, 1, 0, 0, 0, 0), "Nov 29 14:00:00 h a: x", utc(2025, 11, 29, 14, 0, 0, 0)},
		{"a day ahead of ref (time zones) stays", utc(2026, 12, 31, 20, 0, 0, 0), "Jan 01 08:00:00 h a: x", utc(2027, 1, 1, 8, 0, 0, 0)},
		{"leap day picks a leap year", utc(2027, 6, 1, 0, 0, 0, 0), "Feb 29 12:00:00 h a: x", utc(2024, 2, 29, 12, 0, 0, 0)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Parse(FormatJournalShort, []byte(tc.line), Hint{Ref: tc.ref}).Time
			if !got.Equal(tc.want) {
				t.Errorf("Time = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestLocationForZonelessStamps(t *testing.T) {
	loc := time.FixedZone("UTC+9", 9*3600)
	got := Parse(FormatJournalShort, []byte("Nov 29 23:00:00 h kubelet[1]: x"), Hint{Year: 2026, Location: loc}).Time
	if want := utc(2026, 11, 29, 14, 0, 0, 0); !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("Time = %v, want %v in UTC", got, want)
	}
}

func TestLegacyNodeadmUsesItsOwnYear(t *testing.T) {
	lines := readLines(t, "legacy/nodeadm/nodeadm-config.log")
	ref, ok := TimeFromBundleName("eks_i-049d185b673566680_2024-03-03_2130-UTC_0.7.6.tar.gz")
	if !ok {
		t.Fatal("bundle name not read")
	}
	rec := Parse(FormatJournalShort, lines[2], Hint{Ref: ref, Source: "nodeadm"})
	assertRecord(t, rec, Record{
		Time: utc(2024, 3, 3, 21, 11, 29, 810000000), Level: LevelFatal, Source: "nodeadm",
		Text: `Command failed {"error": "yaml: line 4: could not find expected ':'"}`,
	})
}

func TestTimeFromBundleName(t *testing.T) {
	cases := []struct {
		name string
		want time.Time
		ok   bool
	}{
		{"eks_i-049d185b673566680_2025-03-06_1822-UTC_0.7.8.tar.gz", utc(2025, 3, 6, 18, 22, 0, 0), true},
		{"/var/log/eks_i-049d185b673566680_2025-03-06_1822-UTC_0.7.8.tgz", utc(2025, 3, 6, 18, 22, 0, 0), true},
		{"eks__2025-03-06_1822-UTC_0.7.8.tar.gz", utc(2025, 3, 6, 18, 22, 0, 0), true},
		{"eks_i-0abc_20261129T142631Z_nodetriage.tar.gz", utc(2026, 11, 29, 14, 26, 31, 0), true},
		{"eks_i-0abc_2026-11-29T14-26-31Z_nodetriage.tar.zst", utc(2026, 11, 29, 14, 26, 31, 0), true},
		{"eks_i-0abc_2026-11-29T14:26:31Z_nodetriage.zip", utc(2026, 11, 29, 14, 26, 31, 0), true},
		{"eks_i-2025030612345678a_nodetriage.tar.gz", time.Time{}, false},
		{"eks_i-0abc_20261129_nodetriage", utc(2026, 11, 29, 0, 0, 0, 0), true},
		{"node-logs-2024-07-04.tgz", utc(2024, 7, 4, 0, 0, 0, 0), true},
		{`C:\Users\me\eks_i-1_2024-07-04_0910-UTC_0.7.8.tar.gz`, utc(2024, 7, 4, 9, 10, 0, 0), true},
		{"bundle-2024-02-30.tgz", time.Time{}, false},
		{"build123456789.tgz", time.Time{}, false},
		{"logs.tar.gz", time.Time{}, false},
		{"", time.Time{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := TimeFromBundleName(tc.name)
			if ok != tc.ok || !got.Equal(tc.want) {
				t.Errorf("TimeFromBundleName = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
			year, ok := YearFromBundleName(tc.name)
			if ok != tc.ok || tc.ok && year != tc.want.Year() {
				t.Errorf("YearFromBundleName = %d, %v", year, ok)
			}
		})
	}
}
