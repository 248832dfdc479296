package journal

import (
	"strings"
)

// shortISOPreciseLayout is the time stamp of FormatShortISOPrecise.
const shortISOPreciseLayout = "2006-01-02T15:04:05.000000-07:00"

// FormatShortISOPrecise renders e as one line of `journalctl -o
// short-iso-precise --utc -a`, without the final newline:
//
//	2026-11-29T14:26:31.123456+00:00 HOST IDENT[PID]: MESSAGE
//
// The time is in UTC with microseconds and a "+00:00" offset (journalctl 252
// writes "+0000"; newer versions write "+00:00"). As in journalctl, the host
// is left out when unknown, the identifier is "unknown" when absent, one final
// newline of the message is dropped and every further line of a multi-line
// message is indented by the byte length of the prefix. Unlike plain
// journalctl (but like its -a flag), control characters and invalid UTF-8 are
// written as they are, never as "[N blob data]".
func FormatShortISOPrecise(e Entry) string {
	message := strings.TrimSuffix(e.Message, "\n")
	var b strings.Builder
	b.Grow(len(shortISOPreciseLayout) + len(e.Hostname) + len(e.Identifier) + len(e.PID) + len(message) + 16)
	writePrefix(&b, e)
	indent := b.Len()
	for {
		line, rest, more := strings.Cut(message, "\n")
		b.WriteString(line)
		if !more {
			return b.String()
		}
		b.WriteByte('\n')
		for range indent {
			b.WriteByte(' ')
		}
		message = rest
	}
}

// writePrefix writes "TIME HOST IDENT[PID]: ".
func writePrefix(b *strings.Builder, e Entry) {
	var stamp [len(shortISOPreciseLayout) + 8]byte
	b.Write(e.Time.UTC().AppendFormat(stamp[:0], shortISOPreciseLayout))
	if e.Hostname != "" {
		b.WriteByte(' ')
		b.WriteString(e.Hostname)
	}
	b.WriteByte(' ')
	if e.Identifier != "" {
		b.WriteString(e.Identifier)
	} else {
		b.WriteString("unknown")
	}
	if e.PID != "" {
		b.WriteByte('[')
		b.WriteString(e.PID)
		b.WriteByte(']')
	}
	b.WriteString(": ")
}
