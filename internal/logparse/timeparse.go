package logparse

import "time"

// The stamp readers below work on bytes, never allocate, and return times in
// UTC. Each returns how many bytes it consumed so callers can go on from there.

// digitsAt reads exactly n decimal digits at b[i:].
func digitsAt(b []byte, i, n int) (int, bool) {
	if i < 0 || n <= 0 || i+n > len(b) {
		return 0, false
	}
	v := 0
	for _, c := range b[i : i+n] {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// fractionAt reads the digits of a fractional second at b[i:]. Digits past
// the ninth are consumed but ignored.
func fractionAt(b []byte, i int) (nsec, n int) {
	scale := 100_000_000
	for i+n < len(b) {
		c := b[i+n]
		if c < '0' || c > '9' {
			break
		}
		nsec += int(c-'0') * scale
		scale /= 10
		n++
	}
	return nsec, n
}

// monthAt reads an English three-letter month abbreviation ("Jan").
func monthAt(b []byte, i int) (time.Month, bool) {
	if i < 0 || i+3 > len(b) {
		return 0, false
	}
	switch string(b[i : i+3]) {
	case "Jan":
		return time.January, true
	case "Feb":
		return time.February, true
	case "Mar":
		return time.March, true
	case "Apr":
		return time.April, true
	case "May":
		return time.May, true
	case "Jun":
		return time.June, true
	case "Jul":
		return time.July, true
	case "Aug":
		return time.August, true
	case "Sep":
		return time.September, true
	case "Oct":
		return time.October, true
	case "Nov":
		return time.November, true
	case "Dec":
		return time.December, true
	}
	return 0, false
}

// weekdayAt reports whether b[i:] starts with an English weekday abbreviation.
func weekdayAt(b []byte, i int) bool {
	if i < 0 || i+3 > len(b) {
		return false
	}
	switch string(b[i : i+3]) {
	case "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun":
		return true
	}
	return false
}

// clock is a time of day.
type clock struct {
	hour, min, sec, nsec int
}

// clockAt reads "HH:MM:SS" with an optional ".frac" or ",frac".
func clockAt(b []byte, i int) (clock, int, bool) {
	var c clock
	var ok1, ok2, ok3 bool
	c.hour, ok1 = digitsAt(b, i, 2)
	c.min, ok2 = digitsAt(b, i+3, 2)
	c.sec, ok3 = digitsAt(b, i+6, 2)
	if !ok1 || !ok2 || !ok3 || b[i+2] != ':' || b[i+5] != ':' {
		return c, 0, false
	}
	if c.hour > 23 || c.min > 59 || c.sec > 60 {
		return c, 0, false
	}
	n := 8
	if i+n < len(b) && (b[i+n] == '.' || b[i+n] == ',') {
		nsec, digits := fractionAt(b, i+n+1)
		if digits > 0 {
			c.nsec = nsec
			n += 1 + digits
		}
	}
	return c, n, true
}

// validDate reports whether day exists in month of year.
func validDate(year int, month time.Month, day int) bool {
	if month < time.January || month > time.December || day < 1 {
		return false
	}
	return day <= daysIn(year, month)
}

func daysIn(year int, month time.Month) int {
	switch month {
	case time.February:
		if isLeap(year) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

func isLeap(year int) bool {
	return year%4 == 0 && (year%100 != 0 || year%400 == 0)
}

// dateAt reads "YYYY-MM-DD" (sep '-') or "YYYY/MM/DD" (sep '/').
func dateAt(b []byte, i int, sep byte) (year int, month time.Month, day int, ok bool) {
	y, ok1 := digitsAt(b, i, 4)
	m, ok2 := digitsAt(b, i+5, 2)
	d, ok3 := digitsAt(b, i+8, 2)
	if !ok1 || !ok2 || !ok3 || b[i+4] != sep || b[i+7] != sep {
		return 0, 0, 0, false
	}
	if !validDate(y, time.Month(m), d) {
		return 0, 0, 0, false
	}
	return y, time.Month(m), d, true
}

// zoneAt reads "Z", "+hh:mm", "+hhmm" or "+hh" and returns the offset east
// of UTC in seconds.
func zoneAt(b []byte, i int) (offset, n int, ok bool) {
	if i >= len(b) {
		return 0, 0, false
	}
	switch b[i] {
	case 'Z', 'z':
		return 0, 1, true
	case '+', '-':
	default:
		return 0, 0, false
	}
	hh, okh := digitsAt(b, i+1, 2)
	if !okh || hh > 14 {
		return 0, 0, false
	}
	n = 3
	mm := 0
	if m, okm := digitsAt(b, i+3, 2); okm {
		mm, n = m, 5
	} else if i+3 < len(b) && b[i+3] == ':' {
		m, okm := digitsAt(b, i+4, 2)
		if !okm {
			return 0, 0, false
		}
		mm, n = m, 6
	}
	if mm > 59 {
		return 0, 0, false
	}
	offset = hh*3600 + mm*60
	if b[i] == '-' {
		offset = -offset
	}
	return offset, n, true
}

// isoAt reads "YYYY-MM-DD<sep>HH:MM:SS[.frac][zone]" where sep is one of
// seps. Without a zone the stamp is read in loc. hasZone tells which.
func isoAt(b []byte, i int, seps string, loc *time.Location) (t time.Time, n int, hasZone, ok bool) {
	year, month, day, ok := dateAt(b, i, '-')
	if !ok || i+10 >= len(b) || !containsByte(seps, b[i+10]) {
		return time.Time{}, 0, false, false
	}
	c, cn, ok := clockAt(b, i+11)
	if !ok {
		return time.Time{}, 0, false, false
	}
	n = 11 + cn
	if offset, zn, zok := zoneAt(b, i+n); zok {
		t = time.Date(year, month, day, c.hour, c.min, c.sec, c.nsec, time.UTC)
		return t.Add(-time.Duration(offset) * time.Second), n + zn, true, true
	}
	return time.Date(year, month, day, c.hour, c.min, c.sec, c.nsec, loc).UTC(), n, false, true
}

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

// epochAt reads a Unix time written as a decimal number ("1709500289.81").
// Large integers are taken as milli-, micro- or nanoseconds.
func epochAt(b []byte) (time.Time, bool) {
	i := 0
	var whole int64
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		if whole > 1<<59 {
			return time.Time{}, false
		}
		whole = whole*10 + int64(b[i]-'0')
		i++
	}
	if i == 0 {
		return time.Time{}, false
	}
	nsec := 0
	if i < len(b) && b[i] == '.' {
		var digits int
		nsec, digits = fractionAt(b, i+1)
		i += 1 + digits
	}
	if i != len(b) {
		return time.Time{}, false
	}
	switch {
	case whole >= 1e17:
		return time.Unix(0, whole).UTC(), true
	case whole >= 1e14:
		return time.UnixMicro(whole).UTC(), true
	case whole >= 1e11:
		return time.UnixMilli(whole).UTC(), true
	case whole == 0:
		return time.Time{}, false
	}
	return time.Unix(whole, int64(nsec)).UTC(), true
}

// secondsAt reads "12.345678" (seconds since boot) and returns a duration.
func secondsAt(b []byte, i int) (time.Duration, int, bool) {
	start := i
	var whole int64
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		if whole > 1<<32 {
			return 0, 0, false
		}
		whole = whole*10 + int64(b[i]-'0')
		i++
	}
	if i == start {
		return 0, 0, false
	}
	var nsec int
	if i < len(b) && b[i] == '.' {
		var digits int
		nsec, digits = fractionAt(b, i+1)
		i += 1 + digits
	}
	return time.Duration(whole)*time.Second + time.Duration(nsec), i - start, true
}
