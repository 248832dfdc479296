package benchgen

import (
	"math/rand/v2"
	"strconv"
	"time"
)

// This file holds the small, allocation-free helpers every line maker uses:
// numbers padded to a width, random hex and UUIDs, durations, and the clock
// that turns "how far through the file" into the time stamp of a line.

const hexDigits = "0123456789abcdef"

// appendPadded appends v in decimal, left-padded with pad to width.
func appendPadded(b []byte, v int64, width int, pad byte) []byte {
	var tmp [20]byte
	digits := strconv.AppendInt(tmp[:0], v, 10)
	for i := len(digits); i < width; i++ {
		b = append(b, pad)
	}
	return append(b, digits...)
}

// append2 appends a two-digit number with a leading zero.
func append2(b []byte, v int) []byte {
	return append(b, byte('0'+v/10%10), byte('0'+v%10))
}

// appendInt appends v in decimal.
func appendInt(b []byte, v int) []byte {
	return strconv.AppendInt(b, int64(v), 10)
}

// appendHex appends n random lowercase hex digits.
func appendHex(b []byte, r *rand.Rand, n int) []byte {
	for n > 0 {
		x := r.Uint64()
		for i := 0; i < 16 && n > 0; i++ {
			b = append(b, hexDigits[x&15])
			x >>= 4
			n--
		}
	}
	return b
}

// appendUUID appends a random version 4 UUID.
func appendUUID(b []byte, r *rand.Rand) []byte {
	b = appendHex(b, r, 8)
	b = append(b, '-')
	b = appendHex(b, r, 4)
	b = append(b, '-', '4')
	b = appendHex(b, r, 3)
	b = append(b, '-', "89ab"[r.IntN(4)])
	b = appendHex(b, r, 3)
	b = append(b, '-')
	return appendHex(b, r, 12)
}

// appendFrom appends n random characters taken from alphabet.
func appendFrom(b []byte, r *rand.Rand, alphabet string, n int) []byte {
	for range n {
		b = append(b, alphabet[r.IntN(len(alphabet))])
	}
	return b
}

// appendFraction appends whole.frac with frac zero-padded to digits places.
func appendFraction(b []byte, whole int64, frac int64, digits int) []byte {
	b = strconv.AppendInt(b, whole, 10)
	b = append(b, '.')
	return appendPadded(b, frac, digits, '0')
}

// appendMillis appends a duration given in microseconds the way Go prints a
// time.Duration under a second or so: "734.215ms" or "1.204387s".
func appendMillis(b []byte, micros int64) []byte {
	if micros < 1_000_000 {
		b = appendFraction(b, micros/1000, micros%1000, 3)
		return append(b, 'm', 's')
	}
	b = appendFraction(b, micros/1_000_000, micros%1_000_000, 6)
	return append(b, 's')
}

// pick returns one element of list.
func pick(r *rand.Rand, list []string) string {
	return list[r.IntN(len(list))]
}

var monthNames = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// stamp is one instant broken into the fields the log formats print. The
// calendar part is recomputed only when the day changes.
type stamp struct {
	micros             int64 // since the Unix epoch, UTC
	day                int64 // days since the epoch of the cached calendar date
	year, month, mday  int
	hour, minute, secs int
	usec               int
}

// set moves the stamp to micros.
func (s *stamp) set(micros int64) {
	s.micros = micros
	sec := micros / 1_000_000
	day := sec / 86400
	if day != s.day || s.year == 0 {
		y, m, d := time.UnixMicro(micros).UTC().Date()
		s.year, s.month, s.mday, s.day = y, int(m), d, day
	}
	rem := int(sec - day*86400)
	s.hour, s.minute, s.secs = rem/3600, rem/60%60, rem%60
	s.usec = int(micros % 1_000_000)
}

// appendClock appends "14:26:31".
func (s *stamp) appendClock(b []byte) []byte {
	b = append2(b, s.hour)
	b = append(b, ':')
	b = append2(b, s.minute)
	b = append(b, ':')
	return append2(b, s.secs)
}

// appendDate appends "2026-11-29".
func (s *stamp) appendDate(b []byte) []byte {
	b = appendPadded(b, int64(s.year), 4, '0')
	b = append(b, '-')
	b = append2(b, s.month)
	b = append(b, '-')
	return append2(b, s.mday)
}

// appendISOMicro appends "2026-11-29T14:26:31.123456+00:00", the stamp of
// journalctl -o short-iso-precise.
func (s *stamp) appendISOMicro(b []byte) []byte {
	b = s.appendDate(b)
	b = append(b, 'T')
	b = s.appendClock(b)
	b = append(b, '.')
	b = appendPadded(b, int64(s.usec), 6, '0')
	return append(b, "+00:00"...)
}

// appendShort appends "Nov 29 14:26:31" (journalctl short: day zero-padded)
// or, with spacePad, "Nov  2 14:26:31" (rsyslog's traditional format).
func (s *stamp) appendShort(b []byte, spacePad bool) []byte {
	b = append(b, monthNames[s.month-1]...)
	b = append(b, ' ')
	if spacePad && s.mday < 10 {
		b = append(b, ' ', byte('0'+s.mday))
	} else {
		b = append2(b, s.mday)
	}
	b = append(b, ' ')
	return s.appendClock(b)
}

// appendKlog appends "1129 14:26:31.123456", the part of a klog header after
// the level letter.
func (s *stamp) appendKlog(b []byte) []byte {
	b = append2(b, s.month)
	b = append2(b, s.mday)
	b = append(b, ' ')
	b = s.appendClock(b)
	b = append(b, '.')
	return appendPadded(b, int64(s.usec), 6, '0')
}

// appendRFC3339Nano appends "2026-11-29T14:26:31.123456789Z" with the last
// three digits taken from nanos.
func (s *stamp) appendRFC3339Nano(b []byte, nanos int) []byte {
	b = s.appendDate(b)
	b = append(b, 'T')
	b = s.appendClock(b)
	b = append(b, '.')
	b = appendPadded(b, int64(s.usec), 6, '0')
	b = appendPadded(b, int64(nanos), 3, '0')
	return append(b, 'Z')
}

// appendZapISO appends "2026-11-29T14:26:31.123Z", zap's ISO 8601 encoder.
func (s *stamp) appendZapISO(b []byte) []byte {
	b = s.appendDate(b)
	b = append(b, 'T')
	b = s.appendClock(b)
	b = append(b, '.')
	b = appendPadded(b, int64(s.usec/1000), 3, '0')
	return append(b, 'Z')
}

// appendCloudInit appends "2026-11-29 14:26:31,123", Python logging's stamp.
func (s *stamp) appendCloudInit(b []byte) []byte {
	b = s.appendDate(b)
	b = append(b, ' ')
	b = s.appendClock(b)
	b = append(b, ',')
	return appendPadded(b, int64(s.usec/1000), 3, '0')
}

// appendEpochSeconds appends seconds since the epoch with a fraction, as in
// zap's JSON "ts" field or an audit record: "1795861591.123".
func (s *stamp) appendEpochSeconds(b []byte, digits int) []byte {
	frac := int64(s.usec)
	for i := 6; i > digits; i-- {
		frac /= 10
	}
	return appendFraction(b, s.micros/1_000_000, frac, digits)
}
