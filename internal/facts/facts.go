// Package facts gathers what a bundle says about its node — identity, user
// data and NodeConfig, kubelet and VPC CNI settings, probe results, how the
// collection itself went — into one flat set of named values. Signature
// conditions and fix templates read that set; nothing here looks at log
// lines.
package facts

import (
	"path"
	"sort"
	"strings"
)

// Set is a flat map of fact name to value, e.g. "cluster.name" →
// "billing-prod". Booleans are "true" or "false"; lists are comma separated.
type Set map[string]string

// Get returns a fact or "".
func (s Set) Get(name string) string { return s[name] }

// set records a fact unless the value is empty or the fact is already known
// from a better source (sources are applied best first).
func (s Set) set(name, value string) {
	value = strings.TrimSpace(value)
	if value == "" {
		return
	}
	if _, ok := s[name]; !ok {
		s[name] = value
	}
}

// force records a fact, replacing what was there.
func (s Set) force(name, value string) {
	if value = strings.TrimSpace(value); value != "" {
		s[name] = value
	}
}

func (s Set) setBool(name string, v bool) {
	if v {
		s.force(name, "true")
	} else {
		s.set(name, "false")
	}
}

// Names returns the fact names in order, for listing.
func (s Set) Names() []string {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// maxFactFile bounds how much of one fact file is kept in memory.
const maxFactFile = 4 << 20

// Wants reports whether a bundle member feeds facts, so that the analyzer
// keeps its content (at most 4 MiB) while it streams the bundle.
func Wants(name string) bool {
	base := path.Base(name)
	dir := path.Dir(name)
	switch {
	case name == "manifest.json", base == "os-release", base == "settings.json",
		dir == "userdata", dir == "imds", dir == "probes",
		strings.HasPrefix(name, "system/") && strings.HasSuffix(base, ".txt") && isSystemFact(base),
		strings.HasPrefix(name, "kernel/uname"),
		strings.HasPrefix(name, "kubelet/") && (strings.HasSuffix(base, ".json") || strings.Contains(base, "kubeconfig") || strings.HasPrefix(base, "kubelet_service") || base == "environment" || strings.HasPrefix(base, "kubelet-extra-args")),
		strings.HasPrefix(name, "nodeadm/") && (strings.HasSuffix(base, ".json") || strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, "environment") || base == "release"),
		name == "system/hostname",
		strings.HasPrefix(name, "eks/"),
		strings.HasPrefix(name, "ipamd/") && strings.HasSuffix(base, "env-settings.json"),
		strings.HasPrefix(name, "ipamd/") && base == "eni-configs.json",
		strings.HasPrefix(name, "cni/") && (strings.HasSuffix(base, ".json") || strings.HasSuffix(base, ".conflist")),
		strings.HasPrefix(name, "cloud-init/") && strings.HasSuffix(base, ".json"),
		strings.HasPrefix(name, "containerd/containerd-version"),
		strings.HasPrefix(name, "networking/resolv.conf"),
		name == "var_log/cloud-init-output.log", name == "var_log/user-data.log",
		strings.HasPrefix(name, "networking/chrony") || strings.HasPrefix(name, "system/timedatectl"):
		return true
	}
	return false
}

func isSystemFact(base string) bool {
	switch base {
	case "instance-id.txt", "region.txt", "availability-zone.txt", "kubelet-version.txt", "containerd-version.txt", "nodeadm-version.txt", "hostname.txt", "uname.txt", "time-sync.txt", "timedatectl.txt", "chronyc-tracking.txt":
		return true
	}
	return false
}

// MaxFileBytes is how much of a fact file the analyzer should keep.
func MaxFileBytes() int64 { return maxFactFile }
