package userdata

import (
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Shell is what ParseShell found in a user-data script.
type Shell struct {
	// Bootstrap is the first /etc/eks/bootstrap.sh call (AL2 nodes).
	Bootstrap *BootstrapCall
	// NodeadmInits are the "nodeadm init" calls (AL2023 nodes).
	NodeadmInits []NodeadmInit
	// WrittenFiles are files the script writes through a heredoc or echo.
	WrittenFiles []WrittenFile
	// NodeConfigFiles are the WrittenFiles paths whose content is a NodeConfig.
	NodeConfigFiles []string
	// Labels are the kubelet node labels the script sets, through
	// bootstrap.sh --kubelet-extra-args or a written NodeConfig. Values keep
	// any variable that is only known at boot ("billing-$AZ").
	Labels map[string]string
	// UnexpandedLabels lists the label keys whose values still hold such a
	// variable, sorted.
	UnexpandedLabels []string
	// Variables are the plain NAME=value assignments, values as written.
	Variables map[string]string
	// UsesIMDS is true when the script talks to the instance metadata
	// service; UsesIMDSv2 when it asks for an IMDSv2 token.
	UsesIMDS   bool
	UsesIMDSv2 bool
	// Problems are findings about the script itself (see also
	// BootstrapCall.Problems and NodeadmInit.Problems).
	Problems []Problem

	dynamic map[string]bool // variables set from a command substitution
}

// WrittenFile is a file the script writes.
type WrittenFile struct {
	// Path is the target, with variables of known value substituted.
	Path string
	// Line is the line of the writing command; BodyLine the first line of
	// the heredoc body (0 when the content is not from a heredoc).
	Line, BodyLine int
	// Content is the heredoc body (or echo text) as written.
	Content []byte
	Append  bool
	// Expands is true when the shell expands $variables in Content
	// (unquoted heredoc delimiter, or echo without single quotes).
	Expands bool
	// NodeConfig is set when Content is a NodeConfig that decodes.
	NodeConfig *NodeConfig
}

// maxExpansion bounds the text produced by substituting variables.
const maxExpansion = 1 << 20

var varRefRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// Expand substitutes the variables whose value the script sets to a fixed
// text; variables computed at boot (command substitutions) and unknown
// ones stay as written.
func (s Shell) Expand(text string) string {
	for round := 0; round < 4 && strings.Contains(text, "$"); round++ {
		next := varRefRE.ReplaceAllStringFunc(text, func(ref string) string {
			name := strings.Trim(ref, "${}")
			if v, ok := s.Variables[name]; ok && !s.dynamic[name] {
				return v
			}
			return ref
		})
		if next == text || len(next) > maxExpansion {
			break
		}
		text = next
	}
	return text
}

// ParseShell reads a user-data script. It is not a shell: it follows
// quoting, line continuations, comments and heredocs well enough to find
// the commands that matter for node bootstrap, and never fails.
func ParseShell(script []byte) Shell {
	a := &shellAnalyzer{sh: Shell{Labels: map[string]string{}, Variables: map[string]string{}, dynamic: map[string]bool{}}}
	lines, probs := splitLogicalLines(script)
	a.sh.Problems = append(a.sh.Problems, probs...)
	for _, ll := range lines {
		for _, cmd := range splitCommands(ll) {
			a.command(cmd)
		}
	}
	a.finish()
	return a.sh
}

// AllProblems returns the script's problems together with those of its
// bootstrap.sh and nodeadm init calls, in line order.
func (s Shell) AllProblems() []Problem {
	out := append([]Problem(nil), s.Problems...)
	if s.Bootstrap != nil {
		out = append(out, s.Bootstrap.Problems...)
	}
	for _, in := range s.NodeadmInits {
		out = append(out, in.Problems...)
	}
	slices.SortStableFunc(out, func(x, y Problem) int { return x.Line - y.Line })
	return out
}

// Validate checks the values the script hands to the node: the bootstrap.sh
// flags and the NodeConfig files it writes, as of now.
func (s Shell) Validate(now time.Time) []Problem {
	var out []Problem
	if s.Bootstrap != nil {
		out = append(out, s.Bootstrap.Validate(now)...)
	}
	for _, f := range s.WrittenFiles {
		if f.NodeConfig == nil {
			continue
		}
		out = append(out, shiftLines(f.NodeConfig.Validate(now), f.BodyLine)...)
	}
	return out
}

// shiftLines turns body-relative lines into script lines.
func shiftLines(ps []Problem, bodyLine int) []Problem {
	out := make([]Problem, len(ps))
	for i, p := range ps {
		if p.Line > 0 && bodyLine > 0 {
			p.Line += bodyLine - 1
		} else if bodyLine > 0 {
			p.Line = bodyLine
		}
		out[i] = p
	}
	return out
}

// heredoc is one heredoc with its body.
type heredoc struct {
	heredocSpec
	body     []byte
	bodyLine int
}

// logicalLine is one complete command line (possibly several physical
// lines) and the heredoc bodies that follow it.
type logicalLine struct {
	text     string
	line     int
	heredocs []heredoc
	// lines[i] is the script line of the i-th line of text; heredoc bodies
	// are not part of text, so the numbers can jump.
	lines []int
}

// scriptLine maps a 0-based line of the logical text to a script line.
func (ll logicalLine) scriptLine(i int) int {
	if i >= 0 && i < len(ll.lines) {
		return ll.lines[i]
	}
	return ll.line
}

// splitLogicalLines groups physical lines into logical lines, taking
// heredoc bodies out of the command text.
func splitLogicalLines(script []byte) ([]logicalLine, []Problem) {
	var (
		out     []logicalLine
		cur     *logicalLine
		sc      lineScanner
		text    strings.Builder
		pending int
		lineNo  int
	)
	emit := func() {
		cur.text = text.String()
		out = append(out, *cur)
		cur, pending = nil, 0
	}
	for pos := 0; pos < len(script); {
		l := lineAt(script, pos)
		pos = l.next
		lineNo++
		raw := string(l.text(script))
		if cur != nil && pending < len(cur.heredocs) {
			if h := &cur.heredocs[pending]; h.feed(raw, lineNo) {
				pending++
				if pending == len(cur.heredocs) && sc.complete() {
					emit()
				}
			}
			continue
		}
		if cur == nil {
			cur, sc = &logicalLine{line: lineNo}, lineScanner{}
			text.Reset()
		} else {
			text.WriteByte('\n')
		}
		text.WriteString(raw)
		cur.lines = append(cur.lines, lineNo)
		before := len(sc.heredocs)
		sc.scan(raw)
		for _, spec := range sc.heredocs[before:] {
			cur.heredocs = append(cur.heredocs, heredoc{heredocSpec: spec})
		}
		if pending == len(cur.heredocs) && sc.complete() {
			emit()
		}
	}
	var probs []Problem
	if cur != nil {
		probs = append(probs, unterminated(cur, pending, sc))
		emit()
	}
	return out, probs
}

// feed adds one line to the heredoc body; it returns true on the
// delimiter line.
func (h *heredoc) feed(raw string, lineNo int) bool {
	text := raw
	if h.stripTabs {
		text = strings.TrimLeft(raw, "\t")
	}
	if h.bodyLine == 0 {
		h.bodyLine = lineNo
	}
	if text == h.delim {
		return true
	}
	h.body = append(append(h.body, text...), '\n')
	return false
}

func unterminated(cur *logicalLine, pending int, sc lineScanner) Problem {
	if pending < len(cur.heredocs) {
		return problem(CodeShellUnterminated, SeverityWarning, cur.line,
			"the heredoc <<%s opened here is never closed by a line %q; the shell takes the rest of the script as its body (bash: here-document delimited by end-of-file)", cur.heredocs[pending].delim, cur.heredocs[pending].delim)
	}
	what := "a quote or substitution"
	if sc.cont {
		what = "a line continuation"
	}
	return problem(CodeShellUnterminated, SeverityWarning, cur.line,
		"%s opened here is never closed; bash would stop with a syntax error (unexpected end of file)", what)
}

// command is one simple command with its redirections.
type command struct {
	words     []token
	redirects []redirect
	pipedFrom *command
	text      string // the command as written
	textStart int
	line      int // 1-based script line
}

type redirect struct {
	op      string
	target  token
	heredoc *heredoc
}

var separators = map[string]bool{";": true, "&": true, "&&": true, "||": true, ";;": true, "(": true, ")": true, "|": true, "|&": true}

var keywords = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true, "done": true,
	"while": true, "until": true, "!": true, "{": true, "}": true, "time": true, "esac": true,
}

// splitCommands cuts a logical line into simple commands.
func splitCommands(ll logicalLine) []command {
	toks := lex(ll.text)
	var out []command
	cur := &command{}
	heredocIdx := 0
	var pipeFrom *command
	finish := func(op string) {
		if len(cur.words) > 0 || len(cur.redirects) > 0 {
			cur.pipedFrom = pipeFrom
			out = append(out, *cur)
			pipeFrom = nil
			if op == "|" || op == "|&" {
				pipeFrom = &out[len(out)-1]
			}
		}
		cur = &command{}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == tokOp && separators[t.text]:
			finish(t.text)
		case t.kind == tokOp:
			r := redirect{op: t.text}
			if i+1 < len(toks) && toks[i+1].kind == tokWord {
				r.target = toks[i+1]
				i++
			}
			if (t.text == "<<" || t.text == "<<-") && heredocIdx < len(ll.heredocs) {
				r.heredoc = &ll.heredocs[heredocIdx]
				heredocIdx++
			}
			cur.redirects = append(cur.redirects, r)
			cur.noteSpan(ll, t)
		case len(cur.words) == 0 && keywords[t.text] && !t.quoted:
		default:
			cur.words = append(cur.words, t)
			cur.noteSpan(ll, t)
		}
	}
	finish(";")
	return fixPipes(out)
}

// fixPipes re-points pipedFrom at the final slice elements.
func fixPipes(cmds []command) []command {
	for i := range cmds {
		if cmds[i].pipedFrom != nil && i > 0 {
			cmds[i].pipedFrom = &cmds[i-1]
		}
	}
	return cmds
}

// noteSpan extends the command's text and line to cover t.
func (c *command) noteSpan(ll logicalLine, t token) {
	if c.text == "" {
		c.line = ll.scriptLine(t.line)
		c.text = ll.text[t.start:t.end]
		c.textStart = t.start
		return
	}
	c.text = ll.text[c.textStart:t.end]
}

// shellAnalyzer accumulates what the commands of a script do.
type shellAnalyzer struct {
	sh Shell
}

var assignmentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\+?=`)

func isAssignment(t token) bool {
	return t.kind == tokWord && assignmentRE.MatchString(t.text) && !strings.HasPrefix(strings.TrimSpace(t.text), "=")
}

func (a *shellAnalyzer) command(cmd command) {
	a.noteIMDS(cmd)
	words := cmd.words
	onlyAssignments := true
	for _, w := range words {
		if !isAssignment(w) {
			onlyAssignments = false
			break
		}
	}
	if onlyAssignments {
		for _, w := range words {
			a.assign(w)
		}
		return
	}
	for len(words) > 0 && isAssignment(words[0]) {
		words = words[1:]
	}
	words = stripPrefixes(words)
	if len(words) == 0 {
		return
	}
	switch path.Base(words[0].text) {
	case "export", "declare", "local", "readonly", "typeset":
		for _, w := range words[1:] {
			if isAssignment(w) {
				a.assign(w)
			}
		}
	case "bootstrap.sh":
		a.bootstrap(cmd, words[1:])
	case "nodeadm":
		a.nodeadm(cmd, words[1:])
	case "cat":
		a.catWrite(cmd)
	case "tee":
		a.teeWrite(cmd, words[1:])
	case "echo", "printf":
		a.echoWrite(cmd, words[1:])
	}
}

// assign records NAME=value.
func (a *shellAnalyzer) assign(w token) {
	name, value, _ := strings.Cut(w.text, "=")
	if base, ok := strings.CutSuffix(name, "+"); ok {
		name, value = base, a.sh.Variables[base]+value
	}
	dynamic := strings.Contains(value, "$(") || strings.Contains(value, "`")
	if refersTo(value, name) {
		// NAME=$NAME:more uses the previous value; without one it is unknown.
		prev, known := a.sh.Variables[name]
		if !known || a.sh.dynamic[name] {
			dynamic = true
		}
		value = strings.NewReplacer("${"+name+"}", prev, "$"+name, prev).Replace(value)
	}
	a.sh.Variables[name] = value
	a.sh.dynamic[name] = dynamic
}

// refersTo reports whether value mentions the variable name.
func refersTo(value, name string) bool {
	for _, m := range varRefRE.FindAllStringSubmatch(value, -1) {
		if m[1] == name || m[2] == name {
			return true
		}
	}
	return false
}

// stripPrefixes drops wrappers that run the real command: sudo, exec,
// env, nohup, timeout, bash/sh running a script file.
func stripPrefixes(words []token) []token {
	for len(words) > 0 {
		switch path.Base(words[0].text) {
		case "sudo", "exec", "command", "nohup", "nice", "builtin":
			words = skipFlags(words[1:], map[string]bool{"-u": true, "-g": true, "-n": false})
		case "env":
			words = skipFlags(words[1:], nil)
			for len(words) > 0 && isAssignment(words[0]) {
				words = words[1:]
			}
		case "timeout":
			words = skipFlags(words[1:], map[string]bool{"-s": true, "-k": true})
			if len(words) > 0 {
				words = words[1:]
			}
		case "bash", "sh":
			rest := skipFlags(words[1:], map[string]bool{"-o": true})
			if len(rest) == 0 || path.Base(rest[0].text) != "bootstrap.sh" {
				return words
			}
			words = rest
		default:
			return words
		}
	}
	return words
}

// skipFlags drops leading -x options; withValue names options that take
// the next word as their value.
func skipFlags(words []token, withValue map[string]bool) []token {
	for len(words) > 0 && strings.HasPrefix(words[0].text, "-") && words[0].text != "-" {
		takes := withValue[words[0].text]
		words = words[1:]
		if takes && len(words) > 0 {
			words = words[1:]
		}
	}
	return words
}

var imdsMarkers = []string{"169.254.169.254", "fd00:ec2::254", "ec2-metadata", "/etc/eks/bin/imds", "imds "}

func (a *shellAnalyzer) noteIMDS(cmd command) {
	check := func(s string) {
		for _, m := range imdsMarkers {
			if strings.Contains(s, m) {
				a.sh.UsesIMDS = true
			}
		}
		if strings.Contains(s, "latest/api/token") {
			a.sh.UsesIMDSv2 = true
		}
	}
	for _, w := range cmd.words {
		check(w.text)
	}
	if len(cmd.words) > 0 && path.Base(cmd.words[0].text) == "imds" {
		a.sh.UsesIMDS = true
	}
}

// outputRedirect returns the file a command's stdout goes to.
func outputRedirect(cmd command) (target string, appendTo bool, ok bool) {
	for _, r := range cmd.redirects {
		switch r.op {
		case ">", ">|", "&>":
			target, appendTo, ok = r.target.text, false, r.target.text != ""
		case ">>", "&>>":
			target, appendTo, ok = r.target.text, true, r.target.text != ""
		}
	}
	return target, appendTo, ok
}

func inputHeredoc(cmd command) *heredoc {
	for _, r := range cmd.redirects {
		if r.heredoc != nil {
			return r.heredoc
		}
	}
	return nil
}

// catWrite handles "cat > path <<EOF" and "cat <<EOF > path".
func (a *shellAnalyzer) catWrite(cmd command) {
	h := inputHeredoc(cmd)
	target, appendTo, ok := outputRedirect(cmd)
	if h == nil || !ok {
		return
	}
	a.write(cmd, target, appendTo, h.body, h.bodyLine, !h.quoted)
}

// teeWrite handles "tee path <<EOF" and "cat <<EOF | tee path".
func (a *shellAnalyzer) teeWrite(cmd command, args []token) {
	h := inputHeredoc(cmd)
	if h == nil && cmd.pipedFrom != nil {
		h = inputHeredoc(*cmd.pipedFrom)
	}
	if h == nil {
		return
	}
	appendTo := false
	for _, w := range args {
		switch {
		case w.text == "-a" || w.text == "--append":
			appendTo = true
		case strings.HasPrefix(w.text, "-"):
		default:
			a.write(cmd, w.text, appendTo, h.body, h.bodyLine, !h.quoted)
		}
	}
}

// echoWrite handles "echo text > path" and "printf text > path".
func (a *shellAnalyzer) echoWrite(cmd command, args []token) {
	target, appendTo, ok := outputRedirect(cmd)
	if !ok {
		return
	}
	for len(args) > 0 && (args[0].text == "-n" || args[0].text == "-e" || args[0].text == "-ne" || args[0].text == "-en") {
		args = args[1:]
	}
	parts := make([]string, 0, len(args))
	expands := false
	for _, w := range args {
		parts = append(parts, w.text)
		expands = expands || !w.singleOnly
	}
	a.write(cmd, target, appendTo, []byte(strings.Join(parts, " ")+"\n"), 0, expands)
}

func (a *shellAnalyzer) write(cmd command, target string, appendTo bool, body []byte, bodyLine int, expands bool) {
	a.sh.WrittenFiles = append(a.sh.WrittenFiles, WrittenFile{
		Path: a.sh.Expand(target), Line: cmd.line, BodyLine: bodyLine,
		Content: body, Append: appendTo, Expands: expands,
	})
}

// finish derives what depends on the whole script.
func (a *shellAnalyzer) finish() {
	for i := range a.sh.WrittenFiles {
		a.nodeConfigFile(&a.sh.WrittenFiles[i])
	}
	if a.sh.Bootstrap != nil {
		a.mergeLabels(a.sh.Bootstrap.Labels, a.sh.Bootstrap.Line)
	}
	for _, f := range a.sh.WrittenFiles {
		if f.NodeConfig != nil {
			a.mergeLabels(f.NodeConfig.Labels(), f.Line)
		}
	}
	a.checkNodeadmSources()
}

// nodeConfigFile decodes a written file that holds a NodeConfig.
func (a *shellAnalyzer) nodeConfigFile(f *WrittenFile) {
	if !looksLikeNodeConfig(f.Content) {
		return
	}
	a.sh.NodeConfigFiles = append(a.sh.NodeConfigFiles, f.Path)
	content := string(f.Content)
	if f.Expands {
		content = a.sh.Expand(content)
	} else if m := varRefRE.FindString(content); m != "" {
		a.sh.Problems = append(a.sh.Problems, problem(CodeShellQuotedHeredocVars, SeverityError, f.Line,
			"the heredoc writing %s has a quoted delimiter, so %s is written literally and never expanded; nodeadm and kubelet get the text %q; unquote the delimiter (<<EOF) to let the shell expand it", f.Path, m, m))
	}
	nc, probs, _ := ParseNodeConfig([]byte(content))
	f.NodeConfig = nc
	a.sh.Problems = append(a.sh.Problems, shiftLines(probs, f.BodyLine)...)
}

// mergeLabels adds labels, expanding known variables and noting values
// that stay unknown until boot.
func (a *shellAnalyzer) mergeLabels(labels map[string]string, line int) {
	for _, k := range sortedKeys(labels) {
		v := a.sh.Expand(labels[k])
		a.sh.Labels[k] = v
		refs := varRefRE.FindAllString(v, -1)
		if len(refs) == 0 || slices.Contains(a.sh.UnexpandedLabels, k) {
			continue
		}
		a.sh.UnexpandedLabels = append(a.sh.UnexpandedLabels, k)
		a.sh.Problems = append(a.sh.Problems, problem(CodeShellLabelUnexpanded, SeverityInfo, line,
			"node label %s=%s is completed when the script runs (%s is only known on the instance); the value shown is the unexpanded text", k, v, strings.Join(refs, ", ")))
	}
	slices.Sort(a.sh.UnexpandedLabels)
}

// labelsFromKubeletArgs reads --node-labels out of a kubelet argument string.
func labelsFromKubeletArgs(args []string) map[string]string {
	out := map[string]string{}
	for _, v := range flagValues(args, "--node-labels") {
		maps.Copy(out, parseLabelList(v))
	}
	return out
}
