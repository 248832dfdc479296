package source

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// makeTree builds a node root from a map of path → content, where content
// starting with "->" makes a symbolic link to the rest.
func makeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if strings.HasSuffix(p, "/") {
			continue
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func openTree(t *testing.T, dir string) *Tree {
	t.Helper()
	tree, err := OpenTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tree.Close() })
	return tree
}

// hostSecret writes a file outside every node root, standing for a file of
// the machine collect runs on that must never be read through a root.
func hostSecret(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "host-secret.txt")
	if err := os.WriteFile(p, []byte("HOST-ONLY-CONTENT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTreeResolveStaysInsideRoot(t *testing.T) {
	secret := hostSecret(t)
	root := makeTree(t, map[string]string{
		"etc/hostname":                   "node-name\n",
		"var/run":                        "->../run",
		"run/aws-node/ipam.json":         "{}",
		"run/cloud-init/result":          "->/var/lib/cloud/data/result.json",
		"var/lib/cloud/data/result.json": "ok",
		"var/log/abs-escape":             "->" + secret,
		"var/log/rel-escape":             "->../../../../../../../../.." + secret,
		"var/log/to-root":                "->/",
		"var/log/dotdot-host":            "->../../../../etc/hostname",
		"loop/a":                         "->b",
		"loop/b":                         "->a",
		"file-as-dir":                    "x",
	})
	tree := openTree(t, root)
	tests := []struct {
		path    string
		want    string
		wantErr error
	}{
		{"/etc/hostname", "etc/hostname", nil},
		{"/var/run/aws-node/ipam.json", "run/aws-node/ipam.json", nil},
		{"/run/cloud-init/result", "var/lib/cloud/data/result.json", nil},
		{"/var/log/to-root", ".", nil},
		{"/var/log/dotdot-host", "etc/hostname", nil},
		{"/../../etc/hostname", "etc/hostname", nil},
		{"/var/log/abs-escape", "", os.ErrNotExist},
		{"/var/log/rel-escape", "", os.ErrNotExist},
		{"/loop/a", "", ErrOutsideRoot},
		{"/file-as-dir/x", "", ErrOutsideRoot},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, err := tree.Resolve(tt.path)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Resolve(%q) = %q, %v; want error %v", tt.path, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Resolve(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
			}
		})
	}
	data, err := tree.ReadFile("/var/log/dotdot-host", 100)
	if err != nil || string(data) != "node-name\n" {
		t.Fatalf("ReadFile through a link = %q, %v; want the root's own hostname", data, err)
	}
}

func TestTreeGlobAndWalk(t *testing.T) {
	root := makeTree(t, map[string]string{
		"var/log/pods/kube-system_aws-node-1_u/aws-node/0.log": "a",
		"var/log/pods/kube-system_coredns-2_u/coredns/0.log":   "b",
		"var/log/pods/default_web_u/web/0.log":                 "c",
		"var/log/containers/aws-node.log":                      "->/var/log/pods/kube-system_aws-node-1_u/aws-node/0.log",
		"var/log/containers/loop":                              "->/var/log",
	})
	tree := openTree(t, root)
	got := tree.Glob("/var/log/pods/kube-system_*")
	want := []string{"/var/log/pods/kube-system_aws-node-1_u", "/var/log/pods/kube-system_coredns-2_u"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Glob = %v, want %v", got, want)
	}
	var walked []string
	err := tree.WalkFiles("/var/log/containers", 4, func(rel string, err error) error {
		if err != nil {
			t.Errorf("walk error at %s: %v", rel, err)
		}
		walked = append(walked, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(walked, ",") != "aws-node.log" {
		t.Fatalf("WalkFiles = %v; want only the linked file (a link to a folder is not followed)", walked)
	}
}

func FuzzTreeResolve(f *testing.F) {
	root := f.TempDir()
	for p, target := range map[string]string{"a": "/b", "b": "../../c", "c": "a/../../x", "d": "/"} {
		if err := os.Symlink(target, filepath.Join(root, p)); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "x", "y"), 0o755); err != nil {
		f.Fatal(err)
	}
	tree, err := OpenTree(root)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{"/a", "../..", "/d/d/d/x/y", "x/../../../etc/passwd", "/x/y/../../a", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, p string) {
		rel, err := tree.Resolve(p)
		if err != nil {
			return
		}
		if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") || strings.Contains(rel, "/../") {
			t.Fatalf("Resolve(%q) = %q leaves the root", p, rel)
		}
	})
}
