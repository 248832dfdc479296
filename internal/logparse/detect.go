package logparse

import (
	"bytes"
	"path"
	"strings"
)

// DetectFormat chooses the format of a log file from its bundle path and
// its first bytes. The path decides for the files the EKS log collector and
// nodetriage write (kubelet/kubelet.log, nodeadm/*.log, kernel/dmesg.current,
// var_log/aws-routed-eni/ipamd.log, journal/*.log, ...); the first lines
// decide between journal short and short-iso, and overrule the path when
// they clearly show another format. FormatUnknown means neither told, and
// Parse then looks at each line on its own.
func DetectFormat(p string, head []byte) Format {
	return chooseFormat(formatFromPath(p), sniffFormat(head))
}

func chooseFormat(byPath, sniffed Format) Format {
	switch {
	case byPath == FormatCloudInitOutput || byPath == FormatConsole:
		return byPath // free-form files: any line shape may appear first
	case sniffed == FormatUnknown:
		return byPath
	case sniffed == FormatPlain && byPath != FormatUnknown:
		return byPath
	}
	return sniffed
}

// journalFiles are the journalctl dumps of eks-log-collector.sh, by base name.
var journalFiles = map[string]bool{
	"kubelet.log":                        true,
	"docker.log":                         true,
	"containerd-log.txt":                 true,
	"soci-snapshotter-log.txt":           true,
	"sandbox-image-log.txt":              true,
	"configure-multicard-interfaces.txt": true,
}

func formatFromPath(p string) Format {
	p = normalizePath(p)
	dir, base := path.Split(p)
	parent := path.Base(strings.TrimSuffix(dir, "/"))
	lower := strings.ToLower(p)
	switch {
	case strings.HasSuffix(base, ".gz") || strings.HasSuffix(base, ".json") || strings.HasSuffix(base, ".yaml"):
		return FormatUnknown
	case parent == "kernel" && base == "dmesg.human.current":
		return FormatDmesgCtime
	case parent == "kernel" && strings.HasPrefix(base, "dmesg"):
		return FormatDmesg
	case parent == "nodeadm" && strings.HasSuffix(base, ".log"):
		return FormatJournalShort
	case parent == "journal" || strings.HasPrefix(p, "journal/"):
		return FormatJournalISO
	case journalFiles[base] && parent != "var_log":
		return FormatJournalShort
	case base == "cloud-init.log":
		return FormatCloudInit
	case base == "cloud-init-output.log" || base == "user-data.log":
		return FormatCloudInitOutput
	case parent == "aws-routed-eni":
		return FormatZapJSON
	case strings.Contains(lower, "console"):
		return FormatConsole
	case parent == "var_log" && isSyslogFile(base):
		return FormatJournalShort
	case parent == "var_log" && strings.HasPrefix(base, "kube-proxy.log"):
		return FormatKlog
	case strings.HasPrefix(p, "var_log/") && isContainerLog(p, base):
		return FormatCRI
	}
	return FormatUnknown
}

func isSyslogFile(base string) bool {
	for _, name := range []string{"messages", "syslog", "secure", "cron"} {
		if base == name || strings.HasPrefix(base, name+"-") || strings.HasPrefix(base, name+".") {
			return true
		}
	}
	return false
}

// isContainerLog recognises the kubelet's container logs copied into
// var_log/: "<pod>_<ns>_<container>-<id>.log" and "<ns>_<pod>_<uid>/<container>/0.log".
func isContainerLog(p, base string) bool {
	if strings.Count(p, "/") >= 3 {
		return true
	}
	return strings.HasSuffix(base, ".log") && strings.Count(base, "_") == 2
}

// Sniffing looks at no more than this many lines and bytes of head.
const (
	sniffLines = 32
	sniffBytes = 64 << 10
)

// sniffFormat votes over the first lines of head: each line is classified
// on its own and the most common format wins (the earliest on a tie).
// FormatPlain means lines were seen but none had a known shape.
func sniffFormat(head []byte) Format {
	if len(head) > sniffBytes {
		head = head[:sniffBytes]
	}
	var votes [len(formatNames)]int
	var order []Format
	seen, p := 0, newParser(Hint{Year: 2000}, nil)
	for len(head) > 0 && seen < sniffLines {
		line, rest, complete := cutLine(head)
		head = rest
		if !complete && seen > 0 {
			break // the last line of a cut-off head may be partial
		}
		line = trimEOL(line)
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		seen++
		var rec Record
		f, ok := p.parseAuto(&rec, line)
		if !ok {
			continue
		}
		if votes[f] == 0 {
			order = append(order, f)
		}
		votes[f]++
	}
	if seen == 0 {
		return FormatUnknown
	}
	return winner(votes[:], order)
}

func cutLine(b []byte) (line, rest []byte, complete bool) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i], b[i+1:], true
	}
	return b, nil, false
}

func winner(votes []int, order []Format) Format {
	if votes[FormatDmesg] > 0 && votes[FormatConsole] > 0 {
		return FormatConsole // kernel lines mixed with systemd status lines
	}
	best := FormatPlain
	for _, f := range order {
		if best == FormatPlain || votes[f] > votes[best] {
			best = f
		}
	}
	return best
}
