package analyze

import (
	"bufio"
	"bytes"
	"errors"
	"hash/maphash"
	"io"
	"path"
	"strings"
	"time"

	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/nodetriage/nodetriage/internal/facts"
	"github.com/nodetriage/nodetriage/internal/logparse"
	"github.com/nodetriage/nodetriage/internal/signature"
)

const (
	maxEvidence  = 20        // evidence lines kept per signature
	maxLineBytes = 64 << 10  // a longer line is matched on its first 64 KiB
	readBuffer   = 256 << 10 // bufio size for log members
)

// scan is the state of one bundle's single pass.
type scan struct {
	a       *Analyzer
	b       *bundle.Bundle
	tally   *signature.Tally
	found   map[int]*sigState
	facts   *facts.Builder
	names   []string
	sources map[string]bool // logical sources that had at least one file
	ref     time.Time       // when the logs were collected, for year-less stamps
	stats   Stats
	hits    []signature.Hit
	seed    maphash.Seed
	reader  *bufio.Reader
}

// sigState is what one signature gathered while the bundle streamed.
type sigState struct {
	evidence  []Evidence
	seen      map[uint64]int // lines already counted (the same line can be in a unit log and the whole journal) → evidence index, -1 when not kept
	count     int
	first     time.Time
	captures  map[string]string
	milestone *Evidence
}

func newScan(a *Analyzer, b *bundle.Bundle) *scan {
	s := &scan{
		a: a, b: b,
		tally:   a.matcher.NewTally(),
		found:   make(map[int]*sigState),
		facts:   facts.NewBuilder(),
		sources: make(map[string]bool),
		seed:    maphash.MakeSeed(),
		reader:  bufio.NewReaderSize(nil, readBuffer),
	}
	s.facts.Now = a.opt.Now()
	if t, ok := logparse.TimeFromBundleName(path.Base(b.Path)); ok {
		s.ref = t
	}
	return s
}

// member handles one bundle member: keep it as a fact file, match its
// lines, or skip it unread.
func (s *scan) member(m *bundle.Member) error {
	s.names = append(s.names, m.Name)
	s.stats.Files++
	for _, src := range s.a.matcher.SourcesOf(m.Name) {
		s.sources[src] = true
	}
	if m.Name == bundle.ManifestName || facts.Wants(m.Name) || s.b.SingleFile() {
		data, err := io.ReadAll(io.LimitReader(m, facts.MaxFileBytes()))
		if err != nil {
			return nil // a broken member is skipped; the walk goes on
		}
		factName := m.Name
		if s.b.SingleFile() {
			factName = facts.ConsoleName // a lone text file: console output or a pasted log
		}
		s.facts.Add(factName, data)
		s.stats.Bytes += int64(len(data))
		if fm := s.matcherFor(m.Name); fm != nil {
			s.lines(m, fm, bytes.NewReader(data))
		}
		return nil
	}
	fm := s.matcherFor(m.Name)
	if fm == nil {
		return nil
	}
	s.lines(m, fm, m)
	return nil
}

func (s *scan) matcherFor(name string) *signature.FileMatcher {
	if s.b.SingleFile() {
		return s.a.matcher.ForAll()
	}
	return s.a.matcher.ForPath(name)
}

// lines reads a member line by line and matches each one.
func (s *scan) lines(m *bundle.Member, fm *signature.FileMatcher, r io.Reader) {
	s.reader.Reset(r)
	ref := s.ref
	if ref.IsZero() {
		ref = m.ModTime
	}
	var format logparse.Format
	hint := logparse.Hint{Ref: ref, Source: logparse.SourceFromPath(m.Name)}
	if head, err := s.reader.Peek(4096); err == nil || len(head) > 0 {
		format = logparse.DetectFormat(m.Name, head)
	}
	lineNo := 0
	for {
		line, err := s.reader.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			line = s.skipRest(line)
			err = nil
		}
		if len(line) > 0 {
			lineNo++
			s.stats.Bytes += int64(len(line))
			s.matchLine(fm, m.Name, lineNo, trimEOL(line), format, hint)
		}
		if err != nil {
			break
		}
	}
	s.stats.Lines += int64(lineNo)
}

// skipRest keeps the first part of an over-long line and discards the rest.
func (s *scan) skipRest(first []byte) []byte {
	kept := append([]byte(nil), first[:min(len(first), maxLineBytes)]...)
	for {
		more, err := s.reader.ReadSlice('\n')
		s.stats.Bytes += int64(len(more))
		if !errors.Is(err, bufio.ErrBufferFull) {
			return kept
		}
	}
}

func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

func (s *scan) matchLine(fm *signature.FileMatcher, file string, lineNo int, line []byte, format logparse.Format, hint logparse.Hint) {
	s.hits = fm.Match(line, s.hits[:0])
	if len(s.hits) == 0 {
		return
	}
	rec := logparse.Parse(format, line, hint)
	key := maphash.Bytes(s.seed, []byte(rec.Text)) ^ uint64(rec.Time.UnixNano())
	for _, h := range s.hits {
		st := s.state(h.Sig)
		if i, dup := st.seen[key]; dup {
			st.preferUnitFile(i, file, lineNo)
			continue
		}
		st.seen[key] = -1
		s.tally.Add(h, rec.Time)
		st.count++
		if !rec.Time.IsZero() && (st.first.IsZero() || rec.Time.Before(st.first)) {
			st.first = rec.Time
		}
		if st.captures == nil && h.Captures != nil {
			st.captures = h.Captures
		}
		if len(st.evidence) < maxEvidence {
			st.seen[key] = len(st.evidence)
			st.evidence = append(st.evidence, evidenceOf(file, lineNo, rec, line))
		}
	}
}

func (s *scan) state(sig int) *sigState {
	st := s.found[sig]
	if st == nil {
		st = &sigState{seen: make(map[uint64]int)}
		s.found[sig] = st
	}
	return st
}

// preferUnitFile points a piece of evidence met first in the whole-journal
// dump at the unit's own log, which is where a reader will look for it.
func (st *sigState) preferUnitFile(i int, file string, lineNo int) {
	if i < 0 || strings.HasPrefix(file, "journal/") || !strings.HasPrefix(st.evidence[i].File, "journal/") {
		return
	}
	st.evidence[i].File, st.evidence[i].Line = file, lineNo
}

func evidenceOf(file string, lineNo int, rec logparse.Record, line []byte) Evidence {
	e := Evidence{File: file, Line: lineNo, Text: string(bytes.ToValidUTF8(line, []byte("�")))}
	if msg := strings.ToValidUTF8(rec.Text, "�"); msg != "" && msg != e.Text {
		e.Message = msg
	}
	if !rec.Time.IsZero() {
		t := rec.Time.UTC()
		e.Time = &t
	}
	return e
}

func (s *scan) layout() bundle.Layout {
	if s.b.SingleFile() {
		return bundle.LayoutSingleFile
	}
	return bundle.DetectLayout(s.names)
}
