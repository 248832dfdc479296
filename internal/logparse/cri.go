package logparse

// cri reads the kubelet's container log files (var_log/<pod folder>/<container>/0.log
// and the flattened var_log/*.log copies):
// "2026-11-29T14:26:31.123456789Z stderr F message". The message may be
// klog, zap JSON and so on, and is read like a journal payload. Partial
// lines ("P") are returned as they are; joining them is left to the caller.
func (p *parser) cri(rec *Record, b []byte) bool {
	t, n, _, ok := isoAt(b, 0, "T", p.loc)
	if !ok || n >= len(b) || b[n] != ' ' {
		return false
	}
	streamEnd := fieldEnd(b, n+1)
	switch string(b[n+1 : streamEnd]) {
	case "stdout", "stderr":
	default:
		return false
	}
	if streamEnd >= len(b) {
		return false
	}
	tagEnd := fieldEnd(b, streamEnd+1)
	if tagEnd == streamEnd+1 || b[streamEnd+1] != 'F' && b[streamEnd+1] != 'P' {
		return false
	}
	payloadStart := tagEnd
	if payloadStart < len(b) {
		payloadStart++
	}
	refineTime(rec, t)
	p.payload(rec, b[payloadStart:], 1)
	return true
}
