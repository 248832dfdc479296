package source

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// spool holds journal lines read newest first in a scratch file, so that
// they can be written to the bundle oldest first without reading the
// journal twice or holding the lines in memory.
type spool struct {
	f     *os.File
	w     *bufio.Writer
	size  int64
	lines []spooledLine
	boots []string // boot ids, indexed by spooledLine.boot
}

// spooledLine is where one line sits in the scratch file.
type spooledLine struct {
	offset int64
	length int32
	boot   int32
}

// spoolWindow is how much of the scratch file one read brings in when the
// lines are replayed.
const spoolWindow = 1 << 20

// newSpool creates the scratch file in dir.
func newSpool(dir string) (*spool, error) {
	f, err := os.CreateTemp(dir, "journal-spool-*")
	if err != nil {
		return nil, fmt.Errorf("journal spool: %w", err)
	}
	return &spool{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// remove deletes the scratch file.
func (s *spool) remove() {
	_ = s.f.Close()
	_ = os.Remove(s.f.Name())
}

// count is how many lines the spool holds.
func (s *spool) count() int { return len(s.lines) }

// add stores one line of boot bootID; lines come newest first.
func (s *spool) add(bootID, line string) error {
	if len(s.boots) == 0 || s.boots[len(s.boots)-1] != bootID {
		s.boots = append(s.boots, bootID)
	}
	if _, err := s.w.WriteString(line); err != nil {
		return fmt.Errorf("journal spool: %w", err)
	}
	s.lines = append(s.lines, spooledLine{offset: s.size, length: int32(len(line)), boot: int32(len(s.boots) - 1)})
	s.size += int64(len(line))
	return nil
}

// replay calls emit for every line, oldest first.
func (s *spool) replay(emit func(bootID, line string) error) error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("journal spool: %w", err)
	}
	var window []byte
	var windowStart int64
	for i := len(s.lines) - 1; i >= 0; i-- {
		l := s.lines[i]
		end := l.offset + int64(l.length)
		if l.offset < windowStart || end > windowStart+int64(len(window)) {
			var err error
			if window, windowStart, err = s.load(l); err != nil {
				return err
			}
		}
		from := l.offset - windowStart
		if err := emit(s.boots[l.boot], string(window[from:from+int64(l.length)])); err != nil {
			return err
		}
	}
	return nil
}

// load reads the part of the scratch file that ends with line l: the lines
// replayed next (older ones) lie just before it.
func (s *spool) load(l spooledLine) ([]byte, int64, error) {
	end := l.offset + int64(l.length)
	start := max(end-spoolWindow, 0)
	if start > l.offset {
		start = l.offset
	}
	buf := make([]byte, end-start)
	if _, err := s.f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, fmt.Errorf("journal spool: %w", err)
	}
	return buf, start, nil
}
