package logparse

import (
	"bytes"
	"time"
)

const cloudInitSource = "cloud-init"

// cloudInit reads /var/log/cloud-init.log:
// "2026-11-29 14:20:01,123 - util.py[DEBUG]: Running command ...".
func (p *parser) cloudInit(rec *Record, b []byte) bool {
	t, n, _, ok := isoAt(b, 0, " ", p.loc)
	if !ok || !bytes.HasPrefix(b[n:], []byte(" - ")) {
		return false
	}
	refineTime(rec, t)
	rest := b[n+3:]
	if !p.cloudInitModule(rec, rest) {
		rec.Source = cloudInitSource
		rec.Text = string(rest)
	}
	return true
}

// maxModuleName bounds the "util.py" part of a cloud-init message.
const maxModuleName = 64

// cloudInitModule reads "util.py[WARNING]: message", the part of a
// cloud-init line after the stamp; also found in syslog and console lines.
func (p *parser) cloudInitModule(rec *Record, b []byte) bool {
	open := -1
	for i := 0; i < len(b) && i <= maxModuleName; i++ {
		if b[i] == '[' {
			open = i
			break
		}
		if b[i] == ' ' {
			return false
		}
	}
	if open < 4 || string(b[open-3:open]) != ".py" {
		return false
	}
	end := indexByteFrom(b, open+1, ']')
	if end < 0 || end+1 >= len(b) || b[end+1] != ':' {
		return false
	}
	level := levelFromWord(b[open+1 : end])
	if level == LevelUnknown {
		return false
	}
	textStart := end + 2
	if textStart < len(b) && b[textStart] == ' ' {
		textStart++
	}
	rec.Source = cloudInitSource
	rec.Level = level
	rec.Text = string(b[textStart:])
	return true
}

// taggedScript reads lines that scripts write with a stamp and a tag, such
// as bootstrap.sh: "2024-01-01T00:00:00+0000 [eks-bootstrap] INFO: starting...".
// Without a stamp the line must state a level: "[private-dns-name] WARN: ...".
// Source is the tag; Text keeps the level word, which is part of the message.
func (p *parser) taggedScript(rec *Record, b []byte) bool {
	i := 0
	t, n, _, stamped := isoAt(b, 0, "T", p.loc)
	if stamped {
		if n >= len(b) || b[n] != ' ' {
			return false
		}
		i = n + 1
	}
	if i >= len(b) || b[i] != '[' {
		return false
	}
	end := -1
	for j := i + 1; j < len(b) && j-i <= maxModuleName; j++ {
		if b[j] == ']' {
			end = j
			break
		}
		if b[j] == ' ' {
			return false
		}
	}
	if end <= i+1 || end+1 >= len(b) || b[end+1] != ' ' {
		return false
	}
	text := b[end+2:]
	level := levelPrefix(text)
	if !stamped && level == LevelUnknown {
		return false
	}
	refineTime(rec, t)
	rec.Source = sourceName(b[i+1 : end])
	rec.Level = level
	rec.Text = string(text)
	return true
}

// cloudInitOutput reads /var/log/cloud-init-output.log: the console output
// of cloud-init and of the user data scripts. Lines in a known shape give
// their time and level; the rest is text.
func (p *parser) cloudInitOutput(rec *Record, b []byte) {
	if p.cloudInit(rec, b) || p.taggedScript(rec, b) || p.cloudInitBanner(rec, b) {
		return
	}
	if bytes.HasPrefix(b, []byte("ci-info:")) {
		rec.Source = cloudInitSource
		rec.Text = string(b)
		return
	}
	p.payload(rec, b, 0)
}

// cloudInitBanner reads cloud-init's stage lines, which carry a full date:
// "Cloud-init v. 22.2.2 running 'init' at Wed, 29 Nov 2026 14:20:01 +0000. Up 5.23 seconds."
func (p *parser) cloudInitBanner(rec *Record, b []byte) bool {
	const prefix = "Cloud-init v. "
	if !bytes.HasPrefix(b, []byte(prefix)) {
		return false
	}
	rec.Source = cloudInitSource
	if at := bytes.Index(b, []byte(" at ")); at > 0 {
		if t, ok := rfc1123At(b, at+4); ok {
			refineTime(rec, t)
		}
	}
	rec.Text = string(b)
	return true
}

// rfc1123At reads "Wed, 29 Nov 2026 14:20:01 +0000".
func rfc1123At(b []byte, i int) (time.Time, bool) {
	if !weekdayAt(b, i) || i+5 >= len(b) || b[i+3] != ',' || b[i+4] != ' ' {
		return time.Time{}, false
	}
	i += 5
	dayLen := 2
	if i+1 < len(b) && b[i+1] == ' ' {
		dayLen = 1
	}
	day, ok := digitsAt(b, i, dayLen)
	if !ok || i+dayLen >= len(b) || b[i+dayLen] != ' ' {
		return time.Time{}, false
	}
	i += dayLen + 1
	month, ok := monthAt(b, i)
	if !ok || i+3 >= len(b) || b[i+3] != ' ' {
		return time.Time{}, false
	}
	year, ok := digitsAt(b, i+4, 4)
	if !ok || i+8 >= len(b) || b[i+8] != ' ' || !validDate(year, month, day) {
		return time.Time{}, false
	}
	c, n, ok := clockAt(b, i+9)
	if !ok {
		return time.Time{}, false
	}
	t := time.Date(year, month, day, c.hour, c.min, c.sec, c.nsec, time.UTC)
	z := i + 9 + n
	if z < len(b) && b[z] == ' ' {
		if offset, _, ok := zoneAt(b, z+1); ok {
			t = t.Add(-time.Duration(offset) * time.Second)
		}
	}
	return t, true
}
