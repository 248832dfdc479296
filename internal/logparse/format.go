package logparse

// Format names the outer shape of the lines of a log file.
type Format uint8

// The formats Parse knows. FormatUnknown asks Parse to recognise the shape
// of each line on its own.
const (
	// FormatUnknown: no format chosen; Parse looks at each line.
	FormatUnknown Format = iota
	// FormatJournalShort: journalctl's default output and classic syslog,
	// "Jun 06 19:33:03 host kubelet[3214]: ...". The stamp has no year.
	FormatJournalShort
	// FormatJournalISO: journalctl -o short-iso / short-iso-precise,
	// "2026-11-29T14:26:31.123456+00:00 host unit[pid]: ..." (also "+0000").
	FormatJournalISO
	// FormatKlog: bare klog lines, "E1129 14:26:31.123456    1234 file.go:12] msg".
	FormatKlog
	// FormatZapJSON: zap JSON lines (nodeadm before Dec 2025, VPC CNI ipamd),
	// {"level":"error","ts":...,"caller":...,"msg":...}.
	FormatZapJSON
	// FormatZapConsole: zap console lines as nodeadm writes them since Dec 2025,
	// "fatal cli/main.go:35 Command failed {"error": "..."}".
	FormatZapConsole
	// FormatCloudInit: /var/log/cloud-init.log,
	// "2026-11-29 14:20:01,123 - util.py[DEBUG]: ...".
	FormatCloudInit
	// FormatCloudInitOutput: /var/log/cloud-init-output.log, free text from
	// user data scripts, with bootstrap.sh lines
	// "2024-01-01T00:00:00+0000 [eks-bootstrap] INFO: ...".
	FormatCloudInitOutput
	// FormatLogfmt: key=value lines as containerd writes them,
	// time="..." level=error msg="...".
	FormatLogfmt
	// FormatDmesg: dmesg with seconds since boot, "[   12.345678] text".
	FormatDmesg
	// FormatDmesgCtime: dmesg --ctime, "[Sun Nov 29 14:26:31 2026] text".
	FormatDmesgCtime
	// FormatConsole: EC2 serial console output: kernel lines, systemd status
	// lines ("[  OK  ] Started ...", "[FAILED] ..."), cloud-init lines and
	// daemon lines forwarded by journald ("[  25.1] nodeadm[1234]: ...").
	FormatConsole
	// FormatCRI: container log files written by the kubelet,
	// "2026-11-29T14:26:31.123456789Z stderr F message".
	FormatCRI
	// FormatPlain: free text; Text is the whole line.
	FormatPlain
)

var formatNames = [...]string{
	FormatUnknown:         "unknown",
	FormatJournalShort:    "journal-short",
	FormatJournalISO:      "journal-iso",
	FormatKlog:            "klog",
	FormatZapJSON:         "zap-json",
	FormatZapConsole:      "zap-console",
	FormatCloudInit:       "cloud-init",
	FormatCloudInitOutput: "cloud-init-output",
	FormatLogfmt:          "logfmt",
	FormatDmesg:           "dmesg",
	FormatDmesgCtime:      "dmesg-ctime",
	FormatConsole:         "console",
	FormatCRI:             "cri",
	FormatPlain:           "plain",
}

// String returns a short kebab-case name for the format.
func (f Format) String() string {
	if int(f) >= len(formatNames) {
		return formatNames[FormatUnknown]
	}
	return formatNames[f]
}
