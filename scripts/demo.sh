#!/usr/bin/env bash
# make demo: build a fake failing AL2023 node from testdata/nodes, collect a
# bundle from it as an SRE would on the node, then analyze that bundle and the
# sample bundles shipped in testdata/bundles.
set -euo pipefail
cd "$(dirname "$0")/.."
out=out/demo
rm -rf "$out"
mkdir -p "$out"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "1. A fake AL2023 node whose nodeadm cannot find its NodeConfig (testdata/nodes/al2023-nodeadm-failure)"
go run ./internal/collect/testroot/mkroot -name al2023-nodeadm-failure -dest "$out/node-root" >/dev/null
echo "node root with a real journal: $out/node-root"

step "2. collect --root (as on a dead node's disk; no IMDS, no probes off-box)"
bin/collect --root "$out/node-root" --no-imds --no-probes --output "$out"
bundle=$(ls "$out"/eks_*.tar.gz | head -n 1)

step "3. analyze $bundle"
bin/analyze --no-color "$bundle" || test $? -eq 1

step "4. analyze a bundle in the AWS eks-log-collector.sh layout"
bin/analyze --no-color testdata/bundles/eks-log-collector-al2-unauthorized || test $? -eq 1

step "5. fleet view: several bundles at once"
bin/analyze --no-color "$bundle" testdata/bundles/* || test $? -eq 1

echo
echo "JSON: bin/analyze --format json $bundle    Markdown: bin/analyze --format markdown $bundle"
