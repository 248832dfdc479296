package logparse

import "time"

// zapConsole reads zap's console encoding as nodeadm uses it since Dec 2025:
// "fatal cli/main.go:35 Command failed {"error": "no config in chain"}".
// Fields are separated by a space or a tab; a leading ISO 8601 stamp (zap's
// development config) is accepted. The caller is required, so free text
// that happens to start with "error" is not taken for zap.
func (p *parser) zapConsole(rec *Record, b []byte) bool {
	i := 0
	var t time.Time
	if stamp, n, _, ok := isoAt(b, 0, "T", p.loc); ok && n < len(b) && isFieldSep(b[n]) {
		t, i = stamp, n+1
	}
	levelEnd := fieldEnd(b, i)
	level := zapLevelWord(b[i:levelEnd])
	if level == LevelUnknown || levelEnd >= len(b) {
		return false
	}
	callerStart := levelEnd + 1
	for callerStart < len(b) && isFieldSep(b[callerStart]) {
		callerStart++ // zap pads the level to a fixed width in some configs
	}
	callerEnd := fieldEnd(b, callerStart)
	if !isGoCaller(b[callerStart:callerEnd]) {
		return false
	}
	refineTime(rec, t)
	rec.Level = level
	textStart := callerEnd
	if textStart < len(b) {
		textStart++
	}
	rec.Text = string(b[textStart:])
	return true
}

func isFieldSep(c byte) bool { return c == ' ' || c == '\t' }

// fieldEnd returns the index of the first space or tab at or after i.
func fieldEnd(b []byte, i int) int {
	for i < len(b) && !isFieldSep(b[i]) {
		i++
	}
	return i
}

// zapLevelWord accepts zap's level names, all lower or all upper case.
func zapLevelWord(b []byte) Level {
	switch string(b) {
	case "debug", "DEBUG":
		return LevelDebug
	case "info", "INFO":
		return LevelInfo
	case "warn", "WARN":
		return LevelWarn
	case "error", "ERROR":
		return LevelError
	case "dpanic", "DPANIC", "panic", "PANIC", "fatal", "FATAL":
		return LevelFatal
	}
	return LevelUnknown
}

// isGoCaller accepts "pkg/file.go:35".
func isGoCaller(b []byte) bool {
	for i := 0; i+4 < len(b); i++ {
		if b[i] == '.' && b[i+1] == 'g' && b[i+2] == 'o' && b[i+3] == ':' {
			rest := b[i+4:]
			for _, c := range rest {
				if c < '0' || c > '9' {
					return false
				}
			}
			return true
		}
	}
	return false
}

// awsSDK reads the AWS SDK for Go's log lines that nodeadm passes through:
// "SDK 2024/09/20 16:48:30 DEBUG retrying request EC2/DescribeInstances, attempt 2".
// Text starts after the level word.
func (p *parser) awsSDK(rec *Record, b []byte) bool {
	const prefix = "SDK "
	if len(b) < len(prefix)+20 || string(b[:len(prefix)]) != prefix {
		return false
	}
	year, month, day, ok := dateAt(b, 4, '/')
	if !ok || b[14] != ' ' {
		return false
	}
	c, n, ok := clockAt(b, 15)
	if !ok || 15+n >= len(b) || b[15+n] != ' ' {
		return false
	}
	levelStart := 16 + n
	levelEnd := fieldEnd(b, levelStart)
	level := levelFromWord(b[levelStart:levelEnd])
	if level == LevelUnknown {
		return false
	}
	refineTime(rec, time.Date(year, month, day, c.hour, c.min, c.sec, c.nsec, p.loc).UTC())
	rec.Level = level
	if levelEnd < len(b) {
		levelEnd++
	}
	rec.Text = string(b[levelEnd:])
	return true
}
