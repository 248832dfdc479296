#!/usr/bin/env bash
# Runs every fuzz target of the module for a while each:
#
#   scripts/fuzz.sh [FUZZTIME] [PACKAGE_REGEX]     e.g. scripts/fuzz.sh 30s 'redact|userdata'
#
# A target fails only when the fuzzer saved a failing input under
# testdata/fuzz/<target>/. Go 1.26 can end a duration-bound run with a bare
# "context deadline exceeded" and no input (a race in the fuzzing
# coordinator at the end of -fuzztime, golang/go#75804); such a run is
# reported as a flake and the script goes on. Every target runs; the exit
# status is 1 when any target found a failing input.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
fuzztime=${1:-30s}
only=${2:-.}
passed=() flaked=() failed=()

# corpus_files lists the saved inputs of a target, one per line.
corpus_files() { find "$1/testdata/fuzz/$2" -type f -printf '%f\n' 2>/dev/null | sort; }

for pkg in $(go list ./... | grep -E "$only"); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	# shellcheck disable=SC2013 # target names are single words
	for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
		echo "== $pkg $target ($fuzztime)"
		before=$(corpus_files "$dir" "$target")
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"
		status=$?
		after=$(corpus_files "$dir" "$target")
		name="${pkg#github.com/nodetriage/nodetriage/} $target"
		if [[ $status -eq 0 ]]; then
			passed+=("$name")
		elif [[ "$before" != "$after" ]]; then
			failed+=("$name: new failing input $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')")
		else
			flaked+=("$name")
		fi
	done
done

echo
echo "fuzz: ${#passed[@]} passed, ${#flaked[@]} ended without a failing input (coordinator deadline race), ${#failed[@]} failed, $fuzztime each"
for f in "${flaked[@]}"; do echo "  flake: $f"; done
for f in "${failed[@]}"; do echo "  FAILED: $f"; done
[[ ${#failed[@]} -eq 0 ]]
