package signature

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// SourcesFile is the file of a catalog directory that maps logical sources
// to bundle paths; every other *.yaml file holds signatures.
const SourcesFile = "sources.yaml"

// Load reads every *.yaml file at the top of fsys and returns the validated
// catalog. All problems found are returned together (errors.Join of
// *LoadError), each naming file, line and signature id.
func Load(fsys fs.FS) (*Catalog, error) {
	return load(fsys, nil)
}

// LoadDir is Load on a directory of the file system.
func LoadDir(dir string) (*Catalog, error) {
	c, err := Load(os.DirFS(dir))
	if err != nil {
		return nil, fmt.Errorf("patterns %s: %w", dir, err)
	}
	return c, nil
}

// Overlay loads the catalog files of fsys on top of c (for --patterns DIR):
// a signature whose id c already has replaces it, others are added, and
// sources and explains may name what c defines. c is not modified.
func (c *Catalog) Overlay(fsys fs.FS) (*Catalog, error) {
	return load(fsys, c)
}

func load(fsys fs.FS, base *Catalog) (*Catalog, error) {
	names, err := catalogFiles(fsys)
	if err != nil {
		return nil, err
	}
	var errs errorList
	loaded := &Catalog{}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			errs.add(fmt.Errorf("%s: %w", name, err))
			continue
		}
		if name == SourcesFile {
			loaded.sources = append(loaded.sources, parseSources(name, data, &errs)...)
			continue
		}
		loaded.signatures = append(loaded.signatures, parseSignatures(name, data, &errs)...)
	}
	checkDuplicates(loaded, &errs)
	result := loaded
	if base != nil {
		result = base.Merge(loaded)
	}
	checkReferences(result, loaded, &errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	return result, nil
}

// catalogFiles lists the *.yaml and *.yml files at the top of fsys,
// sorted, so the catalog order is stable.
func catalogFiles(fsys fs.FS) ([]string, error) {
	var names []string
	for _, pattern := range []string{"*.yaml", "*.yml"} {
		found, err := fs.Glob(fsys, pattern)
		if err != nil {
			return nil, fmt.Errorf("listing catalog files: %w", err)
		}
		names = append(names, found...)
	}
	if len(names) == 0 {
		return nil, ErrNoFiles
	}
	slices.Sort(names)
	return names, nil
}

func parseSignatures(file string, data []byte, errs *errorList) []*Signature {
	var raw rawSignatureFile
	if err := parseDocument(data, &raw); err != nil {
		errs.addIn(file, "", err)
		return nil
	}
	component := strings.TrimSuffix(strings.TrimSuffix(path.Base(file), ".yaml"), ".yml")
	var sigs []*Signature
	for i := range raw.Signatures {
		node := &raw.Signatures[i]
		var r rawSignature
		if err := node.Decode(&r); err != nil {
			errs.addIn(file, peekID(node), yamlError(err))
			continue
		}
		sig, err := buildSignature(&r, component)
		if err != nil {
			errs.addIn(file, r.ID, err)
			continue
		}
		sig.File = file
		sigs = append(sigs, sig)
	}
	return sigs
}

func parseSources(file string, data []byte, errs *errorList) []*Source {
	var raw rawSourceFile
	if err := parseDocument(data, &raw); err != nil {
		errs.addIn(file, "", err)
		return nil
	}
	var sources []*Source
	for i := range raw.Sources {
		var r rawSource
		if err := raw.Sources[i].Decode(&r); err != nil {
			errs.addIn(file, "", yamlError(err))
			continue
		}
		src, err := buildSource(&r)
		if err != nil {
			errs.addIn(file, "", sourceError(r.Name, err))
			continue
		}
		src.File = file
		sources = append(sources, src)
	}
	return sources
}

// sourceError names the source in the detail, since LoadError's id slot
// is worded for signatures.
func sourceError(name string, err error) error {
	if le, ok := err.(*LoadError); ok && name != "" {
		le.Err = fmt.Errorf("source %q: %w", name, le.Err)
	}
	return err
}

// checkDuplicates reports ids (and source names) defined twice in one load.
func checkDuplicates(c *Catalog, errs *errorList) {
	seen := map[string]*Signature{}
	for _, s := range c.signatures {
		if first, dup := seen[s.ID]; dup {
			errs.add(&LoadError{File: s.File, Line: s.Line, ID: s.ID, Field: "id", Kind: ErrDuplicate,
				Err: fmt.Errorf("already defined at %s:%d", first.File, first.Line)})
			continue
		}
		seen[s.ID] = s
	}
	sources := map[string]*Source{}
	for _, src := range c.sources {
		if first, dup := sources[src.Name]; dup {
			errs.add(&LoadError{File: src.File, Line: src.Line, Field: "name", Kind: ErrDuplicate,
				Err: fmt.Errorf("source %q already defined at %s:%d", src.Name, first.File, first.Line)})
			continue
		}
		sources[src.Name] = src
	}
}

// checkReferences checks, for the signatures loaded now, that their sources
// and explains exist in the resulting catalog, and that explains has no
// cycle.
func checkReferences(result, loaded *Catalog, errs *errorList) {
	sources := map[string]bool{}
	for _, src := range result.sources {
		sources[src.Name] = true
	}
	ids := map[string]*Signature{}
	for _, s := range result.signatures {
		ids[s.ID] = s
	}
	for _, s := range loaded.signatures {
		for _, name := range s.Sources {
			if !sources[name] {
				errs.add(&LoadError{File: s.File, Line: s.Line, ID: s.ID, Field: "sources", Kind: ErrUnknownReference,
					Err: fmt.Errorf("no source named %q in %s", name, SourcesFile)})
			}
		}
		for _, id := range s.Explains {
			if ids[id] == nil || id == s.ID {
				errs.add(&LoadError{File: s.File, Line: s.Line, ID: s.ID, Field: "explains", Kind: ErrUnknownReference,
					Err: fmt.Errorf("no other signature has id %q", id)})
			}
		}
	}
	if cycle := explainsCycle(result.signatures, ids); cycle != nil {
		first := ids[cycle[0]]
		errs.add(&LoadError{File: first.File, Line: first.Line, ID: first.ID, Field: "explains", Kind: ErrUnknownReference,
			Err: fmt.Errorf("explains forms a cycle: %s", strings.Join(cycle, " -> "))})
	}
}

// explainsCycle returns one cycle of the explains graph, or nil.
func explainsCycle(sigs []*Signature, ids map[string]*Signature) []string {
	const (
		unvisited = iota
		active
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(id string) []string
	visit = func(id string) []string {
		switch state[id] {
		case active:
			at := slices.Index(stack, id)
			return append(slices.Clone(stack[at:]), id)
		case done:
			return nil
		}
		state[id] = active
		stack = append(stack, id)
		if s := ids[id]; s != nil {
			for _, next := range s.Explains {
				if cycle := visit(next); cycle != nil {
					return cycle
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[id] = done
		return nil
	}
	for _, s := range sigs {
		if cycle := visit(s.ID); cycle != nil {
			return cycle
		}
	}
	return nil
}

// peekID reads the id of a signature node that failed to decode, so the
// error can still name it.
func peekID(n *yaml.Node) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "id" && n.Content[i+1].Kind == yaml.ScalarNode {
			return n.Content[i+1].Value
		}
	}
	return ""
}
