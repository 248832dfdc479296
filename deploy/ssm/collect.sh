#!/bin/bash
# nodetriage collect, run by AWS Systems Manager on one node: fetch the
# collect binary, refuse it unless its SHA-256 matches, run it under a time
# limit, upload the bundle to S3 (or PUT it to a presigned URL) and print
# where it went as the last line of output.
#
# This file is the one to edit. The runCommand list of collect.yaml is made
# from it; after a change run
#   go test ./internal/deploytest -run TestSSMDocumentRunsTheScript -update
if [ -z "${BASH_VERSION:-}" ]; then exec /bin/bash "$0" "$@"; fi
set -euo pipefail
umask 077

# Parameters. SSM Agent 3.3.2746.0 and newer passes each one as an SSM_<Name>
# environment variable (interpolationType ENV_VAR); older agents only paste
# the value over the placeholder in the quoted text. The allowedPattern of
# every parameter rules out quotes, so a pasted value cannot leave its
# single-quoted string.
binary_url=${SSM_BinaryUrl-'{{ BinaryUrl }}'}
binary_sha256=${SSM_BinarySha256-'{{ BinarySha256 }}'}
bucket=${SSM_Bucket-'{{ Bucket }}'}
prefix=${SSM_Prefix-'{{ Prefix }}'}
since=${SSM_Since-'{{ Since }}'}
max_size=${SSM_MaxSize-'{{ MaxSize }}'}
time_limit=${SSM_Timeout-'{{ Timeout }}'}
presigned_url=${SSM_PresignedUrl-'{{ PresignedUrl }}'}

# Overridable for tests only; on a node both keep their defaults.
imds=${NODETRIAGE_IMDS_ENDPOINT:-http://169.254.169.254}
keep_dir=${NODETRIAGE_KEEP_DIR:-/var/log}

say() { printf 'nodetriage: %s\n' "$*"; }
fail() {
  printf 'nodetriage: error: %s\n' "$*" >&2
  exit 1
}

check_parameters() {
  [[ $binary_sha256 =~ ^[0-9a-f]{64}$ ]] || fail "BinarySha256 must be 64 lower-case hex digits"
  [[ $time_limit =~ ^[1-9][0-9]*$ ]] || fail "Timeout must be a whole number of seconds"
  if [[ -z $bucket && -z $presigned_url ]]; then
    fail "set Bucket (upload with the AWS CLI) or PresignedUrl (upload with curl)"
  fi
  if [[ -n $prefix && $prefix != */ ]]; then prefix="$prefix/"; fi
  prefix=${prefix#/}
}

download() {
  local dest=$1
  case $binary_url in
    s3://*)
      command -v aws >/dev/null 2>&1 || fail "BinaryUrl is an s3:// URL but the AWS CLI is missing; use an https:// URL"
      aws s3 cp --only-show-errors --no-progress "$binary_url" "$dest" ||
        fail "could not download $binary_url"
      ;;
    https://*)
      curl --fail --silent --show-error --location --proto '=https' --proto-redir '=https' \
        --retry 3 --connect-timeout 10 --max-time 300 --output "$dest" "$binary_url" ||
        fail "could not download $binary_url"
      ;;
    *) fail "BinaryUrl must start with s3:// or https://" ;;
  esac
}

verify() {
  local file=$1 actual
  if ! printf '%s  %s\n' "$binary_sha256" "$file" | sha256sum --check --status; then
    actual=$(sha256sum "$file" | cut -d ' ' -f 1)
    fail "SHA-256 mismatch for $binary_url: expected $binary_sha256, got $actual; not running it"
  fi
}

# install_collect accepts either the bare binary or a release tarball that
# holds it, and leaves it at $work/collect.
install_collect() {
  local download=$1 found
  if tar -tzf "$download" >/dev/null 2>&1; then
    mkdir "$work/unpack"
    tar -xzf "$download" -C "$work/unpack" --no-same-owner
    found=$(find "$work/unpack" -type f -name collect -print -quit)
    [[ -n $found ]] || fail "the archive at $binary_url holds no file named collect"
    mv "$found" "$work/collect"
  else
    mv "$download" "$work/collect"
  fi
  chmod 0700 "$work/collect"
}

run_collect() {
  local status=0
  mkdir "$work/out"
  timeout --kill-after=15 "$time_limit" "$work/collect" --output "$work/out" \
    --since "$since" --max-size "$max_size" --quiet || status=$?
  case $status in
    0) ;;
    124 | 137) say "warning: collect was stopped after ${time_limit}s" ;;
    *) say "warning: collect exited with status $status" ;;
  esac
}

find_bundle() {
  local found=()
  shopt -s nullglob
  found=("$work"/out/eks_*_nodetriage*.tar.gz "$work"/out/eks_*_nodetriage*.tar.zst "$work"/out/eks_*_nodetriage*.zip)
  shopt -u nullglob
  ((${#found[@]} == 1)) || fail "expected one bundle in the output folder, found ${#found[@]}"
  bundle=${found[0]}
}

imds_token=""
imds_get() {
  [[ -n $imds_token ]] || return 1
  curl --silent --fail --max-time 3 -H "X-aws-ec2-metadata-token: $imds_token" "$imds/latest/meta-data/$1"
}

open_imds_session() {
  imds_token=$(curl --silent --fail --max-time 3 -X PUT \
    -H 'X-aws-ec2-metadata-token-ttl-seconds: 120' "$imds/latest/api/token") || imds_token=""
}

# instance_id prefers IMDSv2, then the id collect put in the bundle name,
# then the host name.
instance_id() {
  local id name
  id=$(imds_get instance-id) || id=""
  if [[ $id =~ ^i-[0-9a-f]{8,17}$ ]]; then
    printf '%s\n' "$id"
    return
  fi
  name=${bundle##*/}
  if [[ $name =~ ^eks_(i-[0-9a-f]{8,17})_ ]]; then
    printf '%s\n' "${BASH_REMATCH[1]}"
    return
  fi
  uname -n
}

upload_to_s3() {
  local target=$1 region
  command -v aws >/dev/null 2>&1 || {
    say "the AWS CLI is missing; pass PresignedUrl to upload without it" >&2
    return 1
  }
  if [[ -z ${AWS_REGION:-} && -z ${AWS_DEFAULT_REGION:-} ]]; then
    region=$(imds_get placement/region) && export AWS_DEFAULT_REGION="$region"
  fi
  aws s3 cp --only-show-errors --no-progress "$bundle" "$target"
}

# upload_to_presigned_url succeeds only on a 2xx answer: curl --fail lets a
# redirect (S3 sends one for the wrong region) pass as success.
upload_to_presigned_url() {
  local code
  code=$(curl --fail --silent --show-error --proto '=https' --retry 5 --retry-connrefused \
    --connect-timeout 10 --max-time 600 --output /dev/null --write-out '%{http_code}' \
    --upload-file "$bundle" "$presigned_url") || return 1
  [[ $code == 2?? ]] || {
    say "the presigned URL answered HTTP $code" >&2
    return 1
  }
}

# keep_bundle moves the bundle out of the work folder, which is about to be
# deleted, so that a failed upload does not lose it.
keep_bundle() {
  mv "$bundle" "$keep_dir/" && say "the bundle stays on this node: $keep_dir/${bundle##*/}" >&2
}

main() {
  check_parameters
  work=$(mktemp -d "${TMPDIR:-/tmp}/nodetriage.XXXXXXXX")
  trap 'rm -rf -- "$work"' EXIT

  say "fetching $binary_url"
  download "$work/download"
  verify "$work/download"
  install_collect "$work/download"

  say "collecting (since $since, at most $max_size, time limit ${time_limit}s)"
  run_collect
  find_bundle
  say "bundle ${bundle##*/} ($(stat -c %s "$bundle") bytes)"

  open_imds_session
  local name=${bundle##*/} target host
  if [[ -n $presigned_url ]]; then
    if ! upload_to_presigned_url; then
      keep_bundle
      fail "upload to the presigned URL failed"
    fi
    host=${presigned_url#https://}
    host=${host%%[/?]*}
    printf 'uploaded %s to presigned URL on %s\n' "$name" "$host"
    return
  fi
  target="s3://$bucket/${prefix}$(instance_id)/$name"
  if ! upload_to_s3 "$target"; then
    keep_bundle
    fail "upload to $target failed"
  fi
  printf '%s\n' "$target"
}

main "$@"
