package bundle

import (
	"fmt"
	"path"
	"strings"
	"time"
)

// Top-level folders of a bundle. The first fifteen are those of the AWS
// eks-log-collector.sh, so people used to that layout find things where they
// expect them; the rest are additions of ours.
var collectorDirs = []string{
	"kernel", "modinfo", "system", "docker", "containerd", "storage", "var_log",
	"networking", "sandbox-image", "ipamd", "sysctls", "kubelet", "nodeadm", "cni", "gpu",
}

var ourDirs = []string{"userdata", "imds", "probes", "journal", "cloud-init", "eks"}

// Layout names who wrote a bundle.
type Layout string

// The layouts analyze understands.
const (
	LayoutNodetriage   Layout = "nodetriage"
	LayoutLogCollector Layout = "eks-log-collector"
	LayoutBottlerocket Layout = "bottlerocket-logdog"
	LayoutSingleFile   Layout = "single-file"
	LayoutUnknown      Layout = "unknown"
)

// IsTopDir reports whether name is a top-level folder of the bundle layout.
func IsTopDir(name string) bool {
	for _, d := range collectorDirs {
		if d == name {
			return true
		}
	}
	for _, d := range ourDirs {
		if d == name {
			return true
		}
	}
	return false
}

// bottlerocketFiles are members at the top of a logdog archive.
var bottlerocketFiles = []string{"journalctl.log", "settings.json", "os-release", "dmesg", "journalctl-boots.log"}

// CleanName turns an archive member name into a bundle path: slash separated,
// no leading "./" or "/", no "." or ".." elements, and without a wrapping top
// folder (eks_i-0abc.../kernel/x → kernel/x). It reports ok=false for a name
// that tried to leave the bundle ("../x") so callers can note it.
func CleanName(name string) (clean string, ok bool) {
	name = strings.ReplaceAll(name, "\\", "/")
	ok = true
	for _, el := range strings.Split(name, "/") {
		if el == ".." {
			ok = false
		}
	}
	if strings.HasPrefix(name, "/") {
		ok = false
	}
	clean = strings.TrimPrefix(path.Clean("/"+name), "/")
	if clean == "" || clean == "." {
		return "", ok
	}
	first, rest, found := strings.Cut(clean, "/")
	if found && !IsTopDir(first) && first != ManifestName && !isBottlerocketTop(first) {
		second, _, _ := strings.Cut(rest, "/")
		if IsTopDir(second) || second == ManifestName || isBottlerocketTop(second) {
			clean = rest
		}
	}
	return clean, ok
}

func isBottlerocketTop(name string) bool {
	for _, f := range bottlerocketFiles {
		if f == name {
			return true
		}
	}
	return false
}

// DetectLayout guesses who wrote a bundle from its member names.
func DetectLayout(names []string) Layout {
	var hasManifest, hasCollector, hasBottlerocket int
	for _, n := range names {
		switch {
		case n == ManifestName:
			hasManifest++
		case n == "system/script-params.txt" || strings.HasPrefix(n, "ipamd/") || strings.HasPrefix(n, "var_log/"):
			hasCollector++
		case isBottlerocketTop(n):
			hasBottlerocket++
		}
	}
	switch {
	case hasManifest > 0:
		return LayoutNodetriage
	case hasCollector > 0:
		return LayoutLogCollector
	case hasBottlerocket > 0:
		return LayoutBottlerocket
	case len(names) == 1 && !strings.Contains(names[0], "/"):
		return LayoutSingleFile
	}
	return LayoutUnknown
}

// DefaultName is the file name collect gives a bundle, close to the one of the
// AWS collector so that habits such as /var/log/eks_i* keep working.
func DefaultName(instanceID string, at time.Time, format Format, unredacted bool) string {
	id := instanceID
	if id == "" {
		id = "unknown-instance"
	}
	tag := "nodetriage"
	if unredacted {
		tag = "nodetriage_UNREDACTED"
	}
	return fmt.Sprintf("eks_%s_%s_%s.%s", id, at.UTC().Format("2006-01-02_1504-UTC"), tag, format)
}
