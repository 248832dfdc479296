package signature

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// glob is a slash-separated path pattern. A segment "**" matches zero or
// more whole segments; any other segment is a path.Match pattern for one
// segment (*, ?, [...]).
type glob []string

func compileGlob(pattern string) (glob, error) {
	if pattern == "" {
		return nil, errors.New("empty path pattern")
	}
	if strings.HasPrefix(pattern, "/") {
		return nil, fmt.Errorf("path pattern %q must be relative to the bundle root", pattern)
	}
	segs := strings.Split(pattern, "/")
	for _, seg := range segs {
		switch {
		case seg == "" || seg == "." || seg == "..":
			return nil, fmt.Errorf("path pattern %q: empty, . or .. segment", pattern)
		case seg == "**":
		case strings.Contains(seg, "**"):
			return nil, fmt.Errorf("path pattern %q: ** must be a whole segment", pattern)
		default:
			if _, err := path.Match(seg, ""); err != nil {
				return nil, fmt.Errorf("path pattern %q: %w", pattern, err)
			}
		}
	}
	return glob(segs), nil
}

// match reports whether the cleaned, slash-separated path matches.
func (g glob) match(p string) bool {
	return matchSegments(g, strings.Split(p, "/"))
}

func matchSegments(pattern, segs []string) bool {
	for len(pattern) > 0 {
		if pattern[0] == "**" {
			for skip := 0; skip <= len(segs); skip++ {
				if matchSegments(pattern[1:], segs[skip:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pattern[0], segs[0]); !ok {
			return false
		}
		pattern, segs = pattern[1:], segs[1:]
	}
	return len(segs) == 0
}

// cleanBundlePath turns a path as a bundle reader may give it ("./a//b",
// "/a/b") into the form globs are written against ("a/b").
func cleanBundlePath(p string) string {
	p = path.Clean("/" + strings.ReplaceAll(p, "\\", "/"))
	return strings.TrimPrefix(p, "/")
}
