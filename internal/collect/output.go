package collect

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/nodetriage/nodetriage/internal/bundle"
)

// target is where the bundle goes: a folder, and the file name when the user
// gave one.
type target struct {
	dir  string
	name string // empty: the default name, chosen once the instance id is known
}

// resolveTarget checks that the output folder exists and can be written.
func resolveTarget(output string) (target, error) {
	abs, err := filepath.Abs(output)
	if err != nil {
		return target{}, fmt.Errorf("%w: %s: %w", ErrOutput, output, err)
	}
	t := target{dir: abs}
	if info, err := os.Stat(abs); err == nil && info.IsDir() {
		// a folder: default name
	} else if err == nil || errors.Is(err, fs.ErrNotExist) {
		t = target{dir: filepath.Dir(abs), name: filepath.Base(abs)}
		if err == nil && !info.Mode().IsRegular() {
			return target{}, fmt.Errorf("%w: %s exists and is not a regular file", ErrOutput, abs)
		}
	} else {
		return target{}, fmt.Errorf("%w: %s: %w", ErrOutput, abs, err)
	}
	info, err := os.Stat(t.dir)
	if err != nil {
		return target{}, fmt.Errorf("%w: folder %s: %w", ErrOutput, t.dir, err)
	}
	if !info.IsDir() {
		return target{}, fmt.Errorf("%w: %s is not a folder", ErrOutput, t.dir)
	}
	probe, err := os.CreateTemp(t.dir, ".nodetriage-write-test-*")
	if err != nil {
		return target{}, fmt.Errorf("%w: folder %s is not writable: %w", ErrOutput, t.dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return t, nil
}

// minFreeBytes is the free space collect wants before it starts: room for
// the staging folder (several times the budget, since logs are staged
// uncompressed) and the archive.
func minFreeBytes(maxSize int64) uint64 {
	if maxSize <= 0 {
		return 256 << 20
	}
	return uint64(32<<20 + 8*maxSize)
}

// checkFreeSpace fails with ErrNoSpace when dir's file system is too full.
func checkFreeSpace(dir string, maxSize int64) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return fmt.Errorf("%w: checking free space in %s: %w", ErrOutput, dir, err)
	}
	free := st.Bavail * uint64(st.Bsize)
	if need := minFreeBytes(maxSize); free < need {
		return fmt.Errorf("%w: %s has %d MiB free, collect needs at least %d MiB (lower --max-size or choose another --output)",
			ErrNoSpace, dir, free>>20, need>>20)
	}
	return nil
}

// archiveFile is the bundle being written: a hidden temporary file in the
// output folder, renamed into place only once complete.
type archiveFile struct {
	f    *os.File
	path string
}

func newArchiveFile(dir, name string) (*archiveFile, error) {
	f, err := os.CreateTemp(dir, "."+name+".partial-*")
	if err != nil {
		return nil, outputError(dir, err)
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, outputError(dir, err)
	}
	return &archiveFile{f: f, path: f.Name()}, nil
}

// write replaces the temporary file's content with an archive of dir and
// returns its size.
func (a *archiveFile) write(ctx context.Context, format bundle.Format, dir string) (int64, error) {
	if err := a.f.Truncate(0); err != nil {
		return 0, outputError(a.path, err)
	}
	if _, err := a.f.Seek(0, 0); err != nil {
		return 0, outputError(a.path, err)
	}
	if err := bundle.WriteDir(ctx, a.f, format, dir); err != nil {
		return 0, outputError(a.path, err)
	}
	if err := a.f.Sync(); err != nil {
		return 0, outputError(a.path, err)
	}
	info, err := a.f.Stat()
	if err != nil {
		return 0, outputError(a.path, err)
	}
	return info.Size(), nil
}

// discard removes the temporary file.
func (a *archiveFile) discard() {
	a.f.Close()
	os.Remove(a.path)
}

// commit closes the file and gives it its final name. A file name chosen by
// the user replaces what was there; a default name never overwrites another
// bundle (two runs in the same minute get "_2", "_3"...).
func (a *archiveFile) commit(dir, name string, replace bool) (string, error) {
	if err := a.f.Close(); err != nil {
		os.Remove(a.path)
		return "", outputError(a.path, err)
	}
	final := filepath.Join(dir, name)
	var err error
	if replace {
		err = os.Rename(a.path, final)
	} else {
		final, err = linkUnique(a.path, dir, name)
		if err == nil {
			err = os.Remove(a.path)
		}
	}
	if err != nil {
		os.Remove(a.path)
		return "", outputError(final, err)
	}
	syncDir(dir)
	return final, nil
}

// linkUnique hard-links src as dir/name, or name with a numeric suffix when
// that exists, and returns the path used. A link never replaces a file.
func linkUnique(src, dir, name string) (string, error) {
	base, ext := splitBundleExt(name)
	for n := 1; n < 1000; n++ {
		candidate := name
		if n > 1 {
			candidate = fmt.Sprintf("%s_%d%s", base, n, ext)
		}
		p := filepath.Join(dir, candidate)
		err := os.Link(src, p)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return p, err
		}
	}
	return "", fmt.Errorf("no free name for %s in %s", name, dir)
}

// splitBundleExt splits "x.tar.gz" into "x" and ".tar.gz".
func splitBundleExt(name string) (string, string) {
	for _, ext := range []string{".tar.gz", ".tar.zst", ".tgz", ".zip", ".tar"} {
		if strings.HasSuffix(name, ext) {
			return strings.TrimSuffix(name, ext), ext
		}
	}
	ext := filepath.Ext(name)
	return strings.TrimSuffix(name, ext), ext
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// outputError wraps a write failure; a full disk gets ErrNoSpace.
func outputError(p string, err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("%w: writing %s: %w", ErrNoSpace, p, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrOutput, p, err)
}
