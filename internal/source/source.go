// Package source holds the things collect gathers from a node: copies of
// files, the output of commands, journal units rendered as text, the kernel
// log, the instance metadata, the user data and reachability probes.
//
// Every source reads the node through a Tree, which resolves symbolic links
// inside the node's root (so a mounted volume never leads to the files of
// the machine collect runs on), and writes what it found through a Sink, which
// redacts, caps and records each file it creates in a staging folder. The
// list of sources for a node, in the order they should start, comes from
// Catalog.
package source

import (
	"context"
	"errors"
	"time"
)

// Source is one thing collect gathers.
type Source interface {
	// Name identifies the source in the manifest and the progress output.
	Name() string
	// Collect gathers what the source stands for into out. It returns an
	// error wrapping ErrSkipped when there was nothing to gather (a missing
	// tool, a file that does not exist, a live-only source under --root).
	// Files written before an error stay in the bundle.
	Collect(ctx context.Context, out Sink) error
}

// Deadliner is a Source with its own time limit. Sources without one get the
// orchestrator's default.
type Deadliner interface {
	Deadline() time.Duration
}

// Errors shared by the sources; check them with errors.Is.
var (
	// ErrSkipped means the source had nothing to gather here; the wrapping
	// error says why.
	ErrSkipped = errors.New("skipped")
	// ErrBadName is returned for a bundle path that is empty, absolute or
	// leaves the bundle.
	ErrBadName = errors.New("invalid bundle path")
	// ErrExists is returned when two sources create the same bundle path.
	ErrExists = errors.New("bundle path already written")
	// ErrOutsideRoot is returned when a path under --root cannot be resolved
	// inside it (a symbolic link loop, or a component that is not a folder).
	ErrOutsideRoot = errors.New("path cannot be resolved inside the root")
)
