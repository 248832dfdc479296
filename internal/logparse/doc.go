// Package logparse turns lines of the log files in a node bundle into
// records (time, level, source, text) for the analyzer.
//
// It knows the shapes found in an EKS node bundle: journalctl output (short
// and short-iso), klog, nodeadm's zap JSON and zap console lines,
// containerd's logfmt, cloud-init's logs and bootstrap.sh lines, dmesg, the
// EC2 serial console, and the kubelet's container log files. DetectFormat
// picks the format of a file from its bundle path and first lines; Parse
// (or a Stream, for a file read in order) reads one line.
//
// A line is peeled layer by layer. The journal prefix gives the time and the
// source ("kubelet[2817]" → "kubelet"); the payload may itself be klog, zap,
// logfmt or a bootstrap.sh line, which gives the level and a more precise
// time. Text is what is left:
//
//   - klog: the message after "file.go:96] ", structured fields kept as
//     written: `"Unable to register node with API server" err="Unauthorized"`.
//   - zap console and zap JSON: the message and the fields in zap's console
//     style, `Command failed {"error": "no config in chain"}`, for both
//     nodeadm formats; caller and stack trace are dropped.
//   - logfmt: the unquoted msg, then the other pairs as written.
//   - AWS SDK lines ("SDK 2024/09/20 16:48:30 DEBUG ..."): the text after the
//     level word.
//   - dmesg: the text after "[   12.345678] ".
//   - shell scripts ("ERROR: ...", "[eks-bootstrap] INFO: ..."): the level
//     word stays in Text; it is part of the message.
//
// Patterns that need the transport prefix (a dmesg stamp, a journal
// identifier) should therefore be matched against the raw line, not Text.
//
// Level is only set when the line's format states it; GuessLevel is there
// for callers who want a guess for the rest. Times are in UTC. Stamps without
// a year (journal short, klog) take it from Hint.Ref, the collection time,
// which handles files that cross New Year.
//
// Parsing works on the line's bytes and allocates once per line (the text),
// twice when the source name is not one of the common ones. It never fails:
// a line that does not fit its format is recognised on its own or kept as
// plain text.
package logparse
