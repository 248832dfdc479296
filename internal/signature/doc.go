// Package signature loads the catalog of known node failure modes (the
// YAML files in patterns/) and matches it against log lines.
//
// A catalog is data: adding a failure mode means adding a YAML entry and a
// fixture, never code. Load checks every file strictly (unknown keys,
// unknown references, regexes that do not compile, regexes without a
// usable literal are all errors that name file, line and signature) and
// Compile turns the catalog into a Matcher.
//
// Matching is built for large bundles. Each bundle file is routed to the
// signatures whose logical sources (patterns/sources.yaml) cover its path.
// Every item of those signatures has prefilter literals, declared or
// derived from the regex with regexp/syntax; one Aho-Corasick pass over a
// line finds all of them at once, and a regex only runs on a line that
// holds one of its literals. Lines without any literal, nearly all lines
// of a real log, cost that single pass and no allocation.
//
// What a hit means for the bundle as a whole (min_count, window, match.all
// across files) is decided by a Tally; facts and ranking belong to the
// analyzer.
package signature
