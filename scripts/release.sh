#!/usr/bin/env bash
# Builds the release archives into dist/ from the local Go toolchain and
# module cache only; it never downloads anything.
#
#   collect      linux/amd64, linux/arm64   CGO_ENABLED=0, static; reads the
#                                           journal through journalctl
#   collect-cgo  linux/<host arch>          cgo; reads the journal through
#                                           libsystemd when it loads, else
#                                           journalctl. The other Linux arch
#                                           is built only when its cross
#                                           compiler is installed.
#   analyze      linux/amd64, linux/arm64,  CGO_ENABLED=0, static
#                darwin/amd64, darwin/arm64
#
# One tarball per os/arch (nodetriage_<version>_<os>_<arch>.tar.gz) and a
# SHA256SUMS file over them. VERSION, COMMIT and DIST may be set in the
# environment; the defaults come from git and "dist".
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
dist=${DIST:-dist}
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}

[[ $version =~ ^[A-Za-z0-9._+-]+$ ]] || { echo "release: VERSION '$version' is not usable in a file name" >&2; exit 1; }
[[ $commit =~ ^[A-Za-z0-9._+-]+$ ]] || { echo "release: COMMIT '$commit' has unexpected characters" >&2; exit 1; }
tar --version 2>/dev/null | grep -q 'GNU tar' || { echo "release: GNU tar is needed for reproducible archives" >&2; exit 1; }

# No network: the toolchain in use and the modules already in the cache.
export GOTOOLCHAIN=local GOPROXY=off
ldflags="-s -w -X main.version=$version -X main.commit=$commit"
host_os=$(go env GOHOSTOS)
host_arch=$(go env GOHOSTARCH)

stage="$dist/.stage"
rm -rf "$dist"
mkdir -p "$stage"

# pkgdir prints the folder a platform's files are staged in.
pkgdir() { printf '%s/nodetriage_%s_%s_%s' "$stage" "$version" "$1" "$2"; }

# build OS ARCH CGO_ENABLED PACKAGE NAME [CC]
build() {
  local os=$1 arch=$2 cgo=$3 pkg=$4 name=$5 cc=${6:-} dir
  dir=$(pkgdir "$os" "$arch")
  mkdir -p "$dir"
  echo "build $os/$arch $name (CGO_ENABLED=$cgo${cc:+, CC=$cc})"
  if ! env GOOS="$os" GOARCH="$arch" CGO_ENABLED="$cgo" ${cc:+"CC=$cc"} \
    go build -trimpath -ldflags "$ldflags" -o "$dir/$name" "./$pkg"; then
    echo "release: building $name for $os/$arch failed (with GOPROXY=off every module must already be in the cache: run 'go mod download' once)" >&2
    exit 1
  fi
  printf '%-12s %s\n' "$name" "$(describe "$name" "$os")" >>"$dir/README.txt"
}

describe() {
  case $1 in
    collect) echo "collects a bundle on an EKS node; static, reads the journal with journalctl" ;;
    collect-cgo) echo "the same, built with cgo; reads the journal through libsystemd when it loads, journalctl otherwise" ;;
    analyze) echo "finds the root cause in one or many bundles" ;;
  esac
}

# cgo_compiler ARCH prints the C compiler for a cgo build for linux/ARCH, or
# nothing when this machine has none.
cgo_compiler() {
  local arch=$1 cross
  if [[ $host_os == linux && $arch == "$host_arch" ]]; then
    command -v "${CC:-gcc}" >/dev/null 2>&1 && echo "${CC:-gcc}"
    return 0
  fi
  case $arch in
    amd64) cross=x86_64-linux-gnu-gcc ;;
    arm64) cross=aarch64-linux-gnu-gcc ;;
  esac
  if [[ $host_os == linux ]] && command -v "$cross" >/dev/null 2>&1; then echo "$cross"; fi
  return 0
}

for arch in amd64 arm64; do
  build linux "$arch" 0 cmd/collect collect
  cc=$(cgo_compiler "$arch")
  if [[ -n $cc ]]; then
    build linux "$arch" 1 cmd/collect collect-cgo "$cc"
  else
    echo "skip  linux/$arch collect-cgo: no C compiler for it on this machine (the static collect covers it)"
  fi
  build linux "$arch" 0 cmd/analyze analyze
done
for arch in amd64 arm64; do
  build darwin "$arch" 0 cmd/analyze analyze
done

for dir in "$stage"/nodetriage_*; do
  name=$(basename "$dir")
  {
    printf 'nodetriage %s (commit %s), %s\n\n' "$version" "$commit" "${name#nodetriage_"${version}"_}"
    cat "$dir/README.txt"
  } >"$dir/README.tmp"
  mv "$dir/README.tmp" "$dir/README.txt"
  [[ -f LICENSE ]] && cp LICENSE "$dir/"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
    -C "$stage" -cf - "$name" | gzip -n -9 >"$dist/$name.tar.gz"
done
rm -rf "$stage"

(cd "$dist" && sha256sum -- *.tar.gz >SHA256SUMS)
echo
echo "release $version ($commit) in $dist/:"
(cd "$dist" && for f in *.tar.gz; do printf '  %-48s %s\n' "$f" "$(tar -tzf "$f" | sed -n 's|^[^/]*/||p' | grep -v '^$' | tr '\n' ' ')"; done)
echo "  SHA256SUMS"
