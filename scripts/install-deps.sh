#!/usr/bin/env bash
# Installs the Debian packages the build, the tests and the demo need, when
# they are missing. Needs root (or sudo) only when something must be installed.
set -euo pipefail

packages=(libsystemd-dev systemd systemd-journal-remote ripgrep shellcheck time gcc curl)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "installing: ${missing[*]}" >&2
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v go >/dev/null 2>&1; then
	if [ -x /usr/local/go/bin/go ]; then
		echo "go is at /usr/local/go/bin; add it to PATH" >&2
	else
		echo "Go 1.26 or newer is needed: https://go.dev/dl/" >&2
		exit 1
	fi
fi
