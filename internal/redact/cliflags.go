package redact

import "bytes"

// Passwords that command lines carry under flags whose names announce no
// secret, so password-assignment cannot see them:
//
//	ctr -n k8s.io images pull --user AWS:<password> <image>
//	curl -u user:<password> https://...        curl --proxy-user user:<password>
//	docker login -u AWS -p <password> <registry>
//
// The same short flags mean something else in most programs: docker, ctr
// and nerdctl run take -u/--user uid[:gid] or user[:group], sudo takes -u
// user, ssh and docker run take -p port. So the rule is precise rather than
// eager:
//
//   - -u/--user and -U/--proxy-user: only a "user:password" value counts,
//     and only the password goes (the user stays: "AWS" tells the reader
//     it was an ECR token). The password goes when it is shaped like a
//     generated token (see tokenShaped: 20 bytes or more of base64 or
//     URL-safe characters mixing upper case, lower case and digits, which
//     an ECR password always is and a group name never is), or when the
//     flag belongs to a command known to take user:password there: curl,
//     or ctr pulling, pushing or fetching. Two numbers (1000:1000) are a
//     uid and gid and always stay, as does a bare user (--user root).
//   - -p: only after a "login" word in the same command (docker, nerdctl,
//     podman, helm registry, oras ... login).
//   - Unexpanded references ($VAR, $(aws ecr get-login-password ...),
//     `cmd`) are not secrets and stay.
//
// The command a flag belongs to is the words before it back to the last
// '|', ';', '&&', '(' or line start, read once per text in a forward scan.
// Attached short forms (-uuser:pw, -ppassword) are not handled: they are
// too close to ordinary option clusters.
//
// --creds, --src-creds and --dest-creds (crictl, podman, skopeo) and
// --password are named like secrets; password-assignment handles them and
// keeps the user part of a user:password value (see credsPassword).

// findCLIPasswords is the finder of the cli-password rule. Each result holds
// the match span and, as group 1, the password span.
func findCLIPasswords(text []byte) [][]int {
	var locs [][]int
	var cmd cmdContext
	for off := 0; off < len(text); {
		i := bytes.IndexByte(text[off:], '-')
		if i < 0 {
			break
		}
		fs := off + i
		kind, fe := cliFlagAt(text, fs)
		off = fe
		if kind == flagNone {
			continue
		}
		loc, ok := parseAssignment(text, fs, fe)
		if !ok || loc[2] < fe {
			continue
		}
		cmd.advance(text, fs)
		vs, ve := loc[2], loc[3]
		switch kind {
		case flagLoginPassword:
			if !cmd.login || isReference(text[vs:ve]) {
				continue
			}
		default:
			ps, ok := userPassword(text[vs:ve], kind, &cmd)
			if !ok {
				continue
			}
			vs += ps
		}
		locs = append(locs, []int{loc[0], loc[1], vs, ve})
		off = max(off, loc[1])
	}
	return locs
}

// Flags findCLIPasswords looks at.
const (
	flagNone          = iota
	flagUser          // -u, --user
	flagProxyUser     // -U, --proxy-user (curl)
	flagLoginPassword // -p
)

// cliFlagAt tells which flag, if any, starts at text[fs] ('-'), and
// returns where its name ends (or fs+1).
func cliFlagAt(text []byte, fs int) (kind, fe int) {
	if fs > 0 && bytes.IndexByte([]byte(" \t\"'[,("), text[fs-1]) < 0 {
		return flagNone, fs + 1
	}
	if fs+2 < len(text) && text[fs+1] == '-' {
		e := fs + 2
		for e < len(text) && (isASCIIAlnum(text[e]) || text[e] == '-') {
			e++
		}
		switch string(text[fs+2 : e]) {
		case "user":
			return flagUser, e
		case "proxy-user":
			return flagProxyUser, e
		}
		return flagNone, e
	}
	if fs+2 > len(text) || fs+2 < len(text) && isNameByte(text[fs+2]) {
		return flagNone, fs + 1
	}
	switch text[fs+1] {
	case 'u':
		return flagUser, fs + 2
	case 'U':
		return flagProxyUser, fs + 2
	case 'p':
		return flagLoginPassword, fs + 2
	}
	return flagNone, fs + 1
}

// userPassword returns where the password starts in a "user:password"
// value of a user flag, when it is to be redacted (see the rules above).
func userPassword(v []byte, kind int, cmd *cmdContext) (int, bool) {
	colon, ok := userPasswordColon(v)
	if !ok {
		return 0, false
	}
	user, pw := v[:colon], v[colon+1:]
	if len(user) > 0 && allDigits(user) && allDigits(pw) {
		return 0, false // uid:gid
	}
	if isReference(pw) {
		return 0, false
	}
	if tokenShaped(pw) || cmd.curl || kind == flagUser && cmd.ctr && cmd.transfer {
		return colon + 1, true
	}
	return 0, false
}

// userPasswordColon returns where the colon of a "user:password" value is:
// a user of at most 128 bytes without '/' (not a path or a URL), and a
// non-empty password after it.
func userPasswordColon(v []byte) (int, bool) {
	colon := bytes.IndexByte(v, ':')
	if colon < 0 || colon > 128 || colon+1 >= len(v) || bytes.IndexByte(v[:colon], '/') >= 0 {
		return 0, false
	}
	return colon, true
}

// isReference reports a value that names a secret kept elsewhere instead
// of holding it: $VAR, ${VAR}, $(command ...) cut at its first blank, and
// `command`.
func isReference(v []byte) bool {
	return isPlaceholder(v) || bytes.HasPrefix(v, []byte("$(")) || bytes.HasPrefix(v, []byte("${")) || bytes.HasPrefix(v, []byte("`"))
}

// tokenShaped reports a generated credential: at least 20 bytes of the
// base64 and URL-safe alphabets with upper case, lower case and digits.
// ECR passwords (base64 of a JSON document, about 2 KB) always are; user
// and group names, uids and gids never are.
func tokenShaped(v []byte) bool {
	if len(v) < 20 {
		return false
	}
	var upper, lower, digit bool
	for _, c := range v {
		switch {
		case isUpper(c):
			upper = true
		case isLower(c):
			lower = true
		case isDigit(c):
			digit = true
		case bytes.IndexByte([]byte("+/=_-.~"), c) < 0:
			return false
		}
	}
	return upper && lower && digit
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return len(b) > 0
}

// cmdContext follows, in a forward scan of a text, which command the next
// flag belongs to: the words since the last command separator.
type cmdContext struct {
	pos             int // text before pos has been read
	curl, ctr       bool
	transfer, login bool
}

// advance reads text up to to (a flag's start).
func (c *cmdContext) advance(text []byte, to int) {
	for c.pos < to {
		b := text[c.pos]
		switch {
		case b == ';' || b == '(' || b == '`' || b == '\r' || b == '\n',
			(b == '|' || b == '&') && c.pos+1 < len(text) && (text[c.pos+1] == b || text[c.pos+1] == ' '):
			*c = cmdContext{pos: c.pos + 1}
		case b == '\\' && c.pos+1 < len(text) && text[c.pos+1] == 'n': // an escaped newline
			*c = cmdContext{pos: c.pos + 2}
		case isWordByte(b):
			e := c.pos + 1
			for e < len(text) && isWordByte(text[e]) {
				e++
			}
			c.word(text[c.pos:e])
			c.pos = e
		default:
			c.pos++
		}
	}
}

// word records what one word of the command says.
func (c *cmdContext) word(w []byte) {
	if i := bytes.LastIndexByte(w, '/'); i >= 0 {
		w = w[i+1:] // a program's path
	}
	switch string(w) {
	case "curl":
		c.curl = true
	case "ctr":
		c.ctr = true
	case "pull", "push", "fetch":
		c.transfer = c.ctr
	case "login":
		c.login = true
	}
}

// isWordByte tells the bytes of a command word: names, paths, and
// user@host (so "ssh login@host -p 22" holds no "login" word).
func isWordByte(c byte) bool {
	return isNameByte(c) || c == '/' || c == '@'
}
