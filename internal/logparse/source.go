package logparse

import (
	"path"
	"strings"
)

// sourceName returns the source for a journal or syslog identifier such as
// "kubelet[3214]", "udev-net-manager@eth0" or "kubelet.service": the
// program name without pid, instance and unit suffix. Names we know are
// returned without allocating.
func sourceName(ident []byte) string {
	if open := indexByteFrom(ident, 0, '['); open > 0 && ident[len(ident)-1] == ']' {
		ident = ident[:open]
	}
	if at := indexByteFrom(ident, 0, '@'); at > 0 {
		ident = ident[:at]
	}
	ident = trimSuffix(ident, ".service")
	if s, ok := knownSource(ident); ok {
		return s
	}
	return string(ident)
}

func trimSuffix(b []byte, suffix string) []byte {
	if len(b) > len(suffix) && string(b[len(b)-len(suffix):]) == suffix {
		return b[:len(b)-len(suffix)]
	}
	return b
}

// knownSource interns the names that make up most of a node's logs.
func knownSource(b []byte) (string, bool) {
	switch string(b) {
	case "kubelet":
		return "kubelet", true
	case "containerd":
		return "containerd", true
	case "nodeadm":
		return "nodeadm", true
	case "kernel":
		return "kernel", true
	case "systemd":
		return "systemd", true
	case "cloud-init":
		return "cloud-init", true
	case "ipamd":
		return "ipamd", true
	case "kube-proxy":
		return "kube-proxy", true
	case "dockerd":
		return "dockerd", true
	case "docker":
		return "docker", true
	case "sandbox-image":
		return "sandbox-image", true
	case "udev-net-manager":
		return "udev-net-manager", true
	case "soci-snapshotter-grpc":
		return "soci-snapshotter-grpc", true
	case "amazon-ssm-agent":
		return "amazon-ssm-agent", true
	case "chronyd":
		return "chronyd", true
	case "systemd-networkd":
		return "systemd-networkd", true
	case "systemd-resolved":
		return "systemd-resolved", true
	case "systemd-udevd":
		return "systemd-udevd", true
	case "systemd-logind":
		return "systemd-logind", true
	case "systemd-journald":
		return "systemd-journald", true
	case "sshd":
		return "sshd", true
	case "sudo":
		return "sudo", true
	case "audit":
		return "audit", true
	case "eks-bootstrap":
		return "eks-bootstrap", true
	case "private-dns-name":
		return "private-dns-name", true
	case "aws-node":
		return "aws-node", true
	case "coredns":
		return "coredns", true
	case "containerd-shim", "containerd-shim-runc-v2":
		return "containerd-shim", true
	}
	return "", false
}

// SourceFromPath names the program that writes the log file at a bundle
// path, for Hint.Source: "kubelet" for kubelet/kubelet.log, "ipamd" for
// var_log/aws-routed-eni/ipamd.log, the container name for container logs,
// the unit for journal/<unit>.log. Journal files give the unit as a default;
// each of their lines names its own source. Unknown paths give "".
func SourceFromPath(p string) string {
	p = normalizePath(p)
	dir, base := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	parent := path.Base(dir)
	if dir == "" {
		parent = ""
	}
	name := trimLogExt(base)
	switch {
	case parent == "kernel" && strings.HasPrefix(base, "dmesg"):
		return "kernel"
	case parent == "nodeadm" && strings.HasPrefix(base, "udev-net-manager"):
		return "udev-net-manager"
	case parent == "nodeadm":
		return "nodeadm"
	case base == "containerd-log.txt":
		return "containerd"
	case strings.HasPrefix(base, "soci-snapshotter"):
		return "soci-snapshotter"
	case base == "sandbox-image-log.txt":
		return "sandbox-image"
	case base == "configure-multicard-interfaces.txt":
		return "configure-multicard-interfaces"
	case parent == "docker" && base == "docker.log":
		return "dockerd"
	case parent == "kubelet" && base == "kubelet.log":
		return "kubelet"
	case strings.HasPrefix(base, "cloud-init"):
		return "cloud-init"
	case base == "user-data.log":
		return "user-data"
	case parent == "aws-routed-eni":
		return awsRoutedENISource(name)
	case parent == "journal" || parent == "console":
		return strings.TrimSuffix(name, ".service")
	case strings.HasPrefix(dir, "var_log/") || parent == "var_log":
		return containerSource(dir, base)
	}
	return ""
}

// awsRoutedENISource names the VPC CNI log files, including rotated ones
// such as "ipamd-2024-01-01T00-00-00.000.log".
func awsRoutedENISource(name string) string {
	switch {
	case strings.HasPrefix(name, "ipamd"):
		return "ipamd"
	case strings.HasPrefix(name, "plugin"):
		return "aws-cni"
	case strings.HasPrefix(name, "network-policy-agent"):
		return "network-policy-agent"
	case strings.HasPrefix(name, "egress-v"):
		return "egress-cni"
	}
	if cut := strings.IndexAny(name, ".-0123456789"); cut > 0 {
		return name[:cut]
	}
	return name
}

// containerSource names container logs copied into var_log/: pod folders
// "<ns>_<pod>_<uid>/<container>/0.log" and flattened
// "<pod>_<ns>_<container>-<64 hex id>.log" files. Other files are named by
// their base name.
func containerSource(dir, base string) string {
	if strings.Count(dir, "/") >= 2 && strings.Count(path.Base(path.Dir(dir)), "_") >= 2 {
		return path.Base(dir)
	}
	name := trimLogExt(base)
	if parts := strings.Split(name, "_"); len(parts) == 3 {
		container := parts[2]
		if dash := strings.LastIndexByte(container, '-'); dash > 0 && len(container)-dash-1 == 64 {
			return container[:dash]
		}
		return container
	}
	switch name {
	case "messages", "syslog", "secure", "cron":
		return ""
	}
	return name
}

func trimLogExt(base string) string {
	for _, ext := range []string{".gz", ".log", ".txt"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

// normalizePath makes a bundle path comparable: forward slashes, no
// leading "./" or "/", and without the top folder of an extracted bundle
// (eks_i-0abc_2025-03-06_1822-UTC_0.7.8/kubelet/kubelet.log).
func normalizePath(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	p = path.Clean("/" + p)[1:]
	if first, rest, ok := strings.Cut(p, "/"); ok && strings.HasPrefix(first, "eks_") {
		p = rest
	}
	return p
}
