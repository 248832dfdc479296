package logparse

import "time"

// Stream parses the lines of one file in order. With Hint.Ref set it gives
// the same records as Parse. With only Hint.Year it starts in that year and
// moves to the next one when the months of year-less stamps wrap
// (December, then January), so a file that crosses New Year stays in order.
// Lines skipped between calls are fine as long as the gaps are shorter than
// half a year. A Stream is not safe for concurrent use.
type Stream struct {
	format    Format
	hint      Hint
	year      int
	lastMonth time.Month
}

// NewStream returns a Stream for a file in format f.
func NewStream(f Format, h Hint) *Stream {
	return &Stream{format: f, hint: h, year: h.Year}
}

// Format returns the format the Stream parses.
func (s *Stream) Format() Format { return s.format }

// Parse parses the next line of the file.
func (s *Stream) Parse(line []byte) Record {
	p := newParser(s.hint, s)
	return p.parse(s.format, line)
}

// wrapGap is how many months backwards a stamp must jump to count as a new
// year rather than a clock correction.
const wrapGap = 6

// yearFor returns the year of a year-less stamp in month, after the stamps
// seen so far.
func (s *Stream) yearFor(month time.Month) int {
	if s.year == 0 {
		return 0
	}
	if s.lastMonth != 0 && int(s.lastMonth)-int(month) > wrapGap {
		s.year++
	}
	s.lastMonth = month
	return s.year
}
