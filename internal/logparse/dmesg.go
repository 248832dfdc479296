package logparse

import (
	"bytes"
	"time"
)

const kernelSource = "kernel"

// dmesg reads "[   12.345678] text", the kernel ring buffer with seconds
// since boot. Time is Hint.BootTime plus those seconds, or zero without a
// BootTime. Prefixes from dmesg -r ("<3>") and dmesg -x ("kern  :err   : ")
// give the level. Lines that user space wrote to the ring buffer
// ("systemd[1]: ...") take their source from that prefix.
func (p *parser) dmesg(rec *Record, b []byte) bool {
	level, i := kernelLevelPrefix(b)
	since, n, ok := bootStampAt(b, i)
	if !ok {
		return false
	}
	if !p.hint.BootTime.IsZero() {
		refineTime(rec, p.hint.BootTime.Add(since).UTC())
	}
	p.kernelText(rec, level, b[i+n:])
	return true
}

// dmesgCtime reads dmesg --ctime: "[Sun Nov 29 14:26:31 2026] text".
func (p *parser) dmesgCtime(rec *Record, b []byte) bool {
	level, i := kernelLevelPrefix(b)
	t, n, ok := p.ctimeStampAt(b, i)
	if !ok {
		return false
	}
	refineTime(rec, t)
	p.kernelText(rec, level, b[i+n:])
	return true
}

func (p *parser) kernelText(rec *Record, level Level, text []byte) {
	if ident, payloadStart, ok := identWithPid(text); ok {
		rec.Source = sourceName(ident)
		p.payload(rec, text[payloadStart:], 1)
		if rec.Level == LevelUnknown {
			rec.Level = level
		}
		return
	}
	rec.Source = kernelSource
	rec.Level = level
	rec.Text = string(text)
}

// kernelLevelPrefix reads "<3>" (dmesg -r) or "kern  :err   : " (dmesg -x)
// and returns the level and where the rest starts.
func kernelLevelPrefix(b []byte) (Level, int) {
	if len(b) > 2 && b[0] == '<' {
		end := indexByteFrom(b, 1, '>')
		if end > 1 && end <= 4 {
			if prio, ok := digitsAt(b, 1, end-1); ok {
				return levelFromSyslogPriority(prio % 8), end + 1
			}
		}
		return LevelUnknown, 0
	}
	// dmesg -x: facility, colon, level, colon, each padded with spaces.
	facEnd := 0
	for facEnd < len(b) && 'a' <= b[facEnd] && b[facEnd] <= 'z' {
		facEnd++
	}
	if facEnd == 0 || facEnd > 8 {
		return LevelUnknown, 0
	}
	i := skipSpaces(b, facEnd)
	if i >= len(b) || b[i] != ':' {
		return LevelUnknown, 0
	}
	start := i + 1
	end := start
	for end < len(b) && 'a' <= b[end] && b[end] <= 'z' {
		end++
	}
	j := skipSpaces(b, end)
	if end == start || j >= len(b) || b[j] != ':' {
		return LevelUnknown, 0
	}
	level := levelFromWord(b[start:end])
	if level == LevelUnknown {
		return LevelUnknown, 0
	}
	return level, skipSpaces(b, j+1)
}

// bootStampAt reads "[   12.345678]" (and the space after it).
func bootStampAt(b []byte, i int) (time.Duration, int, bool) {
	if i >= len(b) || b[i] != '[' {
		return 0, 0, false
	}
	j := skipSpaces(b, i+1)
	since, n, ok := secondsAt(b, j)
	if !ok {
		return 0, 0, false
	}
	j += n
	if j >= len(b) || b[j] != ']' {
		return 0, 0, false
	}
	j++
	if j < len(b) && b[j] == ' ' {
		j++
	}
	return since, j - i, true
}

// ctimeStampAt reads "[Sun Nov 29 14:26:31 2026]" (and the space after it),
// in Hint.Location.
func (p *parser) ctimeStampAt(b []byte, i int) (time.Time, int, bool) {
	if i+26 > len(b) || b[i] != '[' || !weekdayAt(b, i+1) || b[i+4] != ' ' {
		return time.Time{}, 0, false
	}
	month, ok := monthAt(b, i+5)
	if !ok || b[i+8] != ' ' {
		return time.Time{}, 0, false
	}
	j := i + 9
	if b[j] == ' ' {
		j++
	}
	dayEnd := j
	for dayEnd < len(b) && dayEnd-j < 2 && b[dayEnd] >= '0' && b[dayEnd] <= '9' {
		dayEnd++
	}
	day, ok := digitsAt(b, j, dayEnd-j)
	if !ok || dayEnd >= len(b) || b[dayEnd] != ' ' {
		return time.Time{}, 0, false
	}
	c, n, ok := clockAt(b, dayEnd+1)
	y := dayEnd + 1 + n
	if !ok || y+6 > len(b) || b[y] != ' ' {
		return time.Time{}, 0, false
	}
	year, ok := digitsAt(b, y+1, 4)
	if !ok || b[y+5] != ']' || !validDate(year, month, day) {
		return time.Time{}, 0, false
	}
	end := y + 6
	if end < len(b) && b[end] == ' ' {
		end++
	}
	t := time.Date(year, month, day, c.hour, c.min, c.sec, c.nsec, p.loc).UTC()
	return t, end - i, true
}

// identWithPid reads "name[1234]: " at the start of b, the prefix journald
// and syslog put before lines they forward to the console or the kernel log.
func identWithPid(b []byte) (ident []byte, payloadStart int, ok bool) {
	open := -1
	for i := 0; i < len(b) && i <= maxModuleName; i++ {
		c := b[i]
		if c == '[' {
			open = i
			break
		}
		if c == ' ' || c == ']' || c == ':' {
			return nil, 0, false
		}
	}
	if open < 1 {
		return nil, 0, false
	}
	j := open + 1
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if j == open+1 || j+1 >= len(b) || b[j] != ']' || b[j+1] != ':' {
		return nil, 0, false
	}
	start := j + 2
	if start < len(b) && b[start] == ' ' {
		start++
	}
	return b[:j+1], start, true
}

// console reads EC2 serial console output, where kernel lines, systemd
// status lines, cloud-init output and daemon lines forwarded by journald
// are mixed:
//
//	[   12.345678] cloud-init[1530]: Cloud-init v. 22.2.2 running 'init' ...
//	[  OK  ] Started kubelet.service - Kubelet.
//	[FAILED] Failed to start nodeadm-config.service - EKS Nodeadm Config.
//	[   25.100000] nodeadm[1234]: fatal cli/main.go:35 Command failed {"error": "..."}
func (p *parser) console(rec *Record, b []byte) {
	for len(b) > 0 && b[0] == '\r' {
		b = b[1:]
	}
	if p.systemdStatus(rec, b) || p.dmesg(rec, b) || p.prioritySyslog(rec, b) {
		return
	}
	if ident, payloadStart, ok := identWithPid(b); ok {
		rec.Source = sourceName(ident)
		p.payload(rec, b[payloadStart:], 1)
		return
	}
	if p.cloudInitBanner(rec, b) {
		return
	}
	if bytes.HasPrefix(b, []byte("ci-info:")) {
		rec.Source = cloudInitSource
		rec.Text = string(b)
		return
	}
	p.payload(rec, b, 0)
}

// systemdStatus reads systemd's boot status lines, with or without colour:
// "[  OK  ] Started ...", "[FAILED] Failed to start ...", "[ TIME ] Timed out ...".
func (p *parser) systemdStatus(rec *Record, b []byte) bool {
	if len(b) < 3 || b[0] != '[' {
		return false
	}
	i := skipANSI(b, 1)
	wordStart := i
	for i < len(b) && (b[i] >= 'A' && b[i] <= 'Z' || b[i] == ' ' || b[i] == '*') {
		i++
	}
	word := bytes.Trim(b[wordStart:i], " ")
	i = skipANSI(b, i)
	if i >= len(b) || b[i] != ']' || len(word) == 0 {
		return false
	}
	level, ok := systemdStatusLevel(word)
	if !ok {
		return false
	}
	textStart := i + 1
	if textStart < len(b) && b[textStart] == ' ' {
		textStart++
	}
	rec.Source = "systemd"
	rec.Level = level
	rec.Text = string(b[textStart:])
	return true
}

func systemdStatusLevel(word []byte) (Level, bool) {
	switch string(word) {
	case "OK", "INFO":
		return LevelInfo, true
	case "FAILED", "TIME":
		return LevelError, true
	case "DEPEND", "WARN":
		return LevelWarn, true
	}
	if len(bytes.Trim(word, "* ")) == 0 {
		return LevelUnknown, true // the "[  *** ]" spinner of a job still running
	}
	return LevelUnknown, false
}

// skipANSI skips terminal colour sequences ("\x1b[0;32m") at b[i:].
func skipANSI(b []byte, i int) int {
	for i+1 < len(b) && b[i] == 0x1b && b[i+1] == '[' {
		j := i + 2
		for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == ';') {
			j++
		}
		if j >= len(b) || b[j] != 'm' {
			return i
		}
		i = j + 1
	}
	return i
}

// prioritySyslog reads "<14>Nov 29 14:20:36 cloud-init: text", the shape of
// syslog messages written straight to the console: a priority, a stamp
// without a year and an identifier, but no host.
func (p *parser) prioritySyslog(rec *Record, b []byte) bool {
	if len(b) < 4 || b[0] != '<' {
		return false
	}
	end := indexByteFrom(b, 1, '>')
	if end < 2 || end > 4 {
		return false
	}
	prio, ok := digitsAt(b, 1, end-1)
	if !ok {
		return false
	}
	rest := b[end+1:]
	month, day, c, n, ok := shortStampAt(rest)
	if !ok || n >= len(rest) || rest[n] != ' ' {
		return false
	}
	text := rest[n+1:]
	colon := -1
	for i := 0; i < len(text) && i <= maxIdent; i++ {
		if text[i] == ' ' {
			break
		}
		if text[i] == ':' {
			colon = i
			break
		}
	}
	if colon < 1 {
		return false
	}
	refineTime(rec, p.yearless(month, day, c))
	rec.Source = sourceName(text[:colon])
	rec.Level = levelFromSyslogPriority(prio % 8)
	if colon+1 < len(text) && text[colon+1] == ' ' {
		colon++
	}
	rec.Text = string(text[colon+1:])
	return true
}
