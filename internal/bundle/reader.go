package bundle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/mholt/archives"
)

// Limits bound how much of a bundle is read, so a hostile or broken archive
// (a decompression bomb, millions of members) cannot exhaust the laptop.
type Limits struct {
	MaxFileBytes  int64 // bytes read from one member; the rest is skipped and noted
	MaxTotalBytes int64 // bytes read from all members together
	MaxMembers    int   // members looked at
}

// DefaultLimits are generous for real bundles (the AWS collector caps
// /var/log/messages at 100 MiB) and still finite.
func DefaultLimits() Limits {
	return Limits{MaxFileBytes: 1 << 30, MaxTotalBytes: 8 << 30, MaxMembers: 100_000}
}

// Errors a reader reports. They are wrapped with the bundle path.
var (
	ErrNotFound    = errors.New("no such bundle")
	ErrUnreadable  = errors.New("cannot read bundle")
	ErrCorrupt     = errors.New("corrupt archive")
	ErrStopWalking = errors.New("walk stopped")
)

// Member is one regular file of a bundle, handed to a Walk callback. Its
// content can be read only during the callback.
type Member struct {
	Name    string    // bundle path, cleaned (see CleanName)
	Size    int64     // size as recorded by the archive or the file system
	ModTime time.Time // modification time as recorded
	r       *io.LimitedReader
	total   *int64
}

// Read reads the member's content, up to the per-member and total limits.
func (m *Member) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	*m.total += int64(n)
	return n, err
}

// Cut reports whether the member was longer than what the limits let through.
func (m *Member) Cut() bool { return m.r.N <= 0 && m.Size > 0 }

// Bundle is an opened bundle: an archive, a folder or a single file.
type Bundle struct {
	Path      string
	Container string // tar.gz, tar.zst, zip, tar, folder, file, or a compression such as gz for a single file
	Limits    Limits
	notes     []string
	format    archives.Format
	single    bool
}

// SingleFile reports whether the bundle is one log file (plain or
// compressed) rather than an archive or a folder.
func (b *Bundle) SingleFile() bool { return b.single }

// Open looks at path and works out what kind of container it is. It reads
// nothing but the first bytes of a file.
func Open(ctx context.Context, p string, limits Limits) (*Bundle, error) {
	info, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", p, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", p, ErrUnreadable, err)
	}
	b := &Bundle{Path: p, Limits: limits}
	if info.IsDir() {
		b.Container = "folder"
		return b, nil
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w: not a regular file or folder", p, ErrUnreadable)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", p, ErrUnreadable, err)
	}
	defer f.Close()
	format, _, err := archives.Identify(ctx, filepath.Base(p), f)
	switch {
	case errors.Is(err, archives.NoMatch):
		b.Container = "file"
		b.single = true
	case err != nil:
		return nil, fmt.Errorf("%s: %w: identifying format: %w", p, ErrUnreadable, err)
	default:
		b.format = withParallelGzip(format)
		b.Container = strings.TrimPrefix(format.Extension(), ".")
		_, isArchive := format.(archives.Extractor)
		b.single = !isArchive
	}
	return b, nil
}

// Notes are the problems met while walking that did not stop the walk:
// skipped links and devices, names that tried to leave the bundle, members cut
// at the size limit, duplicates.
func (b *Bundle) Notes() []string { return b.notes }

func (b *Bundle) note(format string, args ...any) {
	if len(b.notes) < 200 {
		b.notes = append(b.notes, fmt.Sprintf(format, args...))
	} else if len(b.notes) == 200 {
		b.notes = append(b.notes, "further notes left out")
	}
}

// Walk calls fn for every regular file of the bundle, in archive order (name
// order for folders), reading the archive once. It stops early when fn returns
// an error (ErrStopWalking stops it without error). A corrupt archive ends the
// walk with an error wrapping ErrCorrupt; the members already handed to fn
// stay valid results.
func (b *Bundle) Walk(ctx context.Context, fn func(*Member) error) error {
	w := &walker{b: b, fn: fn, seen: make(map[string]bool)}
	var err error
	switch {
	case b.Container == "folder":
		err = w.folder(ctx)
	case b.Container == "file":
		err = w.single(ctx, nil)
	default:
		err = w.archive(ctx)
	}
	if errors.Is(err, ErrStopWalking) {
		return nil
	}
	return err
}

type walker struct {
	b       *Bundle
	fn      func(*Member) error
	seen    map[string]bool
	members int
	total   int64
}

// visit applies the limits and the name rules, then hands the member to fn.
func (w *walker) visit(name string, size int64, mod time.Time, r io.Reader) error {
	clean, ok := CleanName(name)
	if !ok {
		w.b.note("%s: member name leaves the bundle; read as %q", name, clean)
	}
	if clean == "" {
		return nil
	}
	if w.seen[clean] {
		w.b.note("%s: duplicate member name; later copy skipped", clean)
		return nil
	}
	w.seen[clean] = true
	w.members++
	if w.members > w.b.Limits.MaxMembers {
		w.b.note("more than %d members; the rest were not read", w.b.Limits.MaxMembers)
		return ErrStopWalking
	}
	left := w.b.Limits.MaxTotalBytes - w.total
	if left <= 0 {
		w.b.note("read limit of %d bytes reached; the rest were not read", w.b.Limits.MaxTotalBytes)
		return ErrStopWalking
	}
	limit := min(w.b.Limits.MaxFileBytes, left)
	m := &Member{Name: clean, Size: size, ModTime: mod, r: &io.LimitedReader{R: r, N: limit}, total: &w.total}
	if err := w.fn(m); err != nil {
		return err
	}
	if m.r.N <= 0 && size > limit {
		w.b.note("%s: only the first %d of %d bytes were read", clean, limit, size)
	}
	return nil
}

func (w *walker) skipIrregular(name string, mode fs.FileMode) {
	if mode.IsDir() {
		return
	}
	kind := "special file"
	switch {
	case mode&fs.ModeSymlink != 0:
		kind = "symbolic link"
	case mode&fs.ModeDevice != 0:
		kind = "device"
	case mode&fs.ModeNamedPipe != 0:
		kind = "named pipe"
	}
	w.b.note("%s: %s skipped", name, kind)
}

func (w *walker) archive(ctx context.Context) error {
	f, err := os.Open(w.b.Path)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", w.b.Path, ErrUnreadable, err)
	}
	defer f.Close()
	ex, ok := w.b.format.(archives.Extractor)
	if !ok {
		return w.single(ctx, f)
	}
	err = ex.Extract(ctx, f, func(ctx context.Context, fi archives.FileInfo) error {
		if !fi.Mode().IsRegular() || isLink(fi) {
			w.skipIrregular(fi.NameInArchive, fi.Mode())
			return nil
		}
		rc, err := fi.Open()
		if err != nil {
			return fmt.Errorf("opening member %s: %w", fi.NameInArchive, err)
		}
		defer rc.Close()
		return w.visit(fi.NameInArchive, fi.Size(), fi.ModTime(), rc)
	})
	if err != nil && !errors.Is(err, ErrStopWalking) && ctx.Err() == nil {
		return fmt.Errorf("%s: %w: %w", w.b.Path, ErrCorrupt, err)
	}
	return err
}

// isLink catches hard links, which tar reports as regular-looking entries.
func isLink(fi archives.FileInfo) bool { return fi.LinkTarget != "" }

// single reads a file that is not an archive (a console log, a pasted
// journal), possibly compressed.
func (w *walker) single(ctx context.Context, f *os.File) error {
	if f == nil {
		var err error
		if f, err = os.Open(w.b.Path); err != nil {
			return fmt.Errorf("%s: %w: %w", w.b.Path, ErrUnreadable, err)
		}
		defer f.Close()
	}
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w: %w", w.b.Path, ErrUnreadable, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("%s: %w: %w", w.b.Path, ErrUnreadable, err)
	}
	name := filepath.Base(w.b.Path)
	var r io.Reader = f
	if dec, ok := w.b.format.(archives.Decompressor); ok {
		rc, err := dec.OpenReader(f)
		if err != nil {
			return fmt.Errorf("%s: %w: %w", w.b.Path, ErrCorrupt, err)
		}
		defer rc.Close()
		r = rc
		name = strings.TrimSuffix(name, path.Ext(name))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return w.visit(name, info.Size(), info.ModTime(), r)
}

func (w *walker) folder(ctx context.Context) error {
	root, err := os.OpenRoot(w.b.Path)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", w.b.Path, ErrUnreadable, err)
	}
	defer root.Close()
	return fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			w.b.note("%s: %v", p, err)
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !d.Type().IsRegular() {
			w.skipIrregular(p, d.Type())
			return nil
		}
		return w.folderFile(root, p)
	})
}

func (w *walker) folderFile(root *os.Root, p string) error {
	f, err := root.Open(p)
	if err != nil {
		w.b.note("%s: %v", p, err)
		return nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		w.b.note("%s: %v", p, err)
		return nil
	}
	return w.visit(p, info.Size(), info.ModTime(), f)
}

// withParallelGzip swaps the gzip reader for pgzip, which decompresses
// ahead in its own goroutine, so that decompression overlaps with matching.
func withParallelGzip(f archives.Format) archives.Format {
	switch v := f.(type) {
	case archives.CompressedArchive:
		if _, ok := v.Compression.(archives.Gz); ok {
			v.Compression = archives.Gz{Multithreaded: true}
			return v
		}
	case archives.Gz:
		return archives.Gz{Multithreaded: true}
	}
	return f
}
