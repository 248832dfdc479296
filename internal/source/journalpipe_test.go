package source

import (
	"errors"
	"testing"
)

// TestPipedFileKeepsOrderAndProtectPosition writes through a pipedFile and
// checks the staged text and where the protected tail starts.
func TestPipedFileKeepsOrderAndProtectPosition(t *testing.T) {
	cases := []struct {
		name          string
		chunks        []string // "" marks a Protect call
		want          string
		wantProtected int64
	}{
		{"no protect", []string{"a\n", "b\n"}, "a\nb\n", 0},
		{"protect in the middle", []string{"old\n", "", "new\n", "newer\n"}, "old\nnew\nnewer\n", 10},
		{"protect twice", []string{"1\n", "", "2\n", "", "3\n"}, "1\n2\n3\n", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStage(t, StageOptions{})
			f, err := s.Sink("test").Create("x.log")
			if err != nil {
				t.Fatal(err)
			}
			p := newPipedFile(f)
			for _, c := range tc.chunks {
				if c == "" {
					p.Protect()
					continue
				}
				if _, err := p.Write([]byte(c)); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.wait(); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if got := readStaged(t, s, "x.log"); got != tc.want {
				t.Errorf("staged %q, want %q", got, tc.want)
			}
			if rec := s.Records()[0]; rec.ProtectedTail != tc.wantProtected {
				t.Errorf("protected tail %d, want %d", rec.ProtectedTail, tc.wantProtected)
			}
		})
	}
}

// TestPipedFileReportsWriteErrors checks that a failed write of the staged
// file (here: the stage was sealed) comes back from wait.
func TestPipedFileReportsWriteErrors(t *testing.T) {
	s := newTestStage(t, StageOptions{})
	f, err := s.Sink("test").Create("x.log")
	if err != nil {
		t.Fatal(err)
	}
	p := newPipedFile(f)
	s.Seal()
	_, _ = p.Write([]byte("late\n"))
	if err := p.wait(); !errors.Is(err, ErrSealed) {
		t.Errorf("wait() = %v, want ErrSealed", err)
	}
}
