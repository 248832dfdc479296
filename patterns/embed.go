// Package patterns holds the signature catalog: one YAML file per component
// plus sources.yaml, which maps logical sources to bundle paths. The format
// is described in README.md and loaded by internal/signature.
package patterns

import "embed"

// FS holds every catalog file, embedded in the analyze binary.
//
//go:embed *.yaml
var FS embed.FS
