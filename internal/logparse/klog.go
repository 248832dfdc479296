package logparse

import "time"

// klog reads a klog header, "E1129 14:26:31.123456    2817 file.go:96] msg",
// as written by the kubelet and kube-proxy. The stamp has no year: inside a
// journal line it takes the year of the journal stamp, otherwise the Hint's.
func (p *parser) klog(rec *Record, b []byte) bool {
	h, ok := klogHeaderAt(b)
	if !ok {
		return false
	}
	var t time.Time
	if rec.Time.IsZero() {
		t = p.yearless(h.month, h.day, h.clock)
	} else {
		t = p.nearYear(rec.Time, h.month, h.day, h.clock)
	}
	refineTime(rec, t)
	rec.Level = h.level
	rec.Text = string(b[h.textStart:])
	return true
}

type klogHeader struct {
	level     Level
	month     time.Month
	day       int
	clock     clock
	textStart int
}

// maxKlogCaller bounds the "thread file.go:line]" part of a klog header.
const maxKlogCaller = 256

func klogHeaderAt(b []byte) (klogHeader, bool) {
	var h klogHeader
	if len(b) < 15 || b[5] != ' ' {
		return h, false
	}
	switch b[0] {
	case 'I':
		h.level = LevelInfo
	case 'W':
		h.level = LevelWarn
	case 'E':
		h.level = LevelError
	case 'F':
		h.level = LevelFatal
	default:
		return h, false
	}
	month, ok1 := digitsAt(b, 1, 2)
	day, ok2 := digitsAt(b, 3, 2)
	if !ok1 || !ok2 || month < 1 || month > 12 || day < 1 || day > 31 {
		return h, false
	}
	h.month, h.day = time.Month(month), day
	c, n, ok := clockAt(b, 6)
	if !ok {
		return h, false
	}
	h.clock = c
	i := skipSpaces(b, 6+n)
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i >= len(b) || b[i] != ' ' {
		return h, false
	}
	return klogCallerEnd(b, i+1, h)
}

// klogCallerEnd finds the "file.go:96]" that closes the header and where
// the message starts.
func klogCallerEnd(b []byte, i int, h klogHeader) (klogHeader, bool) {
	sawColon := false
	for j := i; j < len(b) && j-i <= maxKlogCaller; j++ {
		switch b[j] {
		case ':':
			sawColon = true
		case ' ':
			return h, false
		case ']':
			if !sawColon {
				return h, false
			}
			h.textStart = j + 1
			if h.textStart < len(b) && b[h.textStart] == ' ' {
				h.textStart++
			}
			return h, true
		}
	}
	return h, false
}
