package logparse

import "time"

// Record is one parsed log line.
type Record struct {
	// Time is when the line was written, in UTC. It is zero when the line
	// has no usable time (no stamp, or a stamp without a year and no year
	// in the Hint).
	Time time.Time
	// Level is the severity the line states; LevelUnknown when it states none.
	Level Level
	// Source is the program that wrote the line: "kubelet", "nodeadm",
	// "containerd", "cloud-init", "ipamd", "kernel", ...
	Source string
	// File is the bundle path of the log file; Parse leaves it to the caller.
	File string
	// Line is the 1-based line number in File; Parse leaves it to the caller.
	Line int
	// Text is the message without the transport prefixes (journal prefix,
	// klog header, zap level and caller, logfmt time and level). Structured
	// fields are kept: `Command failed {"error": "no config in chain"}`.
	Text string
}

// Hint is what the caller knows about a file that its lines may not say.
type Hint struct {
	// Ref is when the logs were collected (from the bundle name, the
	// manifest, or the file's modification time). A stamp without a year is
	// placed in the latest year that does not put it after Ref (with two
	// days of slack for time zones), which handles files that span New Year.
	Ref time.Time
	// Year is used for stamps without a year when Ref is zero. Parse takes it
	// as it is; a Stream starts from it and adds one when the months wrap.
	Year int
	// Location is the time zone of stamps that carry none (journal short,
	// klog, cloud-init). Nil means UTC, the default on EKS nodes.
	Location *time.Location
	// BootTime turns dmesg's seconds since boot into times. Zero leaves the
	// Time of such lines zero.
	BootTime time.Time
	// Source is the record source for lines that do not name one, usually
	// SourceFromPath of the file.
	Source string
}

// Parse turns one line in format f into a Record. It never fails: a line
// that does not fit f is recognised on its own, and if nothing fits, Text is
// the whole line. A trailing newline or carriage return is ignored.
func Parse(f Format, line []byte, h Hint) Record {
	p := newParser(h, nil)
	return p.parse(f, line)
}

// parser carries the Hint (and the Stream, if any) through one line.
type parser struct {
	hint   Hint
	loc    *time.Location
	stream *Stream
}

func newParser(h Hint, s *Stream) parser {
	loc := h.Location
	if loc == nil {
		loc = time.UTC
	}
	return parser{hint: h, loc: loc, stream: s}
}

// maxDepth bounds how many nested prefixes (console → cloud-init → journal →
// nodeadm ...) one line may carry.
const maxDepth = 3

func (p *parser) parse(f Format, line []byte) Record {
	line = trimEOL(line)
	rec := Record{Source: p.hint.Source}
	if p.parseAs(f, &rec, line) {
		return rec
	}
	if _, ok := p.parseAuto(&rec, line); !ok {
		p.plain(&rec, line)
	}
	return rec
}

// parseAuto tries the shapes that can be told apart from a single line and
// returns the format of the first that fits. The catch-all formats
// (console, cloud-init output, plain) are never returned.
func (p *parser) parseAuto(rec *Record, line []byte) (Format, bool) {
	switch {
	case len(line) == 0:
		return FormatUnknown, false
	case line[0] == '{' && p.zapJSON(rec, line):
		return FormatZapJSON, true
	case p.journalShort(rec, line, 0):
		return FormatJournalShort, true
	case p.cri(rec, line):
		return FormatCRI, true
	case p.journalISO(rec, line, 0):
		return FormatJournalISO, true
	case p.cloudInit(rec, line):
		return FormatCloudInit, true
	case p.taggedScript(rec, line):
		return FormatCloudInitOutput, true
	case p.klog(rec, line):
		return FormatKlog, true
	case p.logfmt(rec, line):
		return FormatLogfmt, true
	case p.zapConsole(rec, line):
		return FormatZapConsole, true
	case p.dmesg(rec, line):
		return FormatDmesg, true
	case p.dmesgCtime(rec, line):
		return FormatDmesgCtime, true
	case p.systemdStatus(rec, line):
		return FormatConsole, true
	case p.cloudInitBanner(rec, line):
		return FormatCloudInitOutput, true
	}
	return FormatUnknown, false
}

// parseAs fills rec from line read in format f and reports whether the line
// fits f. On false rec is unchanged.
func (p *parser) parseAs(f Format, rec *Record, line []byte) bool {
	switch f {
	case FormatJournalShort:
		return p.journalShort(rec, line, 0)
	case FormatJournalISO:
		return p.journalISO(rec, line, 0)
	case FormatKlog:
		return p.klog(rec, line)
	case FormatZapJSON:
		return p.zapJSON(rec, line)
	case FormatZapConsole:
		return p.zapConsole(rec, line)
	case FormatCloudInit:
		return p.cloudInit(rec, line)
	case FormatCloudInitOutput:
		p.cloudInitOutput(rec, line)
		return true
	case FormatLogfmt:
		return p.logfmt(rec, line)
	case FormatDmesg:
		return p.dmesg(rec, line)
	case FormatDmesgCtime:
		return p.dmesgCtime(rec, line)
	case FormatConsole:
		p.console(rec, line)
		return true
	case FormatCRI:
		return p.cri(rec, line)
	case FormatPlain:
		p.plain(rec, line)
		return true
	}
	return false
}

func (p *parser) plain(rec *Record, line []byte) {
	rec.Text = string(line)
}

// payload reads the message part of a line whose outer prefix has been
// peeled: it recognises inner shapes (klog, zap, logfmt, bootstrap.sh ...)
// and falls back to the payload as text.
func (p *parser) payload(rec *Record, b []byte, depth int) {
	if len(b) == 0 {
		rec.Text = ""
		return
	}
	if depth < maxDepth && (p.journalShort(rec, b, depth+1) || p.journalISO(rec, b, depth+1)) {
		return
	}
	switch {
	case p.klog(rec, b),
		b[0] == '{' && p.zapJSON(rec, b),
		p.logfmt(rec, b),
		p.zapConsole(rec, b),
		p.awsSDK(rec, b),
		p.cloudInitModule(rec, b),
		p.taggedScript(rec, b):
		return
	}
	rec.Level = levelPrefix(b)
	rec.Text = string(b)
}

// innerTimeSlack is how far a stamp inside a payload may be from the outer
// stamp and still replace it. Beyond that the inner stamp is probably in
// another time zone, and the outer one is kept.
const innerTimeSlack = 10 * time.Minute

// refineTime sets rec.Time to inner, a stamp from inside the payload, when
// it is more precise information about the same moment.
func refineTime(rec *Record, inner time.Time) {
	if inner.IsZero() {
		return
	}
	if rec.Time.IsZero() {
		rec.Time = inner
		return
	}
	d := inner.Sub(rec.Time)
	if d < 0 {
		d = -d
	}
	if d <= innerTimeSlack {
		rec.Time = inner
	}
}

// refSlack is how far after Hint.Ref a year-less stamp may fall and still
// be placed in Ref's year: local time zones may be ahead of UTC.
const refSlack = 48 * time.Hour

// yearless turns a stamp without a year into a time, using the Hint (and
// the Stream's year, if any). It returns the zero time when no year is known.
func (p *parser) yearless(month time.Month, day int, c clock) time.Time {
	if !p.hint.Ref.IsZero() {
		return p.yearFromRef(month, day, c)
	}
	year := p.hint.Year
	if p.stream != nil {
		year = p.stream.yearFor(month)
	}
	if year == 0 || !validDate(year, month, day) {
		return time.Time{}
	}
	return time.Date(year, month, day, c.hour, c.min, c.sec, c.nsec, p.loc).UTC()
}

func (p *parser) yearFromRef(month time.Month, day int, c clock) time.Time {
	limit := p.hint.Ref.Add(refSlack)
	top := p.hint.Ref.In(p.loc).Year() + 1
	for year := top; year > top-9; year-- {
		if !validDate(year, month, day) {
			continue
		}
		t := time.Date(year, month, day, c.hour, c.min, c.sec, c.nsec, p.loc)
		if !t.After(limit) {
			return t.UTC()
		}
	}
	return time.Time{}
}

// nearYear places a year-less stamp in the year of outer, a full time from
// an enclosing prefix, or in the year next to it when the two straddle New
// Year (outer on Dec 31, the stamp on Jan 1, or the other way round).
func (p *parser) nearYear(outer time.Time, month time.Month, day int, c clock) time.Time {
	o := outer.In(p.loc)
	year := o.Year()
	switch {
	case o.Month() == time.December && month == time.January:
		year++
	case o.Month() == time.January && month == time.December:
		year--
	}
	if !validDate(year, month, day) {
		return time.Time{}
	}
	return time.Date(year, month, day, c.hour, c.min, c.sec, c.nsec, p.loc).UTC()
}

func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

func indexByteFrom(b []byte, from int, c byte) int {
	if from >= len(b) {
		return -1
	}
	for i := from; i < len(b); i++ {
		if b[i] == c {
			return i
		}
	}
	return -1
}

func skipSpaces(b []byte, i int) int {
	for i < len(b) && b[i] == ' ' {
		i++
	}
	return i
}
