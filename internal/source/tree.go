package source

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// maxLinkHops bounds how many symbolic links one path may go through, like
// the kernel's limit for a single lookup.
const maxLinkHops = 40

// Tree is a node's file system seen from its root: "/" on the node itself,
// or the folder where a node's volume is mounted (--root). Paths given to a
// Tree are the node's own ("/var/log/messages"). Symbolic links are resolved
// the way the node would resolve them: an absolute target starts again at the
// root, and ".." never climbs above it. Files are then opened through an
// os.Root, which refuses anything that would still leave the root.
type Tree struct {
	dir  string
	root *os.Root
	// hostIsNode is set when the machine collect runs on is the node even
	// though its root is mounted elsewhere (a privileged pod with hostPID
	// and hostNetwork that mounts the node's / at /host).
	hostIsNode bool
}

// OpenTree opens the node root at dir.
func OpenTree(dir string) (*Tree, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("root %s: %w", dir, err)
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("opening root %s: %w", abs, err)
	}
	return &Tree{dir: abs, root: r}, nil
}

// Close releases the root.
func (t *Tree) Close() error { return t.root.Close() }

// Dir is the root folder on the machine collect runs on.
func (t *Tree) Dir() string { return t.dir }

// Live reports whether the tree is the running machine itself, so that
// commands, /proc and /sys describe the same node as the files: its root is
// "/", or SetHostIsNode said so.
func (t *Tree) Live() bool { return t.dir == "/" || t.hostIsNode }

// Mounted reports whether the root is not "/": the files are read from a
// folder where the node's file system is mounted.
func (t *Tree) Mounted() bool { return t.dir != "/" }

// SetHostIsNode declares that the running machine is the node whose root
// is mounted at Dir: collect runs in a container that shares the node's PID
// and network namespaces, so commands, /proc and /sys describe the node.
func (t *Tree) SetHostIsNode() { t.hostIsNode = true }

// Resolve returns the node path p with every symbolic link resolved inside
// the root, relative to the root and slash separated ("." for the root).
func (t *Tree) Resolve(p string) (string, error) {
	return t.resolve(p, true)
}

// resolve walks p one element at a time; followLast says whether a link in
// the last element is followed too.
func (t *Tree) resolve(p string, followLast bool) (string, error) {
	pending := splitPath(p)
	var done []string
	hops := 0
	for len(pending) > 0 {
		elem := pending[0]
		pending = pending[1:]
		if elem == ".." {
			if len(done) > 0 {
				done = done[:len(done)-1]
			}
			continue
		}
		candidate := path.Join(append(slices.Clone(done), elem)...)
		info, err := t.root.Lstat(candidate)
		if err != nil {
			return "", fmt.Errorf("%s: %w", p, unwrapPathError(err))
		}
		if info.Mode()&fs.ModeSymlink == 0 || (len(pending) == 0 && !followLast) {
			if len(pending) > 0 && !info.IsDir() {
				return "", fmt.Errorf("%s: %w: %s is not a folder", p, ErrOutsideRoot, candidate)
			}
			done = append(done, elem)
			continue
		}
		hops++
		if hops > maxLinkHops {
			return "", fmt.Errorf("%s: %w: too many symbolic links", p, ErrOutsideRoot)
		}
		target, err := t.root.Readlink(candidate)
		if err != nil {
			return "", fmt.Errorf("%s: reading link %s: %w", p, candidate, unwrapPathError(err))
		}
		if strings.HasPrefix(target, "/") {
			done = nil
		}
		pending = append(splitPath(target), pending...)
	}
	if len(done) == 0 {
		return ".", nil
	}
	return path.Join(done...), nil
}

// splitPath cuts a path into its elements, dropping empty and "." ones.
func splitPath(p string) []string {
	var elems []string
	for _, e := range strings.Split(filepath.ToSlash(p), "/") {
		if e != "" && e != "." {
			elems = append(elems, e)
		}
	}
	return elems
}

// unwrapPathError drops the *PathError layer of os.Root errors, whose path
// is relative to the root and confusing in messages; the caller names the
// node path instead.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// HostPath returns where the node path p really is on this machine, after
// resolving it inside the root. Tools that take a path (journal readers) are
// given this.
func (t *Tree) HostPath(p string) (string, error) {
	rel, err := t.Resolve(p)
	if err != nil {
		return "", err
	}
	return filepath.Join(t.dir, filepath.FromSlash(rel)), nil
}

// Stat describes what p points to.
func (t *Tree) Stat(p string) (fs.FileInfo, error) {
	rel, err := t.Resolve(p)
	if err != nil {
		return nil, err
	}
	info, err := t.root.Lstat(rel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, unwrapPathError(err))
	}
	return info, nil
}

// Open opens the regular file at node path p.
func (t *Tree) Open(p string) (*os.File, fs.FileInfo, error) {
	rel, err := t.Resolve(p)
	if err != nil {
		return nil, nil, err
	}
	f, err := t.root.OpenFile(rel, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("opening %s: %w", p, unwrapPathError(err))
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("stat %s: %w", p, err)
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w: not a regular file (%s)", p, ErrSkipped, info.Mode().Type())
	}
	return f, info, nil
}

// ReadFile reads at most limit bytes of the regular file at p.
func (t *Tree) ReadFile(p string, limit int64) ([]byte, error) {
	f, _, err := t.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	return data, nil
}

// Exists reports whether p resolves to something inside the root.
func (t *Tree) Exists(p string) bool {
	_, err := t.Stat(p)
	return err == nil
}

// ReadDir lists the folder at p, sorted by name.
func (t *Tree) ReadDir(p string) ([]fs.DirEntry, error) {
	rel, err := t.Resolve(p)
	if err != nil {
		return nil, err
	}
	d, err := t.root.Open(rel)
	if err != nil {
		return nil, fmt.Errorf("opening folder %s: %w", p, unwrapPathError(err))
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", p, err)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// Glob returns the node paths matching pattern, whose elements may hold the
// wildcards of path.Match, sorted. The paths keep the names of the pattern
// (links in them are resolved only when the files are opened). Folders that
// cannot be listed count as holding nothing.
func (t *Tree) Glob(pattern string) []string {
	matches := []string{"/"}
	for _, elem := range splitPath(pattern) {
		var next []string
		for _, dir := range matches {
			next = append(next, t.globOne(dir, elem)...)
		}
		matches = next
	}
	slices.Sort(matches)
	return slices.Compact(matches)
}

func (t *Tree) globOne(dir, elem string) []string {
	if !hasWildcard(elem) {
		p := path.Join(dir, elem)
		if t.Exists(p) {
			return []string{p}
		}
		return nil
	}
	entries, err := t.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if ok, _ := path.Match(elem, e.Name()); ok {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	return out
}

func hasWildcard(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// WalkFiles calls fn with the path (relative to dir, slash separated) of
// every regular file under the folder dir, in name order, down to maxDepth
// folder levels. Links to files are followed (inside the root); links to
// folders are not, so a link loop cannot trap the walk. Folders that cannot
// be listed are reported to fn with their own relative path and the error;
// fn decides whether that ends the walk.
func (t *Tree) WalkFiles(dir string, maxDepth int, fn func(rel string, err error) error) error {
	return t.walk(dir, "", maxDepth, fn)
}

func (t *Tree) walk(dir, rel string, depth int, fn func(string, error) error) error {
	entries, err := t.ReadDir(path.Join(dir, rel))
	if err != nil {
		return fn(rel, err)
	}
	for _, e := range entries {
		child := path.Join(rel, e.Name())
		switch {
		case e.IsDir():
			if depth > 0 {
				if err := t.walk(dir, child, depth-1, fn); err != nil {
					return err
				}
			}
		case e.Type().IsRegular():
			if err := fn(child, nil); err != nil {
				return err
			}
		case e.Type()&fs.ModeSymlink != 0:
			info, err := t.Stat(path.Join(dir, child))
			if err == nil && info.Mode().IsRegular() {
				if err := fn(child, nil); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
