package redact

import (
	"bytes"
	"errors"
	"io"
	"maps"
)

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("redact: write after close")

const (
	// defaultWindow is the most bytes of one line held at a time. A longer
	// line is filtered in pieces of about this size.
	defaultWindow = 1 << 20
	// defaultOverlap is how many bytes at the end of a full window are held
	// back for the next piece, so that a match starting near the end of the
	// window is seen whole.
	defaultOverlap = 64 << 10
	// flushSize is how much filtered output is gathered before it is passed
	// to the destination.
	flushSize = 64 << 10
)

var newline = []byte{'\n'}

// lineFilter is one stage of text processing applied line by line.
type lineFilter interface {
	// filterLine appends the filtered form of one line to out. content has
	// no line terminator; eol is "\n", or empty for a last line without one.
	filterLine(out, content, eol []byte) []byte
	// filterChunk filters the front of buf, which holds part of a line that
	// is longer than the window. It returns how many bytes of buf it
	// consumed: at least minCut unless a match crosses minCut (then up to
	// the end of that match), and always at least one.
	filterChunk(out, buf []byte, minCut int) ([]byte, int)
}

// Writer filters a text stream line by line and writes the result to its
// destination. It holds at most one window of a line, so a huge line without
// a newline streams through in bounded memory. A Writer is for one stream
// and one goroutine; Close must be called to flush the last line. Close does
// not close the destination.
type Writer struct {
	dst     io.Writer
	filter  lineFilter
	counts  map[string]int
	pending []byte
	out     []byte
	window  int
	overlap int
	err     error
	closed  bool
}

func newWriter(dst io.Writer, f lineFilter, counts map[string]int, window, overlap int) *Writer {
	return &Writer{dst: dst, filter: f, counts: counts, window: window, overlap: overlap}
}

// Write filters p. Complete lines are filtered at once; the rest of the last
// line waits for more input or for Close. Output is buffered, so an error
// from the destination may surface on a later Write or on Close.
func (w *Writer) Write(p []byte) (int, error) {
	if w.closed {
		return 0, ErrClosed
	}
	if w.err != nil {
		return 0, w.err
	}
	total := len(p)
	for len(p) > 0 {
		p = w.consume(p)
		if err := w.flushIfFull(); err != nil {
			return total - len(p), err
		}
	}
	return total, nil
}

// consume handles the next line or window-sized piece of p and returns
// what is left of p.
func (w *Writer) consume(p []byte) []byte {
	if len(w.pending) == 0 {
		// Fast path: a whole short line in p is filtered without copying.
		limit := min(len(p), w.window)
		if i := bytes.IndexByte(p[:limit], '\n'); i >= 0 {
			w.out = w.filter.filterLine(w.out, p[:i], newline)
			return p[i+1:]
		}
	}
	room := w.window - len(w.pending)
	seg := p[:min(len(p), room)]
	if i := bytes.IndexByte(seg, '\n'); i >= 0 {
		w.pending = appendBounded(w.pending, seg[:i], w.window)
		w.out = w.filter.filterLine(w.out, w.pending, newline)
		w.pending = w.pending[:0]
		return p[i+1:]
	}
	w.pending = appendBounded(w.pending, seg, w.window)
	if len(w.pending) >= w.window {
		w.filterPendingChunk()
	}
	return p[len(seg):]
}

// appendBounded appends b to buf, growing buf's capacity to at most limit
// (callers never need more).
func appendBounded(buf, b []byte, limit int) []byte {
	need := len(buf) + len(b)
	if need > cap(buf) {
		grown := make([]byte, len(buf), min(max(2*cap(buf), need, 4096), max(limit, need)))
		copy(grown, buf)
		buf = grown
	}
	return append(buf, b...)
}

// filterPendingChunk filters the front of a full window and keeps the
// unconsumed tail for the next round.
func (w *Writer) filterPendingChunk() {
	minCut := max(len(w.pending)-w.overlap, 1)
	var n int
	w.out, n = w.filter.filterChunk(w.out, w.pending, minCut)
	n = min(max(n, 1), len(w.pending))
	w.pending = w.pending[:copy(w.pending, w.pending[n:])]
}

func (w *Writer) flushIfFull() error {
	if len(w.out) < flushSize {
		return nil
	}
	return w.flush()
}

func (w *Writer) flush() error {
	if len(w.out) == 0 || w.err != nil {
		return w.err
	}
	_, err := w.dst.Write(w.out)
	w.out = w.out[:0]
	if err != nil {
		w.err = err
	}
	return w.err
}

// Close filters what is left of the last line, writes all buffered output
// and releases the buffers. Calling it again returns the same result.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if len(w.pending) > 0 && w.err == nil {
		w.out = w.filter.filterLine(w.out, w.pending, nil)
	}
	err := w.flush()
	w.pending, w.out = nil, nil
	return err
}

// Counts returns how many replacements each rule (or pseudonym kind) made
// in this stream so far. It never contains the replaced values.
func (w *Writer) Counts() map[string]int {
	return maps.Clone(w.counts)
}
