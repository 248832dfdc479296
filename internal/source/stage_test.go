package source

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodetriage/nodetriage/internal/redact"
)

// redactFilter adapts the real redactor to the stage's Filter.
type redactFilter struct{ r *redact.Redactor }

func (f redactFilter) Wrap(dst io.Writer) FilterWriter { return f.r.NewWriter(dst) }

func newTestStage(t *testing.T, opts StageOptions) *Stage {
	t.Helper()
	return NewStage(t.TempDir(), opts)
}

func readStaged(t *testing.T, s *Stage, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(s.Dir(), filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func record(t *testing.T, s *Stage, name string) Record {
	t.Helper()
	for _, r := range s.Records() {
		if r.Path == name {
			return r
		}
	}
	t.Fatalf("no record for %s", name)
	return Record{}
}

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %04d of the log\n", i)
	}
	return b.String()
}

func TestStageKeepsNewestLinesUnderTheCap(t *testing.T) {
	tests := []struct {
		name     string
		cap      int64
		lines    int
		wantCut  bool
		wantLast string
	}{
		{"under the cap", 4096, 10, false, "line 0010 of the log\n"},
		{"far over the cap", 1000, 500, true, "line 0500 of the log\n"},
		{"no cap", 0, 500, false, "line 0500 of the log\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStage(t, StageOptions{MaxFileBytes: tt.cap})
			f, err := s.Sink("src").Create("var_log/messages")
			if err != nil {
				t.Fatal(err)
			}
			text := numberedLines(tt.lines)
			for _, line := range strings.SplitAfter(text, "\n") {
				if _, err := f.WriteString(line); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			got := readStaged(t, s, "var_log/messages")
			rec := record(t, s, "var_log/messages")
			if rec.Truncated != tt.wantCut || rec.OriginalBytes != int64(len(text)) || rec.Bytes != int64(len(got)) {
				t.Fatalf("record = %+v; want truncated=%v original=%d bytes=%d", rec, tt.wantCut, len(text), len(got))
			}
			if tt.cap > 0 && int64(len(got)) > tt.cap {
				t.Fatalf("kept %d bytes, cap %d", len(got), tt.cap)
			}
			if !strings.HasSuffix(got, tt.wantLast) || !strings.HasPrefix(got, "line ") {
				t.Fatalf("kept text does not end with the newest line or starts mid-line: %q...", got[:min(40, len(got))])
			}
		})
	}
}

func TestStageCutAndSeal(t *testing.T) {
	s := newTestStage(t, StageOptions{})
	if err := writeFile(s.Sink("a"), "kubelet/kubelet.log", []byte(numberedLines(100))); err != nil {
		t.Fatal(err)
	}
	if err := s.Cut("kubelet/kubelet.log", 45); err != nil {
		t.Fatal(err)
	}
	got := readStaged(t, s, "kubelet/kubelet.log")
	if got != "line 0099 of the log\nline 0100 of the log\n" {
		t.Fatalf("after Cut: %q", got)
	}
	if rec := record(t, s, "kubelet/kubelet.log"); !rec.Truncated || rec.Bytes != int64(len(got)) || rec.OriginalBytes != 2100 {
		t.Fatalf("record after Cut = %+v", rec)
	}
	if err := s.Cut("kubelet/kubelet.log", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), "kubelet", "kubelet.log")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a file cut to 0 bytes is still staged: %v", err)
	}

	open, err := s.Sink("b").Create("late/file.txt")
	if err != nil {
		t.Fatal(err)
	}
	open.WriteString("before the seal\n")
	s.Seal()
	if _, err := open.WriteString("after the seal\n"); !errors.Is(err, ErrSealed) {
		t.Fatalf("write after Seal: %v, want ErrSealed", err)
	}
	if _, err := s.Sink("c").Create("new.txt"); !errors.Is(err, ErrSealed) {
		t.Fatalf("create after Seal: %v, want ErrSealed", err)
	}
	if got := readStaged(t, s, "late/file.txt"); got != "before the seal\n" {
		t.Fatalf("sealed file = %q", got)
	}
}

func TestStageRejectsBadAndDuplicateNames(t *testing.T) {
	s := newTestStage(t, StageOptions{})
	for _, name := range []string{"", "/etc/passwd", "../x", "a/../../x", "."} {
		if _, err := s.Sink("a").Create(name); !errors.Is(err, ErrBadName) {
			t.Errorf("Create(%q) = %v, want ErrBadName", name, err)
		}
	}
	if err := writeFile(s.Sink("a"), "x/y.txt", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sink("b").Create("x/./y.txt"); !errors.Is(err, ErrExists) {
		t.Fatalf("second Create = %v, want ErrExists", err)
	}
}

func TestStageRedactsAndCounts(t *testing.T) {
	s := newTestStage(t, StageOptions{Filter: redactFilter{redact.New(redact.DefaultRules())}})
	secret := "AKIAIOSFODNN7EXAMPLE"
	if err := writeFile(s.Sink("a"), "userdata/part-1.sh", []byte("export AWS_ACCESS_KEY_ID="+secret+"\necho ok\n")); err != nil {
		t.Fatal(err)
	}
	got := readStaged(t, s, "userdata/part-1.sh")
	if strings.Contains(got, secret) || !strings.Contains(got, "echo ok") {
		t.Fatalf("staged text = %q", got)
	}
	rec := record(t, s, "userdata/part-1.sh")
	total := 0
	for _, n := range rec.Redactions {
		total += n
	}
	if total == 0 {
		t.Fatalf("no redaction counted: %+v", rec)
	}
}
