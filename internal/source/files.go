package source

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"
)

// Copy is one file, wildcard pattern or folder to copy from the node.
type Copy struct {
	// From is a node path; its elements may hold path.Match wildcards.
	From string
	// To is the bundle path of the copy when From names one file; when From
	// has wildcards or names a folder, To is the bundle folder that receives
	// the matches, each under its base name.
	To string
	// Dir copies the files under each matched folder, keeping their layout.
	// A folder named without wildcards is copied straight into To;
	// matches of a wildcard keep their own name under To.
	Dir bool
	// Depth bounds how many folder levels below a copied folder are read
	// (default 4).
	Depth int
	// Tail keeps at most this many of the newest bytes of each file; the
	// older part is not even read. Zero means the stage's cap alone.
	Tail int64
	// SkipOver leaves out files bigger than this many bytes (binaries, in
	// folders of configuration); zero copies any size.
	SkipOver int64
	// LiveOnly marks files that describe the running machine (/proc, /sys):
	// they are copied only when the tree is the live root.
	LiveOnly bool
	// Fallback marks a second place for a file: it is copied only when an
	// earlier copy of the same source has not already written To.
	Fallback bool
}

// tailMargin is read before the kept tail of a big file, so that the
// redactor sees the start of a multi-line secret that begins just before it.
const tailMargin = 64 << 10

// maxGunzipBytes bounds how much of one rotated .gz log is decompressed.
const maxGunzipBytes = 256 << 20

// Files copies files from the node into the bundle.
type Files struct {
	name     string
	tree     *Tree
	copies   []Copy
	deadline time.Duration
}

// NewFiles returns a source that performs copies.
func NewFiles(name string, tree *Tree, copies ...Copy) *Files {
	return &Files{name: name, tree: tree, copies: copies, deadline: 30 * time.Second}
}

// Name is the source name.
func (s *Files) Name() string { return s.name }

// Deadline bounds the copies.
func (s *Files) Deadline() time.Duration { return s.deadline }

// Collect copies every file that exists; files that do not exist are not an
// error, but a source that found nothing at all is skipped.
func (s *Files) Collect(ctx context.Context, out Sink) error {
	var errs []error
	copied := 0
	var looked []string
	written := map[string]bool{}
	for _, c := range s.copies {
		if c.LiveOnly && !s.tree.Live() || c.Fallback && written[c.To] {
			continue
		}
		looked = append(looked, c.From)
		n, err := s.copyOne(ctx, out, c)
		copied += n
		written[c.To] = written[c.To] || n > 0
		if err != nil {
			errs = append(errs, err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if copied == 0 {
		if len(looked) == 0 {
			return fmt.Errorf("%w: describes the running machine, not --root %s", ErrSkipped, s.tree.Dir())
		}
		return fmt.Errorf("%w: not present: %s", ErrSkipped, strings.Join(looked, ", "))
	}
	return nil
}

// copyOne performs one Copy and returns how many files it wrote.
func (s *Files) copyOne(ctx context.Context, out Sink, c Copy) (int, error) {
	wild := hasWildcard(c.From)
	matches := []string{c.From}
	if wild {
		matches = s.tree.Glob(c.From)
	}
	copied := 0
	var errs []error
	for _, m := range matches {
		if ctx.Err() != nil {
			return copied, ctx.Err()
		}
		info, err := s.tree.Stat(m)
		if err != nil {
			if !wild && isNotExist(err) {
				continue
			}
			errs = append(errs, err)
			continue
		}
		switch {
		case info.IsDir() && c.Dir:
			dest := c.To
			if wild {
				dest = path.Join(c.To, path.Base(m))
			}
			n, err := s.copyFolder(ctx, out, m, dest, c)
			copied += n
			if err != nil {
				errs = append(errs, err)
			}
		case info.Mode().IsRegular():
			dest := c.To
			if wild || c.Dir {
				dest = path.Join(c.To, path.Base(m))
			}
			written, err := s.copyFile(ctx, out, m, dest, c)
			if written {
				copied++
			}
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	return copied, errors.Join(errs...)
}

func isNotExist(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, ErrOutsideRoot)
}

func (s *Files) copyFolder(ctx context.Context, out Sink, dir, dest string, c Copy) (int, error) {
	depth := c.Depth
	if depth == 0 {
		depth = 4
	}
	copied := 0
	var errs []error
	err := s.tree.WalkFiles(dir, depth, func(rel string, err error) error {
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		written, err := s.copyFile(ctx, out, path.Join(dir, rel), path.Join(dest, rel), c)
		if written {
			copied++
		}
		if err != nil {
			errs = append(errs, err)
		}
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	return copied, errors.Join(errs...)
}

// copyFile copies one regular file; .gz files are stored decompressed,
// without the suffix, so that they can be redacted and read.
func (s *Files) copyFile(ctx context.Context, out Sink, from, to string, c Copy) (bool, error) {
	src, info, err := s.tree.Open(from)
	if err != nil {
		return false, err
	}
	defer src.Close()
	if c.SkipOver > 0 && info.Size() > c.SkipOver {
		return false, nil
	}
	if strings.HasSuffix(from, ".gz") {
		return s.copyGzip(ctx, out, src, from, strings.TrimSuffix(to, ".gz"))
	}
	dst, err := out.Create(to)
	if err != nil {
		return false, err
	}
	if c.Tail > 0 && info.Size() > c.Tail+tailMargin {
		start, err := lineStartAtOrAfter(src, info.Size()-c.Tail-tailMargin)
		if err == nil {
			_, err = src.Seek(start, io.SeekStart)
		}
		if err != nil {
			return true, errors.Join(fmt.Errorf("seeking in %s: %w", from, err), dst.Close())
		}
		dst.SkipHead(start)
	}
	_, err = copyContext(ctx, dst, src)
	if err != nil {
		err = fmt.Errorf("copying %s: %w", from, err)
	}
	return true, errors.Join(err, dst.Close())
}

func (s *Files) copyGzip(ctx context.Context, out Sink, src io.Reader, from, to string) (bool, error) {
	zr, err := gzip.NewReader(src)
	if err != nil {
		return false, fmt.Errorf("decompressing %s: %w", from, err)
	}
	defer zr.Close()
	dst, err := out.Create(to)
	if err != nil {
		return false, err
	}
	n, err := copyContext(ctx, dst, io.LimitReader(zr, maxGunzipBytes))
	if err == nil && n == maxGunzipBytes {
		err = fmt.Errorf("%s: decompressed content over %d MiB, the rest was not read", from, maxGunzipBytes>>20)
	} else if err != nil {
		err = fmt.Errorf("decompressing %s: %w", from, err)
	}
	return true, errors.Join(err, dst.Close())
}

// copyContext copies until EOF, an error or the end of ctx.
func copyContext(ctx context.Context, dst io.Writer, src io.Reader) (int64, error) {
	buf := make([]byte, 256<<10)
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		n, rerr := src.Read(buf)
		if n > 0 {
			w, werr := dst.Write(buf[:n])
			total += int64(w)
			if werr != nil {
				return total, werr
			}
		}
		if errors.Is(rerr, io.EOF) {
			return total, nil
		}
		if rerr != nil {
			return total, rerr
		}
	}
}
