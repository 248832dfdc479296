package userdata

import (
	"net/url"
	"path"
	"strings"
)

// DefaultConfigSource is what nodeadm init reads without --config-source.
const DefaultConfigSource = "imds://user-data"

// DropInDir is read by nodeadm-run.service in addition to user data.
const DropInDir = "/etc/eks/nodeadm.d/"

// NodeadmInit is a "nodeadm init" call in a script.
type NodeadmInit struct {
	Line int
	// Command is the call as written.
	Command string
	// ConfigSources are the --config-source / -c values, as written.
	ConfigSources []string
	// Skip lists the phases given to --skip / -s.
	Skip        []string
	ConfigCache string
	Problems    []Problem
}

// Sources returns the sources this call reads: ConfigSources as written,
// or imds://user-data when none is given.
func (n NodeadmInit) Sources() []string {
	if len(n.ConfigSources) == 0 {
		return []string{DefaultConfigSource}
	}
	return n.ConfigSources
}

// CorrectedInit is the nodeadm call that reads the NodeConfig at path.
func CorrectedInit(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return "/usr/bin/nodeadm init --config-source file://" + p
}

// nodeadm records "nodeadm [global flags] init [flags]".
func (a *shellAnalyzer) nodeadm(cmd command, args []token) {
	for len(args) > 0 && strings.HasPrefix(args[0].text, "-") {
		args = args[1:]
	}
	if len(args) == 0 || args[0].text != "init" {
		return
	}
	in := NodeadmInit{Line: cmd.line, Command: cmd.text}
	args = args[1:]
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(args[i].text, "=")
		if !hasValue && i+1 < len(args) && nodeadmValueFlags[name] {
			value = args[i+1].text
			a.checkUndefined(args[i+1], cmd.line, &in.Problems)
			i++
		}
		switch name {
		case "-c", "--config-source":
			in.ConfigSources = append(in.ConfigSources, value)
		case "-s", "--skip":
			in.Skip = append(in.Skip, value)
		case "--config-cache":
			in.ConfigCache = value
		}
	}
	a.sh.NodeadmInits = append(a.sh.NodeadmInits, in)
}

var nodeadmValueFlags = map[string]bool{"-c": true, "--config-source": true, "-s": true, "--skip": true, "--config-cache": true, "-d": true, "--daemon": true}

// twoSlashSourceFor reports whether the call names p with a two-slash
// file:// source, which is reported on its own.
func (n NodeadmInit) twoSlashSourceFor(p string) bool {
	for _, src := range n.ConfigSources {
		if u, err := url.Parse(src); err == nil && u.Scheme == "file" && u.Host != "" && "/"+u.Host+u.Path == p {
			return true
		}
	}
	return false
}

// nodeadmFilePath is the path nodeadm's file provider opens for a file://
// source: URL host and path glued together, so "file://etc/x" becomes the
// relative path "etc/x".
func nodeadmFilePath(src string) (string, bool) {
	u, err := url.Parse(src)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	return u.Host + u.Path, true
}

// sourceCovers reports whether nodeadm reading src reads the file at p.
func sourceCovers(src, p string) bool {
	fp, ok := nodeadmFilePath(src)
	if !ok || fp == "" {
		return false
	}
	if fp == p {
		return true
	}
	return path.Dir(p) == strings.TrimSuffix(fp, "/") && isConfigExt(p)
}

func isConfigExt(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// readByNodeadmRun reports whether nodeadm-run.service picks up p without
// being told: files directly in /etc/eks/nodeadm.d/ with a config extension.
func readByNodeadmRun(p string) bool {
	return path.Dir(p)+"/" == DropInDir && isConfigExt(p)
}

// MissingFileSource returns the first NodeConfig file the script writes that
// no nodeadm init call reads (and nodeadm-run would not pick up from
// /etc/eks/nodeadm.d/). A two-slash source such as file://etc/eks/x.yaml
// does not count, since nodeadm reads it as a relative path. This is the
// "no config in chain" story: the file is right, but nodeadm never sees it.
func (s Shell) MissingFileSource() (string, bool) {
	for _, p := range s.NodeConfigFiles {
		if readByNodeadmRun(p) || s.readByInit(p) {
			continue
		}
		return p, true
	}
	return "", false
}

func (s Shell) readByInit(p string) bool {
	for _, in := range s.NodeadmInits {
		for _, src := range in.Sources() {
			if sourceCovers(s.Expand(src), p) {
				return true
			}
		}
	}
	return false
}

// checkNodeadmSources attaches source problems to every nodeadm init call.
func (a *shellAnalyzer) checkNodeadmSources() {
	missing, isMissing := a.sh.MissingFileSource()
	for i := range a.sh.NodeadmInits {
		in := &a.sh.NodeadmInits[i]
		for _, src := range in.ConfigSources {
			in.Problems = append(in.Problems, a.checkSource(src, in.Line)...)
		}
		if isMissing && !in.twoSlashSourceFor(missing) {
			in.Problems = append(in.Problems, problem(CodeConfigSourceMissing, SeverityError, in.Line,
				"this nodeadm init reads %s, but the NodeConfig the script writes to %s is passed to no nodeadm call; nodeadm finds no NodeConfig in the user data (\"could not find NodeConfig within UserData\", then \"no config in chain\"); run: %s",
				strings.Join(in.Sources(), " and "), missing, CorrectedInit(missing)))
		}
		in.Problems = append(in.Problems, problem(CodeNodeadmInitInUserData, SeverityInfo, in.Line,
			"user data runs nodeadm init itself while nodeadm-config.service and nodeadm-run.service also run it at boot (nodeadm warns \"Do not manually call nodeadm from user data\"); writing the NodeConfig to %s or into a MIME part avoids the race", DropInDir))
	}
	if isMissing && len(a.sh.NodeadmInits) == 0 {
		line := 0
		for _, f := range a.sh.WrittenFiles {
			if f.Path == missing {
				line = f.Line
			}
		}
		a.sh.Problems = append(a.sh.Problems, problem(CodeConfigSourceMissing, SeverityError, line,
			"the script writes a NodeConfig to %s but nothing passes it to nodeadm, which only reads %s and %s by default; move the file into %s, or run: %s",
			missing, DefaultConfigSource, DropInDir, DropInDir, CorrectedInit(missing)))
	}
}

// checkSource reports a --config-source value nodeadm will not read as meant.
func (a *shellAnalyzer) checkSource(raw string, line int) []Problem {
	src := a.sh.Expand(raw)
	u, err := url.Parse(src)
	if err != nil {
		return []Problem{problem(CodeConfigSourceScheme, SeverityError, line,
			"nodeadm stops with: failed to build provider from config source %q: %v", src, err)}
	}
	switch u.Scheme {
	case "imds":
		return nil
	case "file":
		return a.checkFileSource(src, u, line)
	}
	hint := ""
	if strings.HasPrefix(src, "/") {
		hint = "; write it as file://" + src
	}
	return []Problem{problem(CodeConfigSourceScheme, SeverityError, line,
		"nodeadm stops with: failed to build provider from config source %q: unsupported scheme: %s (only file: and imds: are allowed)%s", src, u.Scheme, hint)}
}

func (a *shellAnalyzer) checkFileSource(src string, u *url.URL, line int) []Problem {
	if u.Host != "" {
		rel := u.Host + u.Path
		return []Problem{problem(CodeConfigSourceTwoSlashes, SeverityError, line,
			"--config-source %q has two slashes after file:, so nodeadm takes %q as a host name and opens the relative path %q instead of /%s; it only works if the working directory is /; write file:///%s",
			src, u.Host, rel, rel, rel)}
	}
	if len(a.sh.NodeConfigFiles) == 0 || hasUnexpanded(src) {
		return nil
	}
	for _, p := range a.sh.NodeConfigFiles {
		if sourceCovers(src, p) {
			return nil
		}
	}
	return []Problem{problem(CodeConfigSourceMismatch, SeverityWarning, line,
		"--config-source %q does not point at the NodeConfig the script writes (%s)", src, strings.Join(a.sh.NodeConfigFiles, ", "))}
}

// knownEnvironment are variables the shell or cloud-init provide, never
// reported as undefined.
var knownEnvironment = map[string]bool{"HOME": true, "PATH": true, "USER": true, "HOSTNAME": true, "PWD": true}

// checkUndefined reports "$NAME" when the script never sets NAME but sets
// a variable with a very close name (a typo such as $K8S_CLUSTER_DNS_I).
func (a *shellAnalyzer) checkUndefined(t token, line int, out *[]Problem) {
	for _, m := range varRefRE.FindAllStringSubmatch(t.text, -1) {
		name := m[1] + m[2]
		if _, set := a.sh.Variables[name]; set || knownEnvironment[name] || len(name) < 4 {
			continue
		}
		for _, other := range sortedKeys(a.sh.Variables) {
			if editDistance(name, other) <= 2 {
				*out = append(*out, problem(CodeShellUndefinedVariable, SeverityError, line,
					"$%s is never set in the script and expands to nothing (did you mean $%s?)", name, other))
				break
			}
		}
	}
}
