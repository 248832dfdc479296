package imds

import (
	"fmt"
	"strings"
)

const (
	roleListingPath = "/latest/meta-data/iam/security-credentials/"
	credentialsRoot = "/latest/meta-data/iam/security-credentials"
)

// checkPath refuses any path that is not a plain metadata path or that could
// return credentials. It runs before every request, whatever built the path,
// so a hostile value (a MAC address read from the service, say) cannot steer
// the client to a secret.
func checkPath(path string) error {
	if !strings.HasPrefix(path, "/latest/") {
		return fmt.Errorf("%q: %w: not under /latest/", path, ErrForbiddenPath)
	}
	for _, r := range path {
		if !isPathRune(r) {
			return fmt.Errorf("%q: %w: character %q", path, ErrForbiddenPath, r)
		}
	}
	if strings.Contains(path, "//") || strings.Contains(path, "/./") || strings.Contains(path, "/../") ||
		strings.HasSuffix(path, "/.") || strings.HasSuffix(path, "/..") {
		return fmt.Errorf("%q: %w: not a clean path", path, ErrForbiddenPath)
	}
	lower := strings.ToLower(path)
	if strings.Contains(lower, "identity-credentials") {
		return fmt.Errorf("%q: %w", path, ErrForbiddenPath)
	}
	if strings.HasPrefix(lower, credentialsRoot) && lower != roleListingPath {
		return fmt.Errorf("%q: %w", path, ErrForbiddenPath)
	}
	return nil
}

func isPathRune(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	case r == '/', r == '-', r == '_', r == '.', r == ':':
		return true
	}
	return false
}
