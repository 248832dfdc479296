package source

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Sink is where a source puts the files it gathered.
type Sink interface {
	// Create starts the bundle file at name (slash separated, relative to
	// the bundle root). Everything written to it is filtered (redacted) and
	// capped before it lands in the staging folder.
	Create(name string) (*File, error)
}

// Filter rewrites what sources write before it is staged; the redactor is
// one. A nil Filter stages bytes as written.
type Filter interface {
	Wrap(dst io.Writer) FilterWriter
}

// FilterWriter is one filtered stream. Close flushes what it still holds;
// Counts then tells how many values each rule replaced.
type FilterWriter interface {
	io.WriteCloser
	Counts() map[string]int
}

// StageOptions configure a Stage.
type StageOptions struct {
	Filter Filter
	// MaxFileBytes is how many of the newest bytes of one file are kept
	// while sources write; older ones are dropped at a line boundary. Zero
	// keeps everything.
	MaxFileBytes int64
}

// Record is what the stage knows about one staged file.
type Record struct {
	Path          string
	Source        string
	Bytes         int64 // bytes staged now
	OriginalBytes int64 // bytes the source had, before redaction and cuts
	Truncated     bool
	// ProtectedTail is how many of the newest bytes the source asked to keep
	// when the size budget cuts the file (the current boot of a unit, say).
	ProtectedTail int64
	// OriginalEstimated says that OriginalBytes is an estimate: the source
	// never read the part it left out (a journal read newest first).
	OriginalEstimated bool
	Redactions        map[string]int
}

// ErrSealed is returned when a source writes after the stage was sealed,
// because its deadline passed and the bundle is being packed.
var ErrSealed = errors.New("staging closed: the source ran past its deadline")

// Stage is the staging folder a bundle is assembled in. It is safe for
// concurrent use by many sources.
type Stage struct {
	dir  string
	opts StageOptions

	mu     sync.Mutex
	sealed bool
	files  map[string]*Record
	open   map[*File]bool
}

// NewStage stages files in dir, which must exist and be empty.
func NewStage(dir string, opts StageOptions) *Stage {
	return &Stage{dir: dir, opts: opts, files: map[string]*Record{}, open: map[*File]bool{}}
}

// Dir is the staging folder.
func (s *Stage) Dir() string { return s.dir }

// Sink returns the sink through which the named source creates its files.
func (s *Stage) Sink(sourceName string) Sink {
	return stageSink{stage: s, source: sourceName}
}

type stageSink struct {
	stage  *Stage
	source string
}

func (k stageSink) Create(name string) (*File, error) {
	return k.stage.create(k.source, name)
}

// TextFilter is a Sink that can also filter a text held in memory, the way
// it filters the files it stages. A source that must re-encode what it
// stages (the encoded parts of user data) filters the plain text first.
type TextFilter interface {
	// FilterText returns text filtered, and how many values each rule
	// replaced.
	FilterText(text []byte) ([]byte, map[string]int, error)
}

// FilterText runs text through the stage's filter (the redactor).
func (k stageSink) FilterText(text []byte) ([]byte, map[string]int, error) {
	filter := k.stage.opts.Filter
	if filter == nil {
		return text, nil, nil
	}
	var buf bytes.Buffer
	w := filter.Wrap(&buf)
	_, werr := w.Write(text)
	cerr := w.Close()
	return buf.Bytes(), w.Counts(), errors.Join(werr, cerr)
}

// CleanBundlePath checks a bundle path and returns it cleaned.
func CleanBundlePath(name string) (string, error) {
	clean := path.Clean(strings.ReplaceAll(name, "\\", "/"))
	switch {
	case name == "" || clean == "." || clean == "/":
		return "", fmt.Errorf("%w: %q is empty", ErrBadName, name)
	case strings.HasPrefix(clean, "/"):
		return "", fmt.Errorf("%w: %q is absolute", ErrBadName, name)
	case clean == ".." || strings.HasPrefix(clean, "../"):
		return "", fmt.Errorf("%w: %q leaves the bundle", ErrBadName, name)
	}
	return clean, nil
}

func (s *Stage) create(source, name string) (*File, error) {
	clean, err := CleanBundlePath(name)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sealed {
		return nil, fmt.Errorf("%s: %w", clean, ErrSealed)
	}
	if prev, ok := s.files[clean]; ok {
		return nil, fmt.Errorf("%s: %w by %s", clean, ErrExists, prev.Source)
	}
	full := filepath.Join(s.dir, filepath.FromSlash(clean))
	if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
		return nil, fmt.Errorf("staging %s: %w", clean, err)
	}
	f, err := os.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("staging %s: %w", clean, err)
	}
	rec := &Record{Path: clean, Source: source}
	s.files[clean] = rec
	file := &File{stage: s, rec: rec, tail: &tailFile{f: f, path: full, limit: s.opts.MaxFileBytes}, protectFrom: -1}
	file.head = file.tail
	if s.opts.Filter != nil {
		file.filter = s.opts.Filter.Wrap(file.tail)
		file.head = file.filter
	}
	s.open[file] = true
	return file, nil
}

// Seal finishes every file still open and refuses new ones, so that a
// source that overran its deadline cannot change the staging folder while
// it is packed.
func (s *Stage) Seal() {
	s.mu.Lock()
	s.sealed = true
	open := make([]*File, 0, len(s.open))
	for f := range s.open {
		open = append(open, f)
	}
	s.mu.Unlock()
	for _, f := range open {
		_ = f.Close()
	}
}

// Records returns a copy of every file's record, sorted by path.
func (s *Stage) Records() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Record, 0, len(s.files))
	for _, r := range s.files {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Record) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// Cut keeps only the newest keep bytes of a staged file, from the start of a
// line, and records the cut. Keeping 0 bytes removes the file from the
// staging folder; its record stays, with Bytes 0.
func (s *Stage) Cut(name string, keep int64) error {
	s.mu.Lock()
	rec, ok := s.files[name]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("cutting %s: %w", name, fs.ErrNotExist)
	}
	if keep >= rec.Bytes {
		return nil
	}
	full := filepath.Join(s.dir, filepath.FromSlash(name))
	if keep <= 0 {
		if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cutting %s: %w", name, err)
		}
		s.setSize(rec, 0)
		return nil
	}
	size, err := cutToTail(full, keep)
	if err != nil {
		return err
	}
	s.setSize(rec, size)
	return nil
}

func (s *Stage) setSize(rec *Record, size int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec.Bytes = size
	rec.Truncated = true
}

// File is one bundle file being written by a source.
type File struct {
	stage  *Stage
	rec    *Record
	tail   *tailFile
	filter FilterWriter
	head   io.Writer

	mu          sync.Mutex
	closed      bool
	written     int64
	skipped     int64
	estimated   bool // skipped is an estimate
	protectFrom int64
	// redacted counts replacements made before the text was written (see
	// AddRedactions).
	redacted map[string]int
}

// Write adds p to the file.
func (f *File) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, fmt.Errorf("%s: %w", f.rec.Path, ErrSealed)
	}
	n, err := f.head.Write(p)
	f.written += int64(n)
	if err != nil {
		return n, fmt.Errorf("staging %s: %w", f.rec.Path, err)
	}
	return n, nil
}

// WriteString adds s to the file.
func (f *File) WriteString(s string) (int, error) { return f.Write([]byte(s)) }

// SkipHead records that the source left out the first n bytes of what it
// read from (the older part of a big log), so that the manifest shows the
// original size and the cut.
func (f *File) SkipHead(n int64) {
	f.mu.Lock()
	f.skipped += n
	f.mu.Unlock()
}

// EstimateHead records that the source left out about n older bytes that
// it never read, so that their size is only an estimate; the manifest shows
// the file as cut and says that its original size is estimated.
func (f *File) EstimateHead(n int64) {
	f.mu.Lock()
	f.skipped += max(n, 1)
	f.estimated = true
	f.mu.Unlock()
}

// Written is how many bytes the source has written to the file so far,
// before filtering and cuts.
func (f *File) Written() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.written
}

// AddRedactions records replacements made in text the source filtered
// itself (with TextFilter) before writing it, so that the manifest counts
// them for this file.
func (f *File) AddRedactions(counts map[string]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for rule, n := range counts {
		if n > 0 {
			if f.redacted == nil {
				f.redacted = map[string]int{}
			}
			f.redacted[rule] += n
		}
	}
}

// Protect marks what is written from now on as the part to keep when the
// size budget has to cut this file.
func (f *File) Protect() {
	f.mu.Lock()
	f.protectFrom = f.written
	f.mu.Unlock()
}

// Close flushes the filter, applies the size cap and records the file.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	var errs []error
	counts := map[string]int(nil)
	if f.filter != nil {
		if err := f.filter.Close(); err != nil {
			errs = append(errs, fmt.Errorf("filtering %s: %w", f.rec.Path, err))
		}
		counts = f.filter.Counts()
	}
	for rule, n := range f.redacted {
		if counts == nil {
			counts = map[string]int{}
		}
		counts[rule] += n
	}
	if err := f.tail.finish(); err != nil {
		errs = append(errs, err)
	}
	f.stage.mu.Lock()
	f.rec.Bytes = f.tail.size
	f.rec.OriginalBytes = f.written + f.skipped
	f.rec.Truncated = f.tail.dropped > 0 || f.skipped > 0
	f.rec.OriginalEstimated = f.estimated
	if f.protectFrom >= 0 {
		f.rec.ProtectedTail = f.written - f.protectFrom
	}
	if len(counts) > 0 {
		f.rec.Redactions = counts
	}
	delete(f.stage.open, f)
	f.stage.mu.Unlock()
	return errors.Join(errs...)
}

// Discard drops the file from the bundle: a source that created it and then
// found nothing to put in it.
func (f *File) Discard() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	if f.filter != nil {
		_ = f.filter.Close()
	}
	err := f.tail.f.Close()
	if rerr := os.Remove(f.tail.path); rerr != nil && err == nil {
		err = rerr
	}
	f.stage.mu.Lock()
	delete(f.stage.files, f.rec.Path)
	delete(f.stage.open, f)
	f.stage.mu.Unlock()
	return err
}

// tailFile writes a staged file and, past twice its limit, rewrites it to
// its newest limit bytes, so that a huge stream costs at most twice the
// limit on disk.
type tailFile struct {
	f       *os.File
	path    string
	limit   int64
	size    int64
	dropped int64
}

func (t *tailFile) Write(p []byte) (int, error) {
	n, err := t.f.Write(p)
	t.size += int64(n)
	if err != nil {
		return n, err
	}
	if t.limit > 0 && t.size > 2*t.limit {
		if err := t.keepTail(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// keepTail rewrites the file to its newest limit bytes and reopens it for
// appending.
func (t *tailFile) keepTail() error {
	if err := t.f.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", t.path, err)
	}
	size, err := cutToTail(t.path, t.limit)
	if err != nil {
		return err
	}
	t.dropped += t.size - size
	t.size = size
	t.f, err = os.OpenFile(t.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("reopening %s: %w", t.path, err)
	}
	return nil
}

// finish applies the limit a last time and closes the file.
func (t *tailFile) finish() error {
	if t.limit > 0 && t.size > t.limit {
		if err := t.keepTail(); err != nil {
			return err
		}
	}
	if err := t.f.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", t.path, err)
	}
	return nil
}

// cutToTail rewrites the file at p to its last keep bytes, starting at the
// first line that begins inside them (or mid-line when they hold no line
// break), and returns the new size.
func cutToTail(p string, keep int64) (int64, error) {
	src, err := os.Open(p)
	if err != nil {
		return 0, fmt.Errorf("cutting %s: %w", p, err)
	}
	defer src.Close()
	info, err := src.Stat()
	if err != nil {
		return 0, fmt.Errorf("cutting %s: %w", p, err)
	}
	if keep >= info.Size() {
		return info.Size(), nil
	}
	start, err := lineStartAtOrAfter(src, info.Size()-keep)
	if err != nil {
		return 0, fmt.Errorf("cutting %s: %w", p, err)
	}
	tmp := p + ".cut"
	dst, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, fmt.Errorf("cutting %s: %w", p, err)
	}
	n, err := io.Copy(dst, io.NewSectionReader(src, start, info.Size()-start))
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
		return 0, fmt.Errorf("cutting %s: %w", p, err)
	}
	return n, nil
}

// lineStartAtOrAfter finds where the first whole line at or after offset
// starts; offset itself when no line break follows it.
func lineStartAtOrAfter(f *os.File, offset int64) (int64, error) {
	if offset == 0 {
		return 0, nil
	}
	var prev [1]byte
	if _, err := f.ReadAt(prev[:], offset-1); err != nil {
		return 0, err
	}
	if prev[0] == '\n' {
		return offset, nil
	}
	r := bufio.NewReaderSize(io.NewSectionReader(f, offset, 1<<62), 64<<10)
	pos := offset
	for {
		chunk, err := r.ReadSlice('\n')
		pos += int64(len(chunk))
		if err == nil {
			return pos, nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			return offset, nil
		}
		return 0, err
	}
}

// writeFile stages one whole file.
func writeFile(out Sink, name string, data []byte) error {
	f, err := out.Create(name)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	return errors.Join(werr, f.Close())
}
