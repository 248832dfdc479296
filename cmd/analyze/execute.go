package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"

	"github.com/nodetriage/nodetriage/internal/analyze"
	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/nodetriage/nodetriage/internal/report"
	"github.com/nodetriage/nodetriage/internal/signature"
	"github.com/nodetriage/nodetriage/patterns"
)

func (c *config) execute(ctx context.Context, stdout, stderr io.Writer) (int, error) {
	if c.version {
		fmt.Fprintf(stdout, "analyze %s (commit %s)\n", version, commit)
		return exitClean, nil
	}
	if c.dumpPatterns != "" {
		return dumpPatterns(c.dumpPatterns)
	}
	cat, err := c.catalog()
	if err != nil {
		return exitUsage, err
	}
	switch {
	case c.list:
		return exitClean, listCatalog(stdout, cat)
	case c.explain != "":
		return explain(stdout, cat, c.explain)
	case c.exportPatterns != "":
		return exportPatterns(c.exportPatterns, cat)
	}
	paths, err := expandInputs(c.inputs)
	if err != nil {
		return exitUsage, err
	}
	a, err := analyze.New(analyze.Options{Catalog: cat, Limits: c.limits, Jobs: c.jobs, KeepFacts: c.facts})
	if err != nil {
		return exitUsage, err
	}
	r := a.Run(ctx, paths)
	opts := report.Options{Color: c.color, MaxEvidence: c.maxEvidence, PerBundle: c.perBundle}
	if err := report.Write(stdout, r, c.format, opts); err != nil {
		return exitUsage, err
	}
	return exitCode(r, stderr), nil
}

// exitCode is 2 when a bundle could not be read, else 1 when something at
// warning or above was found.
func exitCode(r *analyze.Report, stderr io.Writer) int {
	code := exitClean
	if r.Serious() {
		code = exitFindings
	}
	for _, b := range r.Bundles {
		if b.Error != "" {
			fmt.Fprintf(stderr, "analyze: %s\n", b.Error)
			code = exitUsage
		}
	}
	return code
}

// catalog loads the embedded catalog and, with --patterns, the user's.
func (c *config) catalog() (*signature.Catalog, error) {
	cat, err := signature.Load(patterns.FS)
	if err != nil {
		return nil, fmt.Errorf("embedded catalog: %w", err)
	}
	if c.patternsDir == "" {
		return cat, nil
	}
	if _, err := os.Stat(c.patternsDir); err != nil {
		return nil, fmt.Errorf("--patterns: %w", err)
	}
	return cat.Overlay(os.DirFS(c.patternsDir))
}

// expandInputs turns the arguments into bundle paths: globs are expanded, and
// a folder that is not itself a bundle stands for the bundles in it.
func expandInputs(args []string) ([]string, error) {
	var paths []string
	for _, arg := range args {
		matches, err := filepath.Glob(arg)
		if err != nil || len(matches) == 0 {
			matches = []string{arg}
		}
		for _, m := range matches {
			paths = append(paths, bundlesIn(m)...)
		}
	}
	return paths, nil
}

var archiveName = regexp.MustCompile(`\.(tar\.gz|tgz|tar\.zst|tzst|zip|tar)$`)

// bundlesIn returns p itself, unless p is a folder that holds bundle archives
// or bundle folders rather than a bundle's own files.
func bundlesIn(p string) []string {
	entries, err := os.ReadDir(p)
	if err != nil {
		return []string{p}
	}
	var inner []string
	for _, e := range entries {
		if bundle.IsTopDir(e.Name()) || e.Name() == bundle.ManifestName {
			return []string{p}
		}
		full := filepath.Join(p, e.Name())
		switch {
		case !e.IsDir() && archiveName.MatchString(e.Name()), e.IsDir() && looksLikeBundleDir(full):
			inner = append(inner, full)
		case e.IsDir():
			inner = append(inner, archivesIn(full)...) // s3 sync leaves one folder per instance
		}
	}
	if len(inner) == 0 {
		return []string{p}
	}
	sort.Strings(inner)
	return inner
}

// archivesIn lists the bundle archives directly inside a folder.
func archivesIn(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && archiveName.MatchString(e.Name()) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

func looksLikeBundleDir(p string) bool {
	entries, err := os.ReadDir(p)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if bundle.IsTopDir(e.Name()) || e.Name() == bundle.ManifestName {
			return true
		}
	}
	return false
}

func listCatalog(w io.Writer, cat *signature.Catalog) error {
	byComponent := map[string][]*signature.Signature{}
	var components []string
	for _, s := range cat.Signatures() {
		if _, ok := byComponent[s.Component]; !ok {
			components = append(components, s.Component)
		}
		byComponent[s.Component] = append(byComponent[s.Component], s)
	}
	sort.Strings(components)
	total := 0
	for _, comp := range components {
		fmt.Fprintf(w, "%s\n", comp)
		for _, s := range byComponent[comp] {
			kind := ""
			switch {
			case s.Milestone != "":
				kind = " (milestone)"
			case s.RootCause:
				kind = " (root cause)"
			case s.Match == nil:
				kind = " (fact check)"
			}
			fmt.Fprintf(w, "  %-9s %-48s %s%s\n", s.Severity, s.ID, s.Title, kind)
			total++
		}
	}
	fmt.Fprintf(w, "\n%d signatures in %d components\n", total, len(components))
	return nil
}

func explain(w io.Writer, cat *signature.Catalog, id string) (int, error) {
	s := cat.Lookup(id)
	if s == nil {
		return exitUsage, fmt.Errorf("no signature %q (see analyze --list)", id)
	}
	fmt.Fprintf(w, "%s\n  %s\n\n", s.ID, s.Title)
	fmt.Fprintf(w, "severity:   %s\ncomponent:  %s\nroot cause: %v\nconfidence: %s\nsources:    %s\ndefined at: %s:%d\n",
		s.Severity, s.Component, s.RootCause, s.Confidence, strings.Join(s.Sources, ", "), s.File, s.Line)
	if s.Match != nil {
		fmt.Fprintf(w, "match (%s, at least %d):\n", map[signature.MatchMode]string{signature.Any: "any", signature.All: "all"}[s.Match.Mode], s.Match.MinCount)
		for i := range s.Match.Items {
			fmt.Fprintf(w, "  - %s\n", s.Match.Items[i].Pattern())
		}
		for i := range s.Match.Not {
			fmt.Fprintf(w, "  not: %s\n", s.Match.Not[i].Pattern())
		}
	}
	for _, c := range s.Facts {
		fmt.Fprintf(w, "fact condition: %s %s %s\n", c.Fact, c.Op, conditionValue(c))
	}
	if len(s.Explains) > 0 {
		fmt.Fprintf(w, "explains:   %s\n", strings.Join(s.Explains, ", "))
	}
	fmt.Fprintf(w, "\nwhy:\n  %s\n\nfix:\n", strings.ReplaceAll(strings.TrimSpace(s.Summary), "\n", "\n  "))
	for i, f := range s.Fix {
		fmt.Fprintf(w, "  %d. %s\n", i+1, strings.ReplaceAll(strings.TrimSpace(f), "\n", "\n     "))
	}
	for _, r := range s.References {
		fmt.Fprintf(w, "see %s\n", r)
	}
	return exitClean, nil
}

// exportPatterns writes the catalog as ripgrep patterns: literals escaped,
// regexes as they are (Go's RE2 syntax is a subset of ripgrep's).
func exportPatterns(file string, cat *signature.Catalog) (int, error) {
	lits, res := cat.ExportPatterns()
	var b strings.Builder
	for _, l := range lits {
		b.WriteString(regexp.QuoteMeta(l) + "\n")
	}
	for _, r := range res {
		b.WriteString(ripgrepRegex(r) + "\n")
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		return exitUsage, fmt.Errorf("--export-patterns: %w", err)
	}
	return exitClean, nil
}

var namedGroup = regexp.MustCompile(`\(\?P?<[A-Za-z_][A-Za-z0-9_]*>`)

// ripgrepRegex rewrites a Go regex so that ripgrep accepts it in a -f file:
// ripgrep joins the lines into one regex, so group names must go, and Go's
// printer normalizes escapes ripgrep refuses (such as "\ ").
func ripgrepRegex(r string) string {
	if re, err := syntax.Parse(r, syntax.Perl); err == nil {
		r = re.String()
	}
	return namedGroup.ReplaceAllString(r, "(?:")
}

func dumpPatterns(dir string) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return exitUsage, fmt.Errorf("--dump-patterns: %w", err)
	}
	entries, err := patterns.FS.ReadDir(".")
	if err != nil {
		return exitUsage, fmt.Errorf("--dump-patterns: %w", err)
	}
	for _, e := range entries {
		data, err := patterns.FS.ReadFile(e.Name())
		if err != nil {
			return exitUsage, fmt.Errorf("--dump-patterns: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			return exitUsage, fmt.Errorf("--dump-patterns: %w", err)
		}
	}
	return exitClean, nil
}

func conditionValue(c signature.Condition) string {
	switch {
	case len(c.Values) > 0:
		return strings.Join(c.Values, ", ")
	case c.Regex != nil:
		return c.Regex.String()
	}
	return c.Value
}
