package source

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// Condition tells whether a command applies to the node. It returns nil
// when it does, or an error saying why not; the command is then skipped
// with that reason instead of failing.
type Condition func(tree *Tree) error

// PathExists holds when the node path p exists (a socket, a file, a
// folder), for example /var/run/docker.sock for the docker commands.
func PathExists(p string) Condition {
	return func(tree *Tree) error {
		_, err := tree.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s does not exist on the node", p)
		case err != nil:
			return fmt.Errorf("checking %s: %w", p, err)
		}
		return nil
	}
}

// moduleIndexLimit bounds how much of a module index is read.
const moduleIndexLimit = 16 << 20

// ModuleAvailable holds when the running kernel has the module name, built
// in or as a file listed in modules.dep, so that modinfo is not run (and
// does not fail) for a module the node never had.
func ModuleAvailable(name string) Condition {
	return func(tree *Tree) error {
		return moduleInIndex(tree, KernelRelease(), name)
	}
}

// moduleInIndex looks name up in the modules.dep and modules.builtin of the
// kernel release under /lib/modules.
func moduleInIndex(tree *Tree, release, name string) error {
	if release == "" {
		return errors.New("kernel release unknown")
	}
	dir := path.Join("/lib/modules", release)
	read := 0
	for _, index := range []string{"modules.dep", "modules.builtin"} {
		data, err := tree.ReadFile(path.Join(dir, index), moduleIndexLimit)
		if err != nil {
			continue
		}
		read++
		if moduleListed(data, name) {
			return nil
		}
	}
	if read == 0 {
		return fmt.Errorf("no module %s found for kernel %s: no modules.dep or modules.builtin in %s", name, release, dir)
	}
	return fmt.Errorf("kernel %s has no module %s", release, name)
}

// moduleListed reports whether a modules.dep or modules.builtin listing
// names the module: lines start with its path
// ("extra/lustre/lustre.ko.xz: ..."); dashes and underscores are the same
// in module names.
func moduleListed(index []byte, name string) bool {
	want := normalizeModuleName(name)
	sc := bufio.NewScanner(bytes.NewReader(index))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		file, _, _ := strings.Cut(sc.Text(), ":")
		base := path.Base(strings.TrimSpace(file))
		for _, ext := range []string{".xz", ".zst", ".gz"} {
			base = strings.TrimSuffix(base, ext)
		}
		if !strings.HasSuffix(base, ".ko") {
			continue
		}
		if normalizeModuleName(strings.TrimSuffix(base, ".ko")) == want {
			return true
		}
	}
	return false
}

func normalizeModuleName(name string) string { return strings.ReplaceAll(name, "-", "_") }
