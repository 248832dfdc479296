package redact

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"sync"
)

// DefaultRules returns the built-in rules in the order they are applied.
// Earlier rules win the count when two would match the same text. The
// package documentation lists what each rule covers and what it leaves
// alone on purpose.
func DefaultRules() []Rule {
	return slicesCloneRules(defaultRules())
}

var defaultRules = sync.OnceValue(buildDefaultRules)

func slicesCloneRules(rules []Rule) []Rule {
	out := make([]Rule, len(rules))
	copy(out, rules)
	return out
}

// Names of the default rules.
const (
	RulePrivateKey           = "private-key"
	RuleAWSAccessKeyID       = "aws-access-key-id"
	RuleAWSSecretKey         = "aws-secret-key"
	RuleAWSSessionToken      = "aws-session-token"
	RuleAWSSignature         = "aws-signature"
	RuleKubeconfigCredential = "kubeconfig-credential"
	RuleDockerAuth           = "docker-auth"
	RuleAuthorizationHeader  = "authorization-header"
	RuleBearerToken          = "bearer-token"
	RuleEKSToken             = "eks-token"
	RuleJWT                  = "jwt"
	RuleURLCredentials       = "url-credentials"
	RuleGitHubToken          = "github-token"
	RuleGitLabToken          = "gitlab-token"
	RuleSlackToken           = "slack-token"
	RuleBootstrapToken       = "bootstrap-token"
	RuleCLIPassword          = "cli-password"
	RulePasswordAssignment   = "password-assignment"
)

// Pieces of expressions shared by several rules.
const (
	// A double-quoted string with backslash escapes, quotes included.
	dqString = `"(?:[^"\\\n]|\\.)*"`
	// A single-quoted string, quotes included.
	sqString = `'[^'\n]*'`
	// Where a YAML-like "name: value" may start: the line start (after
	// indentation or a list dash), after a syslog prefix "prog[pid]: ",
	// or after an escaped newline inside a quoted string.
	yamlKeyStart = `(?:^[ \t]*(?:-[ \t]+)?|\]:[ \t]+|\\n[ \t]*(?:-[ \t]+)?)`
)

var sensitiveKeywords = []string{"pass", "pwd", "secret", "token", "key", "cred", "auth", "psk"}

func buildDefaultRules() []Rule {
	return []Rule{
		privateKeyRule(),
		{Name: RuleAWSAccessKeyID, matchers: []matcher{{
			// AKIA: long-term access key; ASIA: temporary (STS); ABIA: STS
			// service bearer; ACCA: context-specific. AROA/AIDA/ANPA... are
			// unique ids of roles, users and policies, not credentials.
			re:       regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`),
			keywords: []string{"akia", "asia", "abia", "acca"},
		}}},
		{Name: RuleAWSSecretKey, matchers: []matcher{{
			re:       regexp.MustCompile(`(?i)(?:aws[_-]?)?secret[_-]?access[_-]?key\\?["']?(?:[ \t]*(?:[:=]|=>|,)[ \t]*|[ \t]+)\\?["']?(?P<secret>[a-z0-9/+=]{40})(?:[^a-z0-9/+=]|$)`),
			group:    1,
			keywords: []string{"secret_access_key", "secretaccesskey", "secret-access-key"},
		}}},
		{Name: RuleAWSSessionToken, matchers: []matcher{
			{
				re:       regexp.MustCompile(`(?i)(?:aws[_-]?)?session[_-]?token\\?["']?(?:[ \t]*(?:[:=]|=>|,)[ \t]*|[ \t]+)\\?["']?(?P<secret>[a-z0-9/+=%]{16,})`),
				group:    1,
				keywords: []string{"session_token", "sessiontoken", "session-token"},
			},
			{
				// The credential document served by IMDS and STS.
				re:       regexp.MustCompile(`\\?"Token\\?"[ \t]*:[ \t]*\\?"(?P<secret>[A-Za-z0-9/+=]{16,})`),
				group:    1,
				keywords: []string{`"token"`, `token\"`},
			},
			{
				re:       regexp.MustCompile(`(?i)x-amz-security-token\\?["']?[ \t]*[:=][ \t]*\\?["']?(?P<secret>[a-z0-9/+=%]{16,})`),
				group:    1,
				keywords: []string{"x-amz-security-token"},
			},
		}},
		{Name: RuleAWSSignature, matchers: []matcher{{
			// The signature makes a presigned URL usable until it expires.
			re:       regexp.MustCompile(`(?i)x-amz-signature=(?P<secret>[0-9a-f]{64})`),
			group:    1,
			keywords: []string{"x-amz-signature"},
		}}},
		kubeconfigRule(),
		{Name: RuleDockerAuth, matchers: []matcher{
			valueMatcher(`\\?"(?P<name>auth|identitytoken|registrytoken)\\?"[ \t]*:[ \t]*\\?"(?P<value>[^"\\]+)`,
				[]string{`auth"`, `auth\"`, "identitytoken", "registrytoken"}, false),
		}},
		authorizationRule(),
		{Name: RuleBearerToken, matchers: []matcher{{
			re:       regexp.MustCompile(`(?i)\bbearer[ \t]+(?P<secret>[a-z0-9._~+/=-]{16,})`),
			group:    1,
			keywords: []string{"bearer"},
		}}},
		{Name: RuleEKSToken, matchers: []matcher{{
			// aws-iam-authenticator / "aws eks get-token": a presigned STS
			// call, valid for 15 minutes.
			re:       regexp.MustCompile(`k8s-aws-v1\.[A-Za-z0-9_-]{20,}`),
			keywords: []string{"k8s-aws-v1."},
		}}},
		{Name: RuleJWT, matchers: []matcher{{
			re:       regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+){0,2}`),
			keywords: []string{"eyj"},
		}}},
		{Name: RuleURLCredentials, matchers: []matcher{{
			// Only the password goes; scheme, user and host stay.
			re:       regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]{0,30}://[^\s:/?#@"'<>\[\]]*:(?P<secret>[^\s/?#"'<>]+)@`),
			group:    1,
			gate:     urlCredentialsGate,
			gateMask: 1,
		}}},
		{Name: RuleGitHubToken, matchers: []matcher{
			{
				re:       regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{30,}\b`),
				keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
			},
			{
				re:       regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{30,}\b`),
				keywords: []string{"github_pat_"},
			},
		}},
		{Name: RuleGitLabToken, matchers: []matcher{{
			re:       regexp.MustCompile(`\bgl(?:pat|dt|rt|ptt|ft|cbt|oas|soat)-[A-Za-z0-9_-]{20,}`),
			keywords: []string{"glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glcbt-", "gloas-", "glsoat-"},
		}}},
		{Name: RuleSlackToken, matchers: []matcher{{
			re:       regexp.MustCompile(`\bxox[baprse]-[A-Za-z0-9-]{10,}`),
			keywords: []string{"xox"},
		}}},
		{Name: RuleBootstrapToken, matchers: []matcher{{
			// kubeadm-style "<id>.<secret>"; there is no literal to look
			// for, so a small scan for the shape gates the expression.
			re:       regexp.MustCompile(`\b[a-z0-9]{6}\.[a-z0-9]{16}\b`),
			gate:     bootstrapTokenGate,
			gateMask: 1,
		}}},
		{Name: RuleCLIPassword, matchers: []matcher{{
			// user:password after -u/--user (curl, ctr pull), -p after
			// "login" (cliflags.go).
			find:     findCLIPasswords,
			group:    1,
			keywords: []string{"-u", "login"},
		}}},
		passwordAssignmentRule(),
	}
}

func privateKeyRule() Rule {
	return Rule{Name: RulePrivateKey, keyBlock: true, matchers: []matcher{
		{
			// A whole block on one line, e.g. inside a JSON string with
			// "\n" escapes. Blocks over several lines are handled by the
			// stream (see redactStream).
			re:       regexp.MustCompile(`-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----`),
			keywords: []string{"private key"},
		},
		{
			// A PEM block in base64 (kubeconfig client-key-data, Secret
			// data): "LS0tLS1CRUdJTi" is "-----BEGIN". Decoding the head
			// tells a key from a certificate, which must stay.
			re:       regexp.MustCompile(`LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2}`),
			keywords: []string{"ls0tls1crudjti"},
			refine:   base64PrivateKeySpan,
		},
	}}
}

func base64PrivateKeySpan(text []byte, m []int) (int, int, bool) {
	head := text[m[0]:m[1]]
	head = head[:min(len(head), 96)/4*4]
	decoded := make([]byte, base64.StdEncoding.DecodedLen(len(head)))
	n, err := base64.StdEncoding.Decode(decoded, head)
	if err != nil && n == 0 {
		return 0, 0, false
	}
	return m[0], m[1], bytes.Contains(decoded[:n], []byte("PRIVATE KEY"))
}

func kubeconfigRule() Rule {
	const names = `(?P<name>token|client-key-data|client-certificate-data|id-token|refresh-token|access-token)`
	return Rule{Name: RuleKubeconfigCredential, matchers: []matcher{
		gated(valueMatcher(yamlKeyStart+names+`[ \t]*:[ \t]+(?P<value>`+dqString+`|`+sqString+`|[^\s"'#|>{\[&*!\\][^\s"'\\]*)`, nil, false),
			kubeconfigGate, formYAML),
		gated(valueMatcher(`\\?"`+names+`\\?"[ \t]*:[ \t]*\\?"(?P<value>[^"\\]+)`, nil, false),
			kubeconfigGate, formQuoted),
	}}
}

func authorizationRule() Rule {
	const head = `(?i)\b(?:proxy-)?authorization\\?["']?[ \t]*[:=][ \t]*\[?\\?["']?`
	return Rule{Name: RuleAuthorizationHeader, matchers: []matcher{
		// The scheme stays (it tells Basic from Bearer); the rest of the
		// header value goes.
		valueMatcher(head+`(?:bearer|basic|token|digest|negotiate|ntlm|aws4-hmac-sha256|apikey|sso-key)[ \t]+(?P<value>[^\s"'\]\\][^"'\r\n\]\\]*)`,
			[]string{"authorization"}, false),
		{
			// A bare token; "AWS4-HMAC-SHA256 Credential=..." is a scheme
			// followed by more, which the first expression handles.
			re:       regexp.MustCompile(head + `(?P<secret>[a-z0-9._~+/=-]{16,})(?:[^ \ta-z0-9._~+/=-]|$)`),
			group:    1,
			keywords: []string{"authorization"},
		},
	}}
}

func gated(m matcher, g *gate, mask uint64) matcher {
	m.gate, m.gateMask = g, mask
	return m
}

func passwordAssignmentRule() Rule {
	return Rule{Name: RulePasswordAssignment, envPairs: true, matchers: []matcher{
		{
			find:     findAssignments,
			group:    1,
			gate:     sensitiveAssignmentGate,
			gateMask: ^uint64(0),
		},
		{
			// {"name":"DB_PASSWORD","value":"..."} on one line (envpairs.go).
			find:     findJSONEnvPairs,
			group:    1,
			keywords: []string{`"value"`, `value\"`},
		},
		{
			// kubelet's EnvVar{Name:DB_PASSWORD,Value:...} (envpairs.go).
			find:     findGoEnvVars,
			group:    1,
			keywords: []string{"envvar{name:"},
		},
	}}
}

// urlCredentialsGate passes text with "://" followed later by '@'.
var urlCredentialsGate = &gate{name: "url-with-at", keywords: []string{"://"}, check: func(text, _ []byte) uint64 {
	i := bytes.Index(text, []byte("://"))
	return boolBit(i >= 0 && bytes.IndexByte(text[i:], '@') >= 0)
}}

func boolBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

var bootstrapTokenGate = &gate{name: "bootstrap-token-shape", check: func(text, _ []byte) uint64 {
	return boolBit(hasBootstrapTokenShape(text))
}}

// hasBootstrapTokenShape reports whether text has six lower-case letters or
// digits, a dot, and sixteen more.
func hasBootstrapTokenShape(text []byte) bool {
	for off := 0; ; {
		i := bytes.IndexByte(text[off:], '.')
		if i < 0 {
			return false
		}
		dot := off + i
		if dot >= 6 && dot+16 < len(text) && allTokenChars(text[dot-6:dot]) && allTokenChars(text[dot+1:dot+17]) {
			return true
		}
		off = dot + 1
	}
}

func allTokenChars(b []byte) bool {
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
