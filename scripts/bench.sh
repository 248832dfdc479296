#!/usr/bin/env bash
# bench.sh: the benchmark harness of issue 6; `make bench` runs it after
# `make build`. See bench/README.md for what is measured and how to read
# bench/RESULTS.md.
#
# It builds bin/benchgen, generates synthetic node bundles (folder and
# tar.gz), and times side by side, with /usr/bin/time -v, on the same files:
#   bin/analyze --format json          vs  rg / grep -E with the catalog's patterns
#   bin/analyze on the tar.gz          vs  zcat | rg, and zcat alone (the floor)
#   bin/analyze with the catalog x10   vs  the catalog x1
#   bin/analyze --jobs 2 on a fleet    vs  --jobs 1
#   bin/collect on a fake node root    vs  a shell copy of eks-log-collector.sh
# A part whose prerequisite is missing (a binary, a flag) prints a SKIP line
# and the run goes on.
#
# Environment (all optional):
#   BENCH_SIZES            bundle sizes (default "10MiB 100MiB 1GiB")
#   BENCH_FULL_MAX         largest size that gets every comparison; larger sizes
#                          get only the nodetriage folder and tar.gz runs of
#                          analyze, rg and zcat (default 100MiB)
#   BENCH_FLEET            bundles in the fleet run, 0 to skip (default 100)
#   BENCH_FLEET_SIZE       size of each fleet bundle (default 5MiB)
#   BENCH_COLLECT          0 skips the collect runs (default 1)
#   BENCH_COLLECT_LOGS     bytes of /var/log in the fake root (default 1GiB)
#   BENCH_COLLECT_JOURNAL  bytes of export text fed to the journal (default 610MiB,
#                          which makes about 500 MiB of journal files)
#   BENCH_TIMEOUT          seconds one measured command may take (default 240)
#   BENCH_BUDGET           seconds after which the remaining parts are skipped
#                          (default 560, to stay under 10 minutes); a part that
#                          would likely end past it is skipped too
#   BENCH_WORK             work folder (default bench/work; generated data is
#                          kept there and reused while benchgen is unchanged)
#   BENCH_RESULTS          output file (default bench/RESULTS.md)
#   BENCH_BIN              where analyze and collect are (default bin)
set -euo pipefail

cd "$(dirname "$0")/.."
REPO=$PWD
BIN=${BENCH_BIN:-$REPO/bin}
WORK=${BENCH_WORK:-$REPO/bench/work}
RESULTS=${BENCH_RESULTS:-$REPO/bench/RESULTS.md}
SIZES=${BENCH_SIZES:-10MiB 100MiB 1GiB}
FULL_MAX=${BENCH_FULL_MAX:-100MiB}
FLEET=${BENCH_FLEET:-100}
FLEET_SIZE=${BENCH_FLEET_SIZE:-5MiB}
COLLECT=${BENCH_COLLECT:-1}
COLLECT_LOGS=${BENCH_COLLECT_LOGS:-1GiB}
COLLECT_JOURNAL=${BENCH_COLLECT_JOURNAL:-610MiB}
TIMEOUT=${BENCH_TIMEOUT:-240}
BUDGET=${BENCH_BUDGET:-560}
LAYOUTS=(nodetriage eks-log-collector)
JOURNAL_REMOTE=/lib/systemd/systemd-journal-remote
STARTED=$SECONDS

# ---------------------------------------------------------------- helpers

log() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

NOTES=()
skip() {
	printf 'SKIP %s\n' "$*"
	NOTES+=("SKIP $*")
}

# over_budget [NEED]: is the time budget spent, or too little of it left for
# a part expected to take about NEED seconds? Parts check it first.
over_budget() { ((SECONDS - STARTED + ${1:-0} > BUDGET)); }

# has_flag BINARY FLAG: does BINARY --help mention FLAG?
has_flag() {
	local help
	[[ -x $1 ]] || return 1
	help=$("$1" --help 2>&1 || true)
	[[ $help == *"$2"* ]]
}

# bytes_of SIZE: "100MiB" -> 104857600 (benchgen's own parser).
bytes_of() { "$BIN/benchgen" --print-bytes "$1"; }

# json_number FILE KEY: a top-level number of an indented JSON file.
json_number() { sed -n "s/^  \"$2\": \([0-9]*\),\{0,1\}\$/\1/p" "$1" | head -n1; }

# calc EXPR: floating point arithmetic.
calc() { awk "BEGIN { printf \"%.2f\", $* }"; }

# sum_counts FILE: total of "name:count" or "count" lines (rg -c, grep -c).
sum_counts() { awk -F: '{ s += $NF } END { print s + 0 }' "$1"; }

# measure REPEAT OUT CMD...: run CMD under /usr/bin/time -v (and timeout)
# REPEAT times with stdout to OUT, keep the fastest run. Sets M_WALL (s),
# M_CPU (user+sys s), M_RSS (MiB), M_PCT (CPU %), M_RC (exit code).
measure() {
	local repeat=$1 out=$2 i rc tv=$WORK/time.txt best=""
	shift 2
	for ((i = 0; i < repeat; i++)); do
		rc=0
		/usr/bin/time -v -o "$tv" timeout "$TIMEOUT" "$@" >"$out" 2>"$WORK/stderr.txt" || rc=$?
		local wall cpu rss pct
		wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; printf "%.2f", s }' "$tv")
		cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$tv")
		rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$tv")
		pct=$(awk -F': ' '/Percent of CPU/ { sub("%", "", $2); print $2 }' "$tv")
		if [[ -z $best ]] || awk "BEGIN { exit !($wall < $best) }"; then
			best=$wall M_WALL=$wall M_CPU=$cpu M_RSS=$rss M_PCT=$pct M_RC=$rc
			if [[ $out != /dev/null ]]; then cp "$out" "$out.best"; fi
		fi
		if ((rc == 124)); then break; fi # a timeout will not get faster
	done
	if [[ $out != /dev/null ]]; then mv "$out.best" "$out"; fi
	if ((M_RC == 124)); then
		log "timed out after ${TIMEOUT}s: $*"
	elif ((M_RC > 1)); then
		log "exit $M_RC: $* ($(head -c 300 "$WORK/stderr.txt"))"
	fi
	return 0
}

# repeats BYTES: small inputs are timed three times (wall time has only
# centisecond precision), big ones once.
repeats() { if (($1 < 200 * 1024 * 1024)); then echo 3; else echo 1; fi; }

# status: what went wrong with the last measured run, if anything.
status() {
	case $M_RC in
	0 | 1) echo "" ;;
	124) echo "TIMEOUT" ;;
	*) echo "exit $M_RC" ;;
	esac
}

BODY=$WORK/results.body.md
SUMMARY=()
REF_WALL=""

# table TITLE RATIO-HEADER: start a Markdown table in the results.
table() {
	{
		printf '\n### %s\n\n' "$1"
		printf '| tool | input | wall s | CPU s | MB/s | max RSS MiB | %s | check |\n' "$2"
		printf '|---|---|---:|---:|---:|---:|---:|---|\n'
	} >>"$BODY"
	REF_WALL=""
}

# row TOOL INPUT BYTES CHECK [ref]: one line for the last measured run; with
# "ref" it becomes the reference the next rows' ratios divide by.
row() {
	local mbs ratio="" check=$4
	if [[ -n $(status) ]]; then check="$(status) $check"; fi
	mbs=$(awk "BEGIN { w = $M_WALL; if (w < 0.01) w = 0.01; printf \"%.0f\", $3 / 1e6 / w }")
	if [[ ${5:-} == ref ]]; then
		REF_WALL=$M_WALL
		ratio="1.00"
	elif [[ -n $REF_WALL ]]; then
		ratio=$(awk "BEGIN { r = $REF_WALL; if (r < 0.01) r = 0.01; w = $M_WALL; if (w < 0.01) w = 0.01; printf \"%.2f\", w / r }")
	fi
	printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$M_WALL" "$M_CPU" "$mbs" "$M_RSS" "$ratio" "$check" >>"$BODY"
	printf '  %-28s %-34s wall %6ss cpu %6ss rss %7s MiB %s %s\n' "$1" "$2" "$M_WALL" "$M_CPU" "$M_RSS" "${ratio:+x$ratio}" "$check" >&2
}

# target NAME VALUE LIMIT: a line of the summary; VALUE "" means not measured.
target() {
	local verdict="not measured"
	if [[ -n $2 ]]; then
		if awk "BEGIN { exit !($2 <= $3) }"; then verdict=met; else verdict=MISSED; fi
	fi
	SUMMARY+=("| $1 | ${2:-n/a} | ≤ $3 | $verdict |")
}

# warm FILES...: read files once so the first tool timed does not pay for
# the disk.
warm() { find "$@" -type f -exec cat {} + >/dev/null 2>&1 || true; }

# stamp_ok DIR ARGS...: was DIR generated by this benchgen with these args?
stamp_ok() {
	local dir=$1
	shift
	[[ -e $dir && -f $dir.stamp && $(cat "$dir.stamp") == "$(stamp "$@")" ]]
}
stamp() { printf '%s %s\n' "$(sha256sum "$BIN/benchgen" | cut -c1-16)" "$*"; }

# ---------------------------------------------------------------- setup

prerequisites() {
	local missing=()
	for tool in go /usr/bin/time timeout rg grep zcat sha256sum awk sed find; do
		command -v "$tool" >/dev/null || missing+=("$tool")
	done
	if ((${#missing[@]})); then
		echo "bench: missing required tools: ${missing[*]}" >&2
		exit 2
	fi
	mkdir -p "$WORK" "$BIN"
	log "building bin/benchgen"
	CGO_ENABLED=0 go build -trimpath -o "$BIN/benchgen" ./cmd/benchgen
	: >"$BODY"
}

# generate LAYOUT SIZE: the folder, tar.gz and planted list of one bundle,
# reused when already there. Sets G_DIR, G_TGZ, G_PLANTED, G_BYTES.
generate() {
	local layout=$1 size=$2
	G_DIR=$WORK/data/$layout-$size
	G_TGZ=$G_DIR.tar.gz
	G_PLANTED=$G_DIR.planted.json
	if ! stamp_ok "$G_DIR" "$layout" "$size"; then
		log "generating $layout $size"
		rm -rf "$G_DIR" "$G_TGZ" "$G_PLANTED" "$G_DIR.stamp"
		mkdir -p "$WORK/data"
		"$BIN/benchgen" --dir "$G_DIR" --size "$size" --layout "$layout" --seed 1 --tar "$G_TGZ" --planted "$G_PLANTED"
		stamp "$layout" "$size" >"$G_DIR.stamp"
	fi
	G_BYTES=$(json_number "$G_PLANTED" bytes)
}

# patterns: the catalog's patterns for rg (PATTERNS) and for grep -E
# (PATTERNS_ERE). Without analyze --export-patterns, a short fallback list of
# the planted failures keeps rg, grep and zcat measurable.
patterns() {
	PATTERNS=$WORK/patterns.rg
	PATTERNS_ERE=$WORK/patterns.ere
	PATTERN_NOTE="the catalog's patterns, exported by analyze --export-patterns"
	if has_flag "$BIN/analyze" --export-patterns && "$BIN/analyze" --export-patterns "$PATTERNS" >/dev/null 2>"$WORK/stderr.txt" && [[ -s $PATTERNS ]]; then
		:
	else
		skip "catalog patterns: bin/analyze --export-patterns is not available; rg and grep use a fallback list of 7 planted-failure patterns"
		PATTERN_NOTE="FALLBACK patterns (7 planted-failure strings), not the catalog"
		cat >"$PATTERNS" <<'EOF'
no config in chain
Unable to register node.{0,40} with API server.{0,10}Unauthorized
InsufficientFreeAddressesInSubnet
Out of memory: Killed process
watchdog: BUG: soft lockup
no basic auth credentials
conntrack: table full, dropping packet
EOF
	fi
	# rg joins the lines into one regex, where two groups of the same name
	# clash: named groups become plain non-capturing ones.
	sed -E -i 's/\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/(?:/g' "$PATTERNS"
	to_ere "$PATTERNS" "$PATTERNS_ERE"
	log "patterns: $(wc -l <"$PATTERNS") lines ($PATTERN_NOTE)"
}

# to_ere IN OUT: RE2/Rust syntax to POSIX ERE as far as grep -E needs:
# groups with flags ((?:, (?i:, (?-s:) become plain groups (so (?i) parts
# match case-sensitively), \A and \z become ^ and $, \d a bracket
# expression, and inside brackets escapes become plain characters, \- a
# hyphen at the end and the RE2 white space class [:space:]. A line grep
# still rejects is left out; PATTERN_NOTE counts them.
to_ere() {
	local in=$1 out=$2 line kept=0 dropped=0 converted=$WORK/patterns.ere.all
	if command -v perl >/dev/null; then
		perl -pe '
			s{\[(\^?)((?:\\.|[^\]\\])+)\]}{
				my ($neg, $body) = ($1, $2);
				if ($body eq q{\t\n\f\r }) { "[$neg\[:space:]]" }
				else {
					my $dash = ($body =~ s/\\-//g);
					$body =~ s/\\(.)/$1/g;
					"[$neg$body" . ($dash ? "-" : "") . "]";
				}
			}ge;
			s/\(\?[A-Za-z]*-?[A-Za-z]*:/(/g;
			s/\\A/^/g;
			s/\\z/\$/g;
			s/\\d/[0-9]/g;
		' "$in" >"$converted"
	else
		sed -E -e 's/\(\?:/(/g' -e 's/\\d/[0-9]/g' "$in" >"$converted"
	fi
	: >"$out"
	while IFS= read -r line || [[ -n $line ]]; do
		if printf '%s\n' "$line" | grep -E -q -f - /dev/null 2>/dev/null || (($? == 1)); then
			printf '%s\n' "$line" >>"$out"
			kept=$((kept + 1))
		else
			dropped=$((dropped + 1))
		fi
	done <"$converted"
	if ((dropped)); then
		PATTERN_NOTE="$PATTERN_NOTE; grep -E gets $kept of them ($dropped it cannot parse are left out)"
	fi
}

# verify REPORT: benchgen --verify against the last generated bundle.
verify() {
	local out
	out=$("$BIN/benchgen" --verify "$G_PLANTED" "$1" 2>&1 | tail -n 1) || true
	case $out in
	VERIFIED*) echo "found $(sed -n 's/.*: \([0-9]* of [0-9]*\).*/\1/p' <<<"$out") planted" ;;
	VOID*) echo "VOID (no findings)" ;;
	MISSED*) echo "VOID: $out" ;;
	*) echo "VOID: no report" ;;
	esac
}

ANALYZE_OK=0
check_analyze() {
	if has_flag "$BIN/analyze" --format; then
		ANALYZE_OK=1
	else
		skip "analyze: bin/analyze is missing or has no --format flag; analyze runs are left out"
	fi
}

# ---------------------------------------------------------------- parts

# bench_size LAYOUT SIZE FULL: analyze vs rg/grep on the folder, analyze vs
# zcat|rg on the tar.gz. FULL=0 leaves out grep (too slow on big inputs).
bench_size() {
	local layout=$1 size=$2 full=$3 n input
	generate "$layout" "$size"
	n=$(repeats "$G_BYTES")
	warm "$G_DIR" "$G_TGZ"
	input="$layout $size folder"
	table "$layout, $size, folder" "ratio vs rg"
	measure "$n" "$WORK/rg.out" rg -uu -c -f "$PATTERNS" "$G_DIR"
	row "rg -c -f" "$input" "$G_BYTES" "$(sum_counts "$WORK/rg.out") lines" ref
	if ((ANALYZE_OK)); then
		measure "$n" "$WORK/report.json" "$BIN/analyze" --format json "$G_DIR"
		row "analyze --format json" "$input" "$G_BYTES" "$(verify "$WORK/report.json")"
		record_analyze "$layout" "$size" folder
	fi
	if ((full)); then
		measure "$n" "$WORK/grep.out" grep -E -c -r -f "$PATTERNS_ERE" "$G_DIR"
		row "grep -E -c -r -f" "$input" "$G_BYTES" "$(sum_counts "$WORK/grep.out") lines"
	fi

	input="$layout $size tar.gz"
	table "$layout, $size, tar.gz ($(du -m "$G_TGZ" | cut -f1) MiB compressed)" 'ratio vs zcat \| rg'
	# shellcheck disable=SC2016 # expanded by the inner bash
	measure "$n" "$WORK/rg.out" bash -c 'zcat "$1" | rg -c -a -f "$2"' _ "$G_TGZ" "$PATTERNS"
	row "zcat \| rg -c -a -f" "$input" "$G_BYTES" "$(sum_counts "$WORK/rg.out") lines" ref
	measure "$n" /dev/null zcat "$G_TGZ"
	row "zcat (floor)" "$input" "$G_BYTES" ""
	if ((ANALYZE_OK)); then
		measure "$n" "$WORK/report.json" "$BIN/analyze" --format json "$G_TGZ"
		row "analyze --format json" "$input" "$G_BYTES" "$(verify "$WORK/report.json")"
		record_analyze "$layout" "$size" tar.gz
	fi
}

# Key numbers for the summary: the largest size's ratios, the worst RSS.
MAX_RSS="" BIG_FOLDER_RATIO="" BIG_TGZ_RATIO="" BIG_SIZE=""
record_analyze() {
	if [[ -z $MAX_RSS ]] || awk "BEGIN { exit !($M_RSS > $MAX_RSS) }"; then MAX_RSS=$M_RSS; fi
	[[ $1 == nodetriage ]] || return 0
	local ratio
	ratio=$(calc "$M_WALL / ($REF_WALL < 0.01 ? 0.01 : $REF_WALL)")
	if [[ $3 == folder ]]; then BIG_FOLDER_RATIO=$ratio; else BIG_TGZ_RATIO=$ratio; fi
	BIG_SIZE=$2
}

# bench_catalog SIZE: the catalog dumped, renamed 9 times and loaded on top
# of the embedded one (--patterns adds), so 10 copies of every signature.
TENX_RATIO=""
bench_catalog() {
	local size=$1 dump=$WORK/catalog/1x tenx=$WORK/catalog/10x f n
	if ! ((ANALYZE_OK)) || ! has_flag "$BIN/analyze" --dump-patterns || ! has_flag "$BIN/analyze" --patterns; then
		skip "catalog x10: bin/analyze lacks --dump-patterns or --patterns"
		return
	fi
	rm -rf "$WORK/catalog"
	mkdir -p "$dump" "$tenx"
	if ! "$BIN/analyze" --dump-patterns "$dump" >/dev/null 2>"$WORK/stderr.txt"; then
		skip "catalog x10: analyze --dump-patterns failed: $(head -c 200 "$WORK/stderr.txt")"
		return
	fi
	for f in "$dump"/*.yaml; do
		grep -q '^signatures:' "$f" || continue
		for n in 2 3 4 5 6 7 8 9 10; do
			sed -E -e "s/^([[:space:]]*- id: )([a-z0-9-]+)[[:space:]]*\$/\1\2-copy$n/" \
				-e "/^[[:space:]]*explains:[[:space:]]*\[/ s/([a-z0-9][a-z0-9-]*)([],])/\1-copy$n\2/g" \
				"$f" >"$tenx/copy$n-$(basename "$f")"
		done
	done
	generate nodetriage "$size"
	local n_rep input="nodetriage $size folder"
	n_rep=$(repeats "$G_BYTES")
	warm "$G_DIR"
	table "catalog x10 (9 renamed copies loaded with --patterns on top of the embedded catalog)" "ratio vs x1"
	measure "$n_rep" "$WORK/report.json" "$BIN/analyze" --format json "$G_DIR"
	row "analyze (catalog x1)" "$input" "$G_BYTES" "$(verify "$WORK/report.json")" ref
	measure "$n_rep" "$WORK/report.json" "$BIN/analyze" --patterns "$tenx" --format json "$G_DIR"
	row "analyze (catalog x10)" "$input" "$G_BYTES" "$(verify "$WORK/report.json")"
	if ((M_RC <= 1)); then TENX_RATIO=$(calc "$M_WALL / ($REF_WALL < 0.01 ? 0.01 : $REF_WALL)"); fi
}

# bench_fleet: FLEET bundles of FLEET_SIZE, half in each layout, all tar.gz,
# analyzed in one call.
FLEET_PCT=""
bench_fleet() {
	local dir=$WORK/fleet i layout bytes=0 b
	if ! ((ANALYZE_OK)); then
		skip "fleet: no usable bin/analyze"
		return
	fi
	if ! stamp_ok "$dir" fleet "$FLEET" "$FLEET_SIZE"; then
		log "generating the fleet: $FLEET bundles of $FLEET_SIZE"
		rm -rf "$dir" "$dir.stamp"
		mkdir -p "$dir"
		for ((i = 1; i <= FLEET; i++)); do
			layout=${LAYOUTS[i % 2]}
			"$BIN/benchgen" --dir "$WORK/fleet-tmp" --size "$FLEET_SIZE" --layout "$layout" --seed "$i" \
				--tar "$(printf '%s/node-%03d.tar.gz' "$dir" "$i")" 2>/dev/null
			rm -rf "$WORK/fleet-tmp"
		done
		stamp fleet "$FLEET" "$FLEET_SIZE" >"$dir.stamp"
	fi
	b=$(bytes_of "$FLEET_SIZE")
	bytes=$((b * FLEET))
	warm "$dir"
	local input="$FLEET x $FLEET_SIZE tar.gz"
	table "fleet: $FLEET bundles in one call" "ratio vs --jobs 1"
	if has_flag "$BIN/analyze" --jobs; then
		measure 1 "$WORK/fleet.json" "$BIN/analyze" --jobs 1 --format json "$dir"/*.tar.gz
		row "analyze --jobs 1" "$input" "$bytes" "CPU ${M_PCT}%" ref
		measure 1 "$WORK/fleet.json" "$BIN/analyze" --jobs 2 --format json "$dir"/*.tar.gz
		row "analyze --jobs 2" "$input" "$bytes" "CPU ${M_PCT}%"
	else
		skip "fleet: bin/analyze has no --jobs flag; measured with its default"
		measure 1 "$WORK/fleet.json" "$BIN/analyze" --format json "$dir"/*.tar.gz
		row "analyze" "$input" "$bytes" "CPU ${M_PCT}%" ref
	fi
	FLEET_PCT=$M_PCT
}

# make_root: the fake node root (logs, then the journal through
# systemd-journal-remote), reused while benchgen and the day are unchanged.
make_root() {
	ROOT_DIR=$WORK/noderoot
	local mid journal
	mid=$("$BIN/benchgen" --machine-id --seed 1)
	journal=$ROOT_DIR/var/log/journal/$mid
	if stamp_ok "$ROOT_DIR" root "$COLLECT_LOGS" "$COLLECT_JOURNAL" "$(date -u +%F)"; then
		return 0
	fi
	log "generating the node root: $COLLECT_LOGS of logs, $COLLECT_JOURNAL of journal export"
	rm -rf "$ROOT_DIR" "$ROOT_DIR.stamp"
	"$BIN/benchgen" --dir "$ROOT_DIR" --size "$COLLECT_LOGS" --layout node-root --seed 1
	"$BIN/benchgen" --journal-export --size "$COLLECT_JOURNAL" --seed 1 --span 240h |
		"$JOURNAL_REMOTE" --output="$journal/system.journal" --split-mode=none - 2>"$WORK/journal-remote.txt"
	stamp root "$COLLECT_LOGS" "$COLLECT_JOURNAL" "$(date -u +%F)" >"$ROOT_DIR.stamp"
}

# baseline ROOT OUT: what eks-log-collector.sh does for the same sources:
# journalctl per unit (10 days for kubelet and nodeadm, all of containerd),
# cp of the log folders, tar czf. Run through this script so it can be timed.
baseline() {
	local root=$1 out=$2 stage since
	stage=$(mktemp -d "${TMPDIR:-/tmp}/bench-baseline.XXXXXX")
	since=$(date -d "-10 days" '+%Y-%m-%d %H:%M')
	export LANG=C LC_ALL=C
	mkdir -p "$stage"/{kubelet,containerd,nodeadm,var_log}
	journalctl -D "$root/var/log/journal" --no-pager --unit=kubelet --since "$since" >"$stage/kubelet/kubelet.log"
	journalctl -D "$root/var/log/journal" --no-pager --unit=containerd >"$stage/containerd/containerd-log.txt"
	journalctl -D "$root/var/log/journal" --no-pager --unit=nodeadm-config --since "$since" >"$stage/nodeadm/nodeadm-config.log"
	journalctl -D "$root/var/log/journal" --no-pager --unit=nodeadm-run --since "$since" >"$stage/nodeadm/nodeadm-run.log"
	cp -rL "$root/var/log/messages" "$root/var/log/cloud-init.log" "$root/var/log/cloud-init-output.log" \
		"$root/var/log/aws-routed-eni" "$stage/var_log/"
	cp -rL "$root"/var/log/pods/kube-system_* "$stage/var_log/"
	tar --create --gzip --file "$out" --directory="$stage" .
	rm -rf "$stage"
}

COLLECT_WALL="" COLLECT_RSS="" COLLECT_FULL_RATIO=""
bench_collect() {
	if [[ ! -x $JOURNAL_REMOTE ]] || ! command -v journalctl >/dev/null; then
		skip "collect: systemd-journal-remote or journalctl is missing"
		return
	fi
	make_root
	local out=$WORK/collect bytes input journal_bytes
	rm -rf "$out"
	mkdir -p "$out"
	bytes=$(tree_bytes "$ROOT_DIR")
	journal_bytes=$(tree_bytes "$ROOT_DIR/var/log/journal")
	input="node root $((bytes >> 20)) MiB ($((journal_bytes >> 20)) MiB journal)"
	warm "$ROOT_DIR"
	table "collect on a fake node root" "ratio vs shell"
	measure 1 /dev/null bash "$REPO/scripts/bench.sh" __baseline "$ROOT_DIR" "$out/baseline.tar.gz"
	row "shell baseline (journalctl, cp, tar czf)" "$input" "$bytes" "$(size_of "$out/baseline.tar.gz")" ref
	local bin flags
	for bin in collect collect-static; do
		if over_budget 90; then
			skip "collect: bin/$bin: not enough of the time budget left"
			continue
		fi
		if ! has_flag "$BIN/$bin" --root || ! has_flag "$BIN/$bin" --output; then
			skip "collect: bin/$bin is missing or lacks --root/--output"
			continue
		fi
		flags=(--root "$ROOT_DIR")
		for f in --no-imds --no-probes; do
			if has_flag "$BIN/$bin" "$f"; then flags+=("$f"); else skip "collect: bin/$bin has no $f"; fi
		done
		measure 1 "$WORK/collect.log" "$BIN/$bin" "${flags[@]}" --output "$out/$bin-default.tar.gz"
		row "$bin (default budget)" "$input" "$bytes" "$(size_of "$out/$bin-default.tar.gz")"
		if [[ $bin == collect && $M_RC -le 1 ]]; then COLLECT_WALL=$M_WALL COLLECT_RSS=$M_RSS; fi
		if has_flag "$BIN/$bin" --max-size; then
			measure 1 "$WORK/collect.log" "$BIN/$bin" "${flags[@]}" --max-size 0 --output "$out/$bin-full.tar.gz"
			row "$bin --max-size 0" "$input" "$bytes" "$(size_of "$out/$bin-full.tar.gz")"
			if [[ $bin == collect && $M_RC -le 1 ]]; then COLLECT_FULL_RATIO=$(calc "$M_WALL / ($REF_WALL < 0.01 ? 0.01 : $REF_WALL)"); fi
		else
			skip "collect: bin/$bin has no --max-size"
		fi
		rm -rf "$out/$bin"-*.tar.gz
	done
}

# tree_bytes DIR: bytes of the regular files under DIR.
tree_bytes() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }

# size_of PATH: "out 12.3 MiB" for a file or folder.
size_of() {
	if [[ -e $1 ]]; then
		printf 'out %s MiB' "$(du -sb "$1" | awk '{ printf "%.1f", $1 / 1048576 }')"
	else
		printf 'no output at %s' "${1#"$WORK"/}"
	fi
}

# ---------------------------------------------------------------- report

machine() {
	local cpu mem commit
	cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
	commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	if [[ -n $(git status --porcelain 2>/dev/null) ]]; then commit="$commit (with uncommitted changes)"; fi
	printf -- '- date: %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
	printf -- '- commit: %s\n' "$commit"
	printf -- '- machine: %s CPUs (nproc), %s, %s memory, kernel %s\n' "$(nproc)" "${cpu:-unknown CPU}" "$mem" "$(uname -r)"
	printf -- '- load average at start: %s\n' "$LOAD_AT_START"
	printf -- '- tools: %s; %s; %s\n' "$(rg --version | sed -n 1p)" "$(grep --version | sed -n 1p)" "$(go version | cut -d' ' -f3)"
	printf -- '- patterns for rg and grep: %s (%s lines)\n' "$PATTERN_NOTE" "$(wc -l <"$PATTERNS")"
	printf -- '- sizes: %s; every comparison up to %s, larger sizes only the nodetriage analyze/rg/zcat runs\n' "$SIZES" "$FULL_MAX"
}

write_results() {
	local tmp=$RESULTS.tmp
	{
		printf '# Benchmark results\n\n'
		# shellcheck disable=SC2016 # Markdown code, not a command
		printf 'Written by `make bench` (scripts/bench.sh); bench/README.md explains the columns.\n\n'
		machine
		printf '\n## Targets (issue 6)\n\n'
		printf '| target | measured | limit | verdict |\n|---|---:|---:|---|\n'
		target "analyze / rg, folder ${BIG_SIZE:-(largest)}" "$BIG_FOLDER_RATIO" 1.5
		target "analyze / (zcat \| rg), tar.gz ${BIG_SIZE:-(largest)}" "$BIG_TGZ_RATIO" 1.2
		target "analyze peak RSS, any size (MiB)" "$MAX_RSS" 100
		target "catalog x10 / x1, wall" "$TENX_RATIO" 2
		target "collect, default budget, wall (s)" "$COLLECT_WALL" 10
		target "collect, default budget, peak RSS (MiB)" "$COLLECT_RSS" 100
		target "collect --max-size 0 / shell baseline, wall" "$COLLECT_FULL_RATIO" 1.0
		printf '%s\n' "${SUMMARY[@]}"
		if [[ -n $FLEET_PCT ]]; then printf '\nFleet run CPU use: %s%% of one core (200%% = both cores busy).\n' "$FLEET_PCT"; fi
		if ((${#NOTES[@]})); then
			printf '\n## Parts skipped\n\n'
			printf -- '- %s\n' "${NOTES[@]}"
		fi
		printf '\n## Measurements\n'
		printf '\nwall: elapsed seconds (fastest of 3 runs below 200 MB, else one run); CPU: user + system seconds;\n'
		printf 'MB/s: uncompressed input bytes (10^6) per wall second; max RSS: largest resident set of any process of the run.\n'
		cat "$BODY"
		printf '\nTotal run time: %s s.\n' "$((SECONDS - STARTED))"
	} >"$tmp"
	mv "$tmp" "$RESULTS"
	log "wrote $RESULTS"
}

# ---------------------------------------------------------------- main

main() {
	LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
	prerequisites
	patterns
	check_analyze
	local full_max size layout
	full_max=$(bytes_of "$FULL_MAX")
	for size in $SIZES; do
		for layout in "${LAYOUTS[@]}"; do
			if over_budget; then
				skip "$layout $size: time budget of ${BUDGET}s spent"
				continue
			fi
			if (($(bytes_of "$size") <= full_max)); then
				bench_size "$layout" "$size" 1
			elif [[ $layout == nodetriage ]]; then
				bench_size "$layout" "$size" 0
			fi
		done
	done
	if over_budget 20; then skip "catalog x10: not enough of the time budget left"; else bench_catalog "$FULL_MAX"; fi
	if ((FLEET <= 0)); then
		skip "fleet: BENCH_FLEET=0"
	elif over_budget 45; then
		skip "fleet: not enough of the time budget left"
	else
		bench_fleet
	fi
	if ((COLLECT == 0)); then
		skip "collect: BENCH_COLLECT=0"
	elif over_budget 120; then
		skip "collect: not enough of the time budget left"
	else
		bench_collect
	fi
	write_results
}

if [[ ${1:-} == __baseline ]]; then
	baseline "$2" "$3"
	exit 0
fi
main "$@"
