package journal

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestUnitPattern(t *testing.T) {
	cases := map[string]string{
		"kubelet":                   "kubelet.service",
		" containerd ":              "containerd.service",
		"udev-net-manager@eth0":     "udev-net-manager@eth0.service",
		"udev-net-manager@*":        "udev-net-manager@*",
		"cloud-*":                   "cloud-*",
		"runtime.slice":             "runtime.slice",
		"soci-snapshotter.socket":   "soci-snapshotter.socket",
		"dev-nvme0n1.device":        "dev-nvme0n1.device",
		"nodeadm-config.service":    "nodeadm-config.service",
		"a.b":                       "a.b.service",
		".service":                  ".service.service",
		"systemd-fsck@dev-x\\x2d1?": "systemd-fsck@dev-x\\x2d1?",
	}
	for in, want := range cases {
		if got := unitPattern(in); got != want {
			t.Errorf("unitPattern(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGlobMatches(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"udev-net-manager@*", "udev-net-manager@eth0.service", true},
		{"udev-net-manager@*", "udev-net-manager.service", false},
		{"cloud-*", "cloud-final.service", true},
		{"cloud-*", "amazon-cloudwatch-agent.service", false},
		{"kubelet.servic?", "kubelet.service", true},
		{`dev-disk-by\x2duuid-*`, `dev-disk-by\x2duuid-1234.device`, true},
		{"[", "[", false},
	}
	for _, tc := range cases {
		if got := globMatches(tc.pattern, tc.name); got != tc.want {
			t.Errorf("globMatches(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

func TestNormalizeBootID(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"", "", true},
		{"0123456789abcdef0123456789ABCDEF", "0123456789abcdef0123456789abcdef", true},
		{"01234567-89ab-cdef-0123-456789abcdef", "0123456789abcdef0123456789abcdef", true},
		{"0123", "", false},
		{"0123456789abcdef0123456789abcdeg", "", false},
	}
	for _, tc := range cases {
		got, err := normalizeBootID(tc.in)
		if got != tc.want || (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrInvalidQuery)) {
			t.Errorf("normalizeBootID(%q) = %q, %v", tc.in, got, err)
		}
	}
}

func TestPlanGroups(t *testing.T) {
	values := map[string][]string{
		"_SYSTEMD_UNIT":       {"udev-net-manager@eth0.service", "kubelet.service", ""},
		"UNIT":                {"udev-net-manager@eth1.service", "nodeadm-config.service"},
		"OBJECT_SYSTEMD_UNIT": {"udev-net-manager@eth0.service"},
	}
	lookups := 0
	lookup := func(field string) ([]string, error) {
		lookups++
		return values[field], nil
	}
	p, err := newPlan(Query{Units: []string{"udev-net-manager@*", "kubelet"}, Boot: strings.Repeat("ab", 16)}, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if lookups != len(unitFields) {
		t.Errorf("%d value lookups, want %d", lookups, len(unitFields))
	}
	wantUnits := []string{"kubelet.service", "udev-net-manager@eth0.service", "udev-net-manager@eth1.service"}
	if got := p.sortedUnits(); !slices.Equal(got, wantUnits) {
		t.Errorf("units %q, want %q", got, wantUnits)
	}
	boot := match{"_BOOT_ID", strings.Repeat("ab", 16)}
	want := [][]match{
		{{"_SYSTEMD_UNIT", wantUnits[0]}, {"_SYSTEMD_UNIT", wantUnits[1]}, {"_SYSTEMD_UNIT", wantUnits[2]}, boot},
		{{"MESSAGE_ID", coredumpMessageID}, {"_UID", "0"}, {"COREDUMP_UNIT", wantUnits[0]}, {"COREDUMP_UNIT", wantUnits[1]}, {"COREDUMP_UNIT", wantUnits[2]}, boot},
		{{"_PID", "1"}, {"UNIT", wantUnits[0]}, {"UNIT", wantUnits[1]}, {"UNIT", wantUnits[2]}, boot},
		{{"_UID", "0"}, {"OBJECT_SYSTEMD_UNIT", wantUnits[0]}, {"OBJECT_SYSTEMD_UNIT", wantUnits[1]}, {"OBJECT_SYSTEMD_UNIT", wantUnits[2]}, boot},
	}
	if !reflect.DeepEqual(p.groups, want) {
		t.Errorf("groups\n got %v\nwant %v", p.groups, want)
	}
}

func TestPlanWithoutPatternsListsNothing(t *testing.T) {
	p, err := newPlan(Query{Units: []string{"kubelet"}}, func(string) ([]string, error) {
		t.Fatal("values looked up for a plain unit name")
		return nil, nil
	})
	if err != nil || len(p.groups) != 4 {
		t.Fatalf("plan %+v, %v", p, err)
	}
	if p, _ := newPlan(Query{}, nil); p.groups != nil {
		t.Errorf("an empty query has matches %v", p.groups)
	}
	if p, _ := newPlan(Query{Kernel: true}, nil); !reflect.DeepEqual(p.groups, [][]match{{{"_TRANSPORT", "kernel"}}}) {
		t.Errorf("kernel query has matches %v", p.groups)
	}
}

func TestPlanAccepts(t *testing.T) {
	since := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	p, err := newPlan(Query{Units: []string{"nodeadm-config", "runtime.slice"}, Since: since}, nil)
	if err != nil {
		t.Fatal(err)
	}
	at := since.Add(time.Second)
	cases := []struct {
		name string
		rec  record
		want bool
	}{
		{"own line", record{Entry: Entry{Time: at, Unit: "nodeadm-config.service"}}, true},
		{"PID 1 about it", record{Entry: Entry{Time: at}, pid: "1", aboutUnit: "nodeadm-config.service"}, true},
		{"other process about it", record{Entry: Entry{Time: at}, pid: "42", aboutUnit: "nodeadm-config.service"}, false},
		{"root object line", record{Entry: Entry{Time: at}, uid: "0", objectUnit: "nodeadm-config.service"}, true},
		{"user object line", record{Entry: Entry{Time: at}, uid: "1000", objectUnit: "nodeadm-config.service"}, false},
		{"core dump", record{Entry: Entry{Time: at}, uid: "0", messageID: coredumpMessageID, coredumpUnit: "nodeadm-config.service"}, true},
		{"core dump lacking its id", record{Entry: Entry{Time: at}, uid: "0", coredumpUnit: "nodeadm-config.service"}, false},
		{"unit in the slice", record{Entry: Entry{Time: at, Unit: "kubelet.service"}, slice: "runtime.slice"}, true},
		{"too old", record{Entry: Entry{Time: since.Add(-time.Microsecond), Unit: "nodeadm-config.service"}}, false},
		{"at the bound", record{Entry: Entry{Time: since, Unit: "nodeadm-config.service"}}, true},
		{"other unit", record{Entry: Entry{Time: at, Unit: "kubelet.service"}}, false},
	}
	for _, tc := range cases {
		if got := p.accepts(&tc.rec); got != tc.want {
			t.Errorf("%s: accepts = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSinceMicrosRoundsUp(t *testing.T) {
	base := time.UnixMicro(1795946400000000)
	for _, tc := range []struct {
		since time.Time
		want  int64
	}{
		{base, 1795946400000000},
		{base.Add(time.Nanosecond), 1795946400000001},
		{base.Add(999 * time.Nanosecond), 1795946400000001},
	} {
		p := plan{since: tc.since}
		if got := p.sinceMicros(); got != tc.want {
			t.Errorf("sinceMicros(%v) = %d, want %d", tc.since, got, tc.want)
		}
	}
}

// header builds the first bytes of a journal file.
func header(magic string, headerSize, arenaSize uint64) []byte {
	h := make([]byte, headerPrefixBytes)
	copy(h, magic)
	binary.LittleEndian.PutUint64(h[headerSizeOffset:], headerSize)
	binary.LittleEndian.PutUint64(h[arenaSizeOffset:], arenaSize)
	return h
}

func TestValidateHeader(t *testing.T) {
	cases := []struct {
		name     string
		header   []byte
		fileSize int64
		wantErr  string
	}{
		{"sound", header("LPKSHHRH", 272, 8000), 8272, ""},
		{"file larger than arena", header("LPKSHHRH", 272, 8000), 9000, ""},
		{"bad signature", header("XPKSHHRH", 272, 8000), 8272, "bad signature"},
		{"truncated copy", header("LPKSHHRH", 272, 8000), 4096, "truncated"},
		{"header bigger than file", header("LPKSHHRH", 9000, 0), 4096, "header size"},
		{"header too small", header("LPKSHHRH", 8, 0), 4096, "header size"},
		{"arena overflows", header("LPKSHHRH", 272, ^uint64(0)), 4096, "truncated"},
	}
	for _, tc := range cases {
		err := validateHeader(tc.header, tc.fileSize)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.wantErr)
		}
	}
}

func TestFindJournalFiles(t *testing.T) {
	root := t.TempDir()
	sound := header("LPKSHHRH", headerPrefixBytes, 0)
	files := map[string][]byte{
		"a/system.journal":                  sound,
		"a/system@0001-0002.journal~":       sound,
		"b/c/user-1000.journal":             sound,
		"b/c/d/deepest.journal":             sound,
		"b/c/d/e/too-deep.journal":          sound,
		"a/notes.txt":                       sound,
		"a/short.journal":                   []byte("LPK"),
		"remote/remote-10.0.0.1.journal":    sound,
		"remote/not-a-journal.journal.gz":   sound,
		"machine/system.journal.unfinished": sound,
	}
	for name, data := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := findJournalFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, p := range got.paths {
		r, _ := filepath.Rel(root, p)
		rel = append(rel, r)
	}
	want := []string{"a/system.journal", "a/system@0001-0002.journal~", "b/c/d/deepest.journal", "b/c/user-1000.journal", "remote/remote-10.0.0.1.journal"}
	if !slices.Equal(rel, want) {
		t.Errorf("files %q, want %q", rel, want)
	}
	if err := got.err(); !errors.Is(err, ErrUnreadableFile) || !strings.Contains(err.Error(), "short.journal") {
		t.Errorf("problems %v, want short.journal reported", err)
	}
}
