package logparse

import "time"

// journalShort reads "Jun 06 19:33:03[.123456] host ident[pid]: payload",
// the shape of journalctl's default output and of classic syslog files
// (which pad the day with a space: "Jun  6").
func (p *parser) journalShort(rec *Record, line []byte, depth int) bool {
	month, day, c, n, ok := shortStampAt(line)
	if !ok {
		return false
	}
	ident, payload, ok := hostAndIdent(line, n)
	if !ok {
		return false
	}
	refineTime(rec, p.yearless(month, day, c))
	p.journalRest(rec, ident, payload, depth)
	return true
}

// journalISO reads "2026-11-29T14:26:31[.123456]+00:00 host ident[pid]: payload"
// (journalctl -o short-iso and short-iso-precise; also "+0000").
func (p *parser) journalISO(rec *Record, line []byte, depth int) bool {
	t, n, _, ok := isoAt(line, 0, "T", p.loc)
	if !ok {
		return false
	}
	ident, payload, ok := hostAndIdent(line, n)
	if !ok {
		return false
	}
	refineTime(rec, t)
	p.journalRest(rec, ident, payload, depth)
	return true
}

func (p *parser) journalRest(rec *Record, ident, payload []byte, depth int) {
	rec.Source = sourceName(ident)
	p.payload(rec, payload, depth)
}

// shortStampAt reads "Mon DD HH:MM:SS[.frac] " at the start of line and
// returns how many bytes it took (up to the space after the stamp).
func shortStampAt(line []byte) (month time.Month, day int, c clock, n int, ok bool) {
	month, ok = monthAt(line, 0)
	if !ok || len(line) < 16 || line[3] != ' ' || line[6] != ' ' {
		return 0, 0, c, 0, false
	}
	if line[4] == ' ' {
		day, ok = digitsAt(line, 5, 1)
	} else {
		day, ok = digitsAt(line, 4, 2)
	}
	if !ok || day < 1 || day > 31 {
		return 0, 0, c, 0, false
	}
	c, cn, ok := clockAt(line, 7)
	if !ok {
		return 0, 0, c, 0, false
	}
	return month, day, c, 7 + cn, true
}

// maxIdent bounds the length of a syslog identifier with its pid.
const maxIdent = 128

// hostAndIdent reads " host ident[pid]: " starting at line[i] (the space
// after the stamp) and returns the identifier and the payload after ": ".
func hostAndIdent(line []byte, i int) (ident, payload []byte, ok bool) {
	if i >= len(line) || line[i] != ' ' {
		return nil, nil, false
	}
	i++
	hostEnd := indexByteFrom(line, i, ' ')
	if hostEnd <= i || line[i] == '[' {
		return nil, nil, false
	}
	start := hostEnd + 1
	for j := start; j < len(line) && j-start <= maxIdent; j++ {
		switch line[j] {
		case ':':
			if j == start {
				return nil, nil, false
			}
			if j+1 == len(line) {
				return line[start:j], line[j+1:], true
			}
			if line[j+1] == ' ' {
				return line[start:j], line[j+2:], true
			}
		case ' ', '\t':
			return nil, nil, false
		}
	}
	return nil, nil, false
}
