package journal

import (
	"strconv"
	"time"
)

// record is an Entry being assembled from journal fields, plus the fields
// that only unit selection needs.
type record struct {
	Entry
	pid          string // _PID, without the SYSLOG_PID fallback
	syslogPID    string
	identifier   string // SYSLOG_IDENTIFIER
	comm         string // _COMM
	priority     string
	uid          string
	messageID    string
	aboutUnit    string // UNIT=, written by systemd about a unit
	objectUnit   string // OBJECT_SYSTEMD_UNIT=
	coredumpUnit string // COREDUMP_UNIT=
	slice        string // _SYSTEMD_SLICE=
}

// setField stores one field of the entry; fields that triage does not use are
// ignored. value may be reused by the caller after the call.
func (r *record) setField(name string, value []byte) { setRecordField(r, name, value) }

// setRecordField is setField for a value held as bytes or as a string; a
// string value is stored without a copy.
func setRecordField[V ~string | ~[]byte](r *record, name string, value V) {
	switch name {
	case "MESSAGE":
		r.Message = string(value[:min(len(value), MaxMessageBytes)])
	case "_BOOT_ID":
		r.BootID = string(value)
	case "_HOSTNAME":
		r.Hostname = string(value)
	case "SYSLOG_IDENTIFIER":
		r.identifier = string(value)
	case "_COMM":
		r.comm = string(value)
	case "_PID":
		r.pid = string(value)
	case "SYSLOG_PID":
		r.syslogPID = string(value)
	case "_SYSTEMD_UNIT":
		r.Unit = string(value)
	case "PRIORITY":
		r.priority = string(value)
	case "_TRANSPORT":
		r.Transport = string(value)
	case "_UID":
		r.uid = string(value)
	case "MESSAGE_ID":
		r.messageID = string(value)
	case "UNIT":
		r.aboutUnit = string(value)
	case "OBJECT_SYSTEMD_UNIT":
		r.objectUnit = string(value)
	case "COREDUMP_UNIT":
		r.coredumpUnit = string(value)
	case "_SYSTEMD_SLICE":
		r.slice = string(value)
	}
}

// setRealtime stores __REALTIME_TIMESTAMP, given in microseconds.
func (r *record) setRealtime(micros uint64) {
	r.Time = time.UnixMicro(int64(min(micros, 1<<63-1))).UTC()
}

// finish applies the fallbacks (identifier, PID, priority) and returns the
// record, ready for the predicate and for Entry.
func (r *record) finish() *record {
	r.Identifier = r.identifier
	if r.Identifier == "" {
		r.Identifier = r.comm
	}
	r.PID = r.pid
	if r.PID == "" {
		r.PID = r.syslogPID
	}
	r.Priority = parsePriority(r.priority)
	return r
}

// parsePriority returns the syslog priority 0..7, or -1 when absent or
// not a priority.
func parsePriority(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 7 {
		return -1
	}
	return n
}
