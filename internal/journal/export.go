package journal

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// maxFieldNameBytes bounds a field name in export data.
const maxFieldNameBytes = 256

// ParseExport reads the journal export format (`journalctl -o export`) from r
// and calls emit once per entry, in input order.
//
// The format is a series of entries separated by an empty line. A field is
// either a text line "NAME=value" or, for values that are not plain text, a
// line "NAME", a little-endian 64-bit length and that many raw bytes, then a
// newline. The last entry may end at the end of input without its empty line.
// Field values are kept up to MaxMessageBytes; memory use does not grow with
// the input. Malformed input stops the parse with an error wrapping
// ErrBadExport that tells the entry number and byte offset; entries before
// it have been emitted. An error from emit stops the parse and is returned
// wrapped.
func ParseExport(r io.Reader, emit func(Entry) error) error {
	var emitErr error
	err := parseExport(r, func(rec *record) error {
		emitErr = emit(rec.Entry)
		return emitErr
	})
	if emitErr != nil {
		return emitError(emitErr)
	}
	return err
}

// parseExport is ParseExport with the full record; an error from emit is
// returned as it is.
func parseExport(r io.Reader, emit func(*record) error) error {
	p := exportParser{in: bufio.NewReaderSize(r, 64<<10), entry: 1}
	return p.run(emit)
}

// parseCompleteExport is parseExport for the output of journalctl, which ends
// every entry with an empty line: an entry cut off by the end of input (the
// producer died) is reported, not emitted.
func parseCompleteExport(r io.Reader, emit func(*record) error) error {
	p := exportParser{in: bufio.NewReaderSize(r, 64<<10), entry: 1, completeOnly: true}
	return p.run(emit)
}

// exportParser holds the state of one parse.
type exportParser struct {
	in      *bufio.Reader
	offset  int64 // bytes consumed, for error messages
	entry   int   // number of the entry being read, from 1
	fields  int   // fields read in this entry
	rec     record
	scratch []byte
	// completeOnly rejects a last entry without its closing empty line.
	completeOnly bool
}

// run parses until the end of input, an error, or an error from emit.
func (p *exportParser) run(emit func(*record) error) error {
	for {
		start := p.offset
		line, err := p.readLine(maxFieldNameBytes + 1 + MaxMessageBytes)
		if errors.Is(err, io.EOF) {
			return p.finish(start, emit)
		}
		if err != nil {
			return p.ioError(start, err)
		}
		if len(line) == 0 {
			if err := p.flush(emit); err != nil {
				return err
			}
			continue
		}
		if err := p.field(start, line); err != nil {
			return err
		}
	}
}

// finish handles the end of input: the entry read so far is emitted, or
// reported as cut off when only complete entries are accepted.
func (p *exportParser) finish(start int64, emit func(*record) error) error {
	if p.completeOnly && p.fields > 0 {
		return p.truncated(start, "entry without closing empty line", io.EOF)
	}
	return p.flush(emit)
}

// flush emits the entry read so far, if it has any field.
func (p *exportParser) flush(emit func(*record) error) error {
	if p.fields == 0 {
		return nil
	}
	if err := emit(p.rec.finish()); err != nil {
		return err
	}
	p.rec = record{}
	p.fields = 0
	p.entry++
	return nil
}

// field handles one non-empty line: a text field, or the name of a binary one.
func (p *exportParser) field(start int64, line []byte) error {
	rawName, value, isText := bytes.Cut(line, []byte("="))
	if !validFieldName(rawName) {
		return p.syntaxError(start, fmt.Sprintf("invalid field name %q", clip(rawName)))
	}
	name := string(rawName) // line is overwritten by the next read
	if !isText {
		var err error
		if value, err = p.readBinaryValue(start); err != nil {
			return err
		}
	}
	p.fields++
	return p.store(start, name, value)
}

// store keeps one field value in the current record.
func (p *exportParser) store(start int64, name string, value []byte) error {
	if name != "__REALTIME_TIMESTAMP" {
		p.rec.setField(name, value)
		return nil
	}
	micros, err := strconv.ParseUint(string(value), 10, 64)
	if err != nil {
		return p.syntaxError(start, fmt.Sprintf("__REALTIME_TIMESTAMP %q is not a number", clip(value)))
	}
	p.rec.setRealtime(micros)
	return nil
}

// readBinaryValue reads the length and bytes of a binary field and its final
// newline. Bytes past MaxMessageBytes are read and dropped.
func (p *exportParser) readBinaryValue(start int64) ([]byte, error) {
	var size [8]byte
	if _, err := io.ReadFull(p.in, size[:]); err != nil {
		return nil, p.truncated(start, "binary field length", err)
	}
	p.offset += 8
	n := binary.LittleEndian.Uint64(size[:])
	keep := min(n, MaxMessageBytes)
	if uint64(cap(p.scratch)) < keep {
		p.scratch = make([]byte, keep)
	}
	p.scratch = p.scratch[:keep]
	if _, err := io.ReadFull(p.in, p.scratch); err != nil {
		return nil, p.truncated(start, "binary field value", err)
	}
	p.offset += int64(keep)
	if rest := n - keep; rest > 0 {
		dropped, err := io.CopyN(io.Discard, p.in, int64(min(rest, 1<<62)))
		p.offset += dropped
		if err != nil {
			return nil, p.truncated(start, "binary field value", err)
		}
	}
	end, err := p.in.ReadByte()
	if err != nil {
		return nil, p.truncated(start, "newline after binary field", err)
	}
	p.offset++
	if end != '\n' {
		return nil, p.syntaxError(start, fmt.Sprintf("binary field of %d bytes not followed by a newline", n))
	}
	return p.scratch, nil
}

// readLine reads up to the next newline and returns the line without it,
// keeping at most limit bytes (the rest of a longer line is dropped). The
// last line of the input may lack its newline; io.EOF is returned only when
// no byte at all was left.
func (p *exportParser) readLine(limit int) ([]byte, error) {
	p.scratch = p.scratch[:0]
	read := 0
	for {
		chunk, err := p.in.ReadSlice('\n')
		p.offset += int64(len(chunk))
		read += len(chunk)
		if err == nil {
			chunk = chunk[:len(chunk)-1]
		}
		room := max(limit-len(p.scratch), 0)
		p.scratch = append(p.scratch, chunk[:min(room, len(chunk))]...)
		switch {
		case err == nil:
			return p.scratch, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && read > 0:
			return p.scratch, nil
		default:
			return nil, err
		}
	}
}

// validFieldName accepts journal field names: upper-case letters, digits
// and underscores.
func validFieldName(name []byte) bool {
	if len(name) == 0 || len(name) > maxFieldNameBytes {
		return false
	}
	for _, c := range name {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// syntaxError reports malformed input at the field starting at byte start.
func (p *exportParser) syntaxError(start int64, detail string) error {
	return fmt.Errorf("journal export: entry %d, byte %d: %w: %s", p.entry, start, ErrBadExport, detail)
}

// truncated reports input that ended inside a binary field.
func (p *exportParser) truncated(start int64, what string, err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("journal export: entry %d, byte %d: %w: %s: %w", p.entry, start, ErrBadExport, what, err)
}

// ioError reports a failure of the underlying reader.
func (p *exportParser) ioError(start int64, err error) error {
	return fmt.Errorf("journal export: entry %d, byte %d: %w", p.entry, start, err)
}

// clip shortens a value quoted in an error message.
func clip(b []byte) []byte {
	const most = 64
	if len(b) > most {
		return b[:most]
	}
	return b
}
