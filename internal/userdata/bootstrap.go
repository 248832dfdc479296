package userdata

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// BootstrapCall is a call of the AL2 /etc/eks/bootstrap.sh script.
type BootstrapCall struct {
	Line int
	// Command is the call as written.
	Command string
	// ClusterName is the first positional argument, as written.
	ClusterName string
	// Flags maps each recognised flag to its value, as written.
	Flags map[string]string
	// Expanded is Flags with the variables the script sets to fixed text
	// substituted ("$API_SERVER_URL" becomes the URL assigned above).
	Expanded map[string]string
	// ExpandedClusterName is ClusterName after the same substitution.
	ExpandedClusterName string
	// Positional are the arguments bootstrap.sh does not take as flags,
	// in order; the first is the cluster name.
	Positional []string
	// KubeletExtraArgs is --kubelet-extra-args with known variables expanded.
	KubeletExtraArgs string
	// Labels come from --node-labels inside KubeletExtraArgs.
	Labels map[string]string
	// MaxPods comes from --max-pods inside KubeletExtraArgs; 0 if absent.
	MaxPods  int
	Problems []Problem
}

// bootstrapFlags are the flags bootstrap.sh knows; every one takes a value.
var bootstrapFlags = map[string]bool{
	"--apiserver-endpoint": true, "--aws-api-retry-attempts": true, "--b64-cluster-ca": true,
	"--cluster-id": true, "--container-runtime": true, "--containerd-config-file": true,
	"--dns-cluster-ip": true, "--docker-config-json": true, "--enable-docker-bridge": true,
	"--enable-local-outpost": true, "--ip-family": true, "--kubelet-extra-args": true,
	"--local-disks": true, "--mount-bpf-fs": true, "--pause-container-account": true,
	"--pause-container-version": true, "--service-ipv4-cidr": true, "--service-ipv6-cidr": true,
	"--use-max-pods": true,
}

// lookalikeDashes are characters that word processors put where "--" was.
var lookalikeDashes = []string{"\u2014", "\u2013", "\u2012", "\u2010", "\u2011", "\u2212"}

func mangledDash(s string) (string, bool) {
	for _, d := range lookalikeDashes {
		if strings.HasPrefix(s, d) {
			return d, true
		}
	}
	return "", false
}

// bootstrap records a bootstrap.sh call; only the first one is kept.
func (a *shellAnalyzer) bootstrap(cmd command, args []token) {
	if a.sh.Bootstrap != nil {
		return
	}
	b := &BootstrapCall{Line: cmd.line, Command: cmd.text, Flags: map[string]string{}}
	for i := 0; i < len(args); i++ {
		arg := args[i].text
		a.checkUndefined(args[i], cmd.line, &b.Problems)
		switch {
		case strings.HasPrefix(arg, "--"):
			i = b.flag(args, i)
		case arg == "-h":
			b.Problems = append(b.Problems, problem(CodeBootstrapUnknownFlag, SeverityError, b.Line,
				"bootstrap.sh -h prints its help and exits 1; the node is not bootstrapped"))
		default:
			if d, ok := mangledDash(arg); ok {
				b.Problems = append(b.Problems, problem(CodeBootstrapMangledDash, SeverityError, b.Line,
					"%q starts with %q (U+%04X) instead of two hyphens, as happens when a command is copied from a web page; bootstrap.sh does not recognise it, takes it and its value as positional arguments and ignores them; type --%s",
					arg, d, []rune(d)[0], strings.TrimPrefix(arg, d)))
			}
			b.Positional = append(b.Positional, arg)
		}
	}
	if len(b.Positional) > 0 {
		b.ClusterName = b.Positional[0]
	}
	b.ExpandedClusterName = a.sh.Expand(b.ClusterName)
	b.Expanded = make(map[string]string, len(b.Flags))
	for k, v := range b.Flags {
		b.Expanded[k] = a.sh.Expand(v)
	}
	b.kubeletArgs(b.Expanded["--kubelet-extra-args"])
	a.sh.Bootstrap = b
}

// flag consumes the flag at args[i] and returns the index of its last word.
func (b *BootstrapCall) flag(args []token, i int) int {
	arg := args[i].text
	name, value, hasValue := strings.Cut(arg, "=")
	if name == "--help" {
		b.Problems = append(b.Problems, problem(CodeBootstrapUnknownFlag, SeverityError, b.Line,
			"bootstrap.sh --help prints its help and exits 1; the node is not bootstrapped"))
		return i
	}
	if !bootstrapFlags[name] {
		b.Problems = append(b.Problems, problem(CodeBootstrapUnknownFlag, SeverityWarning, b.Line,
			"bootstrap.sh does not know %s; it keeps it as a positional argument, and if it comes before the cluster name it is taken as the cluster name", name))
		b.Positional = append(b.Positional, arg)
		return i
	}
	if !hasValue {
		if i+1 >= len(args) {
			b.Problems = append(b.Problems, problem(CodeBootstrapMissingValue, SeverityError, b.Line,
				"%s is the last argument and has no value; bootstrap.sh reads an empty value", name))
			b.Flags[name] = ""
			return i
		}
		value = args[i+1].text
		i++
	}
	b.Flags[name] = value
	return i
}

func (b *BootstrapCall) kubeletArgs(args string) {
	b.KubeletExtraArgs = args
	words := splitWords(args)
	b.Labels = labelsFromKubeletArgs(words)
	if vs := flagValues(words, "--max-pods"); len(vs) > 0 {
		b.MaxPods, _ = strconv.Atoi(vs[len(vs)-1])
	}
}

var bootstrapCACodes = caCodes{
	field: "--b64-cluster-ca", notBase64: CodeBootstrapCANotBase64, double: CodeBootstrapCADoubleBase64,
	notPEM: CodeBootstrapCANotPEM, expired: CodeBootstrapCAExpired, notYet: CodeBootstrapCANotYetValid,
	decodeFails: "bootstrap.sh cannot base64-decode it into /etc/kubernetes/pki/ca.crt",
}

// Validate checks the values given to bootstrap.sh, as of now. Values that
// still hold a variable are reported once and not checked further.
func (b *BootstrapCall) Validate(now time.Time) []Problem {
	if b == nil {
		return nil
	}
	var out []Problem
	out = append(out, b.checkClusterName()...)
	endpoint, hasEndpoint := b.Expanded["--apiserver-endpoint"]
	ca, hasCA := b.Expanded["--b64-cluster-ca"]
	if hasEndpoint != hasCA {
		out = append(out, problem(CodeBootstrapMissingValue, SeverityWarning, b.Line,
			"only one of --apiserver-endpoint and --b64-cluster-ca is given; bootstrap.sh then calls aws eks describe-cluster (INFO: --b64-cluster-ca or --apiserver-endpoint is not defined, describing cluster...), which needs eks:DescribeCluster and a route to the EKS API"))
	}
	if hasEndpoint && !b.unexpanded("--apiserver-endpoint", endpoint, &out) {
		if msg := endpointIssue(endpoint); msg != "" {
			out = append(out, problem(CodeBootstrapEndpointHTTPS, SeverityError, b.Line, "--apiserver-endpoint %s", msg))
		}
	}
	if hasCA && !b.unexpanded("--b64-cluster-ca", ca, &out) {
		_, probs := inspectCA(ca, now, bootstrapCACodes, b.Line)
		out = append(out, probs...)
	}
	out = append(out, b.checkDNSIP()...)
	out = append(out, b.checkRuntime()...)
	return out
}

func (b *BootstrapCall) checkClusterName() []Problem {
	var out []Problem
	switch name := b.ExpandedClusterName; {
	case name == "":
		out = append(out, problem(CodeBootstrapMissingCluster, SeverityError, b.Line,
			"bootstrap.sh gets no cluster name and stops with \"ERROR: cluster name is not defined!\""))
	case b.unexpanded("the cluster name", name, &out):
	case !clusterNameRE.MatchString(name):
		out = append(out, problem(CodeBootstrapBadClusterName, SeverityError, b.Line,
			"bootstrap.sh takes %q as the cluster name; it does not match ^[-a-zA-Z0-9]{1,100}$", name))
	}
	return out
}

// unexpanded reports a value that is still a variable or template
// placeholder and returns true for it.
func (b *BootstrapCall) unexpanded(what, value string, out *[]Problem) bool {
	if !hasUnexpanded(value) {
		return false
	}
	*out = append(*out, problem(CodeBootstrapUnexpanded, SeverityInfo, b.Line,
		"%s is %q, filled in by the shell or a template at launch; it cannot be checked here", what, value))
	return true
}

func (b *BootstrapCall) checkDNSIP() []Problem {
	v, ok := b.Expanded["--dns-cluster-ip"]
	var out []Problem
	if !ok || b.unexpanded("--dns-cluster-ip", v, &out) {
		return out
	}
	for _, ip := range strings.Split(v, ",") {
		if net.ParseIP(strings.TrimSpace(ip)) == nil {
			out = append(out, problem(CodeBootstrapBadDNSIP, SeverityError, b.Line,
				"--dns-cluster-ip %q is not an IP address; kubelet gets a wrong clusterDNS and pods cannot resolve names", ip))
		}
	}
	return out
}

func (b *BootstrapCall) checkRuntime() []Problem {
	rt, ok := b.Expanded["--container-runtime"]
	if !ok || rt == "containerd" || hasUnexpanded(rt) {
		return nil
	}
	msg := fmt.Sprintf("ERROR: unsupported container runtime: '%s'", rt)
	if rt == "dockerd" {
		msg = "ERROR: containerd is the only supported container runtime as of Kubernetes version 1.24"
	}
	return []Problem{problem(CodeBootstrapRuntime, SeverityError, b.Line,
		"--container-runtime %s: bootstrap.sh stops with %q on current AMIs", rt, msg)}
}
