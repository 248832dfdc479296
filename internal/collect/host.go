package collect

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/nodetriage/nodetriage/internal/bundle"
	"github.com/nodetriage/nodetriage/internal/imds"
	"github.com/nodetriage/nodetriage/internal/source"
)

// hostIdentity fills the manifest's host section from the metadata, files of
// the node and what was staged.
func hostIdentity(tree *source.Tree, md imds.Metadata, stageDir string) bundle.Host {
	h := bundle.Host{
		InstanceID:       md.InstanceID,
		AccountID:        md.AccountID,
		Region:           md.Region,
		AvailabilityZone: md.AvailabilityZone,
		InstanceType:     md.InstanceType,
		AMIID:            md.AMIID,
		Hostname:         md.LocalHostname,
	}
	if name := firstLineOf(tree, "/etc/hostname"); name != "" {
		h.Hostname = name
	} else if tree.Live() {
		h.Hostname, _ = os.Hostname()
	}
	osRelease := keyValues(tree, "/etc/os-release")
	h.Distro = osRelease["NAME"]
	h.DistroVersion = osRelease["VERSION_ID"]
	if pretty := osRelease["PRETTY_NAME"]; pretty != "" {
		h.DistroVersion = strings.TrimSpace(strings.TrimPrefix(pretty, h.Distro))
	}
	release := keyValues(tree, "/etc/eks/release")
	if tree.Live() {
		h.Kernel = source.KernelRelease()
	} else {
		h.Kernel = release["BUILD_KERNEL"]
	}
	if h.AMIID == "" {
		h.AMIID = release["BASE_AMI_ID"]
	}
	h.EKSRelease = release["BUILD_TIME"]
	h.KubeletVersion = firstLineOf(tree, "/etc/eks/kubelet-version.txt")
	if h.KubeletVersion == "" {
		h.KubeletVersion = kubeletVersionFromLog(filepath.Join(stageDir, "kubelet", "kubelet.log"))
	}
	h.ContainerdVersion = firstLineOf(tree, "/etc/eks/containerd-version.txt")
	return h
}

// firstLineOf returns the first line of a small file of the node.
func firstLineOf(tree *source.Tree, p string) string {
	data, err := tree.ReadFile(p, 4096)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return strings.TrimSpace(line)
}

// keyValues reads a KEY="value" file such as os-release.
func keyValues(tree *source.Tree, p string) map[string]string {
	out := map[string]string{}
	data, err := tree.ReadFile(p, 64<<10)
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || strings.HasPrefix(k, "#") {
			continue
		}
		out[k] = strings.Trim(v, `"'`)
	}
	return out
}

var kubeletVersionRe = regexp.MustCompile(`kubeletVersion="([^"]+)"`)

// kubeletVersionFromLog finds the version the kubelet logs when it starts.
func kubeletVersionFromLog(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	version := ""
	for sc.Scan() {
		if m := kubeletVersionRe.FindStringSubmatch(sc.Text()); m != nil {
			version = m[1]
		}
	}
	return version
}
