package logparse

import "strings"

// Level is the severity a log line states about itself.
type Level int8

// Severities, from least to most severe. LevelUnknown means the line's
// format states no severity.
const (
	LevelUnknown Level = iota
	LevelDebug
	LevelInfo
	LevelWarn
	LevelError
	LevelFatal
)

var levelNames = [...]string{"unknown", "debug", "info", "warn", "error", "fatal"}

// String returns the lower-case name of the level.
func (l Level) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return levelNames[LevelUnknown]
	}
	return levelNames[l]
}

// MarshalText writes the level's name, so reports can print it as text.
func (l Level) MarshalText() ([]byte, error) {
	return []byte(l.String()), nil
}

// UnmarshalText reads a level name; names it does not know give LevelUnknown.
func (l *Level) UnmarshalText(text []byte) error {
	*l = levelFromWord(text)
	return nil
}

// ParseLevel maps a level word as loggers write it ("E", "warning", "ERROR",
// "dpanic", "crit", ...) to a Level. Words it does not know give LevelUnknown.
func ParseLevel(s string) Level {
	if len(s) > maxLevelWord {
		return LevelUnknown
	}
	var buf [maxLevelWord]byte
	n := copy(buf[:], s)
	return levelFromWord(buf[:n])
}

// maxLevelWord is the length of the longest level word we know ("information").
const maxLevelWord = 13

// levelFromWord is ParseLevel for bytes; it does not allocate.
func levelFromWord(b []byte) Level {
	if len(b) == 0 || len(b) > maxLevelWord {
		return LevelUnknown
	}
	var buf [maxLevelWord]byte
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	switch string(buf[:len(b)]) {
	case "d", "debug", "dbg", "trace", "trc":
		return LevelDebug
	case "i", "info", "inf", "information", "informational", "notice":
		return LevelInfo
	case "w", "warn", "warning", "wrn":
		return LevelWarn
	case "e", "error", "err":
		return LevelError
	case "f", "fatal", "panic", "dpanic", "crit", "critical", "alert", "emerg", "emergency":
		return LevelFatal
	}
	return LevelUnknown
}

// levelFromSyslogPriority maps a syslog priority (0 emerg … 7 debug) to a Level.
func levelFromSyslogPriority(p int) Level {
	switch {
	case p < 0:
		return LevelUnknown
	case p <= 2:
		return LevelFatal
	case p == 3:
		return LevelError
	case p == 4:
		return LevelWarn
	case p <= 6:
		return LevelInfo
	case p == 7:
		return LevelDebug
	}
	return LevelUnknown
}

// levelPrefix reads a leading "ERROR: ", "WARNING: ", "INFO: " ... as
// written by shell scripts such as bootstrap.sh. Anything else gives
// LevelUnknown.
func levelPrefix(b []byte) Level {
	const maxWord = 8
	for i := 0; i < len(b) && i <= maxWord; i++ {
		c := b[i]
		if c == ':' {
			if i == 0 || i+1 < len(b) && b[i+1] != ' ' {
				return LevelUnknown
			}
			return levelFromWord(b[:i])
		}
		if c < 'A' || c > 'Z' {
			return LevelUnknown
		}
	}
	return LevelUnknown
}

// GuessLevel guesses a level from words in free text ("panic", "failed",
// "warning" ...). Parse never uses it: a record's Level is only set when the
// line's format states it. Callers may use it for lines with LevelUnknown.
func GuessLevel(text string) Level {
	lower := strings.ToLower(text)
	switch {
	case hasWord(lower, "fatal"), hasWord(lower, "panic"):
		return LevelFatal
	case hasWord(lower, "error"), hasWord(lower, "failed"), hasWord(lower, "failure"),
		hasWord(lower, "unable"), hasWord(lower, "cannot"):
		return LevelError
	case hasWord(lower, "warning"), hasWord(lower, "warn"):
		return LevelWarn
	}
	return LevelUnknown
}

// hasWord reports whether word occurs in s with no letter on either side.
func hasWord(s, word string) bool {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], word)
		if i < 0 {
			return false
		}
		start := from + i
		end := start + len(word)
		if (start == 0 || !isLetter(s[start-1])) && (end == len(s) || !isLetter(s[end])) {
			return true
		}
		from = start + 1
	}
	return false
}

func isLetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
