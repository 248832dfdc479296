package logparse

import (
	"strings"
	"time"
	"unicode/utf8"
)

// zapJSON reads one JSON object per line as zap writes it:
// {"level":"fatal","ts":1709500289.81,"caller":"nodeadm/main.go:36","msg":"Command failed","error":"..."}.
// Text is the message followed by the other fields in zap's console style,
// `Command failed {"error": "..."}`, so both nodeadm formats read the same.
// The caller and the stack trace are left out.
func (p *parser) zapJSON(rec *Record, b []byte) bool {
	z, ok := scanZapJSON(b)
	if !ok {
		return false
	}
	if z.level.end > 0 {
		var buf [32]byte
		rec.Level = levelFromWord(smallJSONString(b, z.level, z.levelEscaped, &buf))
	}
	if z.ts.end > 0 {
		refineTime(rec, p.jsonTime(b[z.ts.start:z.ts.end]))
	}
	rec.Text = zapText(b, z)
	return true
}

// zapFields are the spans scanZapJSON found.
type zapFields struct {
	level, ts, msg         span
	levelEscaped, msgEsc   bool
	extras, extrasBytes    int
	hasLevelKey, hasMsgKey bool
}

// zapKey sorts the keys zap writes into the ones we peel off and the rest.
type zapKey uint8

const (
	zapKeyOther zapKey = iota
	zapKeyLevel
	zapKeyTime
	zapKeyMsg
	zapKeyDropped
)

func classifyZapKey(b []byte, m jsonMember) zapKey {
	var buf [32]byte
	switch string(smallJSONString(b, m.key, m.keyEscaped, &buf)) {
	case "level", "severity":
		return zapKeyLevel
	case "ts", "time", "timestamp":
		return zapKeyTime
	case "msg", "message":
		return zapKeyMsg
	case "caller", "stacktrace":
		return zapKeyDropped
	}
	return zapKeyOther
}

func scanZapJSON(b []byte) (zapFields, bool) {
	var z zapFields
	obj, ok := newJSONObject(b)
	if !ok {
		return z, false
	}
	for {
		m, ok := obj.next()
		if !ok {
			break
		}
		switch classifyZapKey(b, m) {
		case zapKeyLevel:
			z.level, z.hasLevelKey = m.value, true
			z.levelEscaped = hasBackslash(b[m.value.start:m.value.end])
		case zapKeyTime:
			z.ts = m.value
		case zapKeyMsg:
			z.msg, z.hasMsgKey = m.value, true
		case zapKeyOther:
			z.extras++
			z.extrasBytes += (m.key.end - m.key.start) + (m.value.end - m.value.start) + 4
		}
	}
	if obj.bad || !z.hasLevelKey && !z.hasMsgKey {
		return z, false
	}
	z.msgEsc = hasBackslash(b[z.msg.start:z.msg.end])
	return z, true
}

func hasBackslash(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

// jsonTime reads zap's "ts": an epoch number or an ISO 8601 string.
func (p *parser) jsonTime(v []byte) time.Time {
	if len(v) >= 2 && v[0] == '"' {
		t, n, _, ok := isoAt(v, 1, "T ", p.loc)
		if !ok || n+2 != len(v) {
			return time.Time{}
		}
		return t
	}
	t, _ := epochAt(v)
	return t
}

// zapText builds the record text with one allocation.
func zapText(b []byte, z zapFields) string {
	var sb strings.Builder
	sb.Grow(z.msg.end - z.msg.start + z.extrasBytes + 3)
	if z.hasMsgKey {
		writeJSONValue(&sb, b[z.msg.start:z.msg.end], z.msgEsc)
	}
	if z.extras == 0 {
		return sb.String()
	}
	if sb.Len() > 0 {
		sb.WriteByte(' ')
	}
	sb.WriteByte('{')
	obj, _ := newJSONObject(b)
	first := true
	for {
		m, ok := obj.next()
		if !ok {
			break
		}
		if classifyZapKey(b, m) != zapKeyOther {
			continue
		}
		if !first {
			sb.WriteString(", ")
		}
		first = false
		sb.Write(b[m.key.start:m.key.end])
		sb.WriteString(": ")
		sb.Write(b[m.value.start:m.value.end])
	}
	sb.WriteByte('}')
	return sb.String()
}

// writeJSONValue writes a string value decoded, and any other value as it is.
func writeJSONValue(sb *strings.Builder, v []byte, escaped bool) {
	if len(v) < 2 || v[0] != '"' {
		sb.Write(v)
		return
	}
	inner := v[1 : len(v)-1]
	if !escaped {
		sb.Write(inner)
		return
	}
	for i := 0; i < len(inner); {
		r, raw, isRune, next := jsonChar(inner, i)
		i = next
		if isRune {
			var buf [utf8.UTFMax]byte
			sb.Write(utf8.AppendRune(buf[:0], r))
		} else {
			sb.WriteByte(raw)
		}
	}
}
