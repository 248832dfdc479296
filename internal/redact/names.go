package redact

import (
	"bytes"
	"regexp"
	"strings"
)

// valueMatcher builds a matcher whose expression has a group "value" (the
// candidate secret) and, when checkName is set, a group "name" that must
// pass sensitiveName.
func valueMatcher(expr string, keywords []string, checkName bool) matcher {
	re := regexp.MustCompile(expr)
	nameIdx := -1
	if checkName {
		nameIdx = re.SubexpIndex("name")
	}
	return matcher{re: re, keywords: keywords, refine: valueSpan(nameIdx, re.SubexpIndex("value"))}
}

// valueSpan returns a refineFunc that checks the name group (unless
// nameIdx is negative), strips quotes and trailing blanks from the value
// group, and rejects values that are not secrets: empty values,
// placeholders, variable references and file paths.
func valueSpan(nameIdx, valueIdx int) refineFunc {
	return func(text []byte, m []int) (int, int, bool) {
		if nameIdx >= 0 {
			start, end := m[2*nameIdx], m[2*nameIdx+1]
			if start < 0 || !sensitiveName(text[start:end]) {
				return 0, 0, false
			}
		}
		start, end := m[2*valueIdx], m[2*valueIdx+1]
		if start < 0 {
			return 0, 0, false
		}
		start, end = trimValue(text, start, end)
		if start >= end {
			return 0, 0, false
		}
		value := text[start:end]
		if isPlaceholder(value) || isPathLike(value) {
			return 0, 0, false
		}
		return start, end, true
	}
}

// trimValue narrows a value span to what is inside its quotes and drops
// trailing blanks.
func trimValue(text []byte, start, end int) (int, int) {
	for end > start && (text[end-1] == ' ' || text[end-1] == '\t' || text[end-1] == '\r') {
		end--
	}
	if end-start < 1 {
		return start, end
	}
	first, last := text[start], text[end-1]
	switch {
	case end-start >= 2 && (first == '"' || first == '\'') && last == first:
		return start + 1, end - 1
	case first == '"' || first == '\'':
		return start + 1, end // an unterminated quote: hide the rest
	case (last == '"' || last == '\'') && bytes.IndexByte(text[start:end-1], last) < 0:
		return start, end - 1 // a closing quote that belongs to the context
	}
	return start, end
}

var placeholders = map[string]bool{
	"true": true, "false": true, "null": true, "nil": true, "none": true, "~": true,
	"yes": true, "no": true, "on": true, "off": true, "[]": true, "{}": true,
	"redacted": true, "data+omitted": true, "omitted": true, "hidden": true,
}

// isPlaceholder reports values that carry no secret: booleans, null,
// masks like "****", references like $VAR, ${VAR}, $(cmd), {{ .tmpl }} and
// <placeholder>.
func isPlaceholder(v []byte) bool {
	if placeholders[strings.ToLower(string(v))] {
		return true
	}
	if len(bytes.Trim(v, "*")) == 0 {
		return true
	}
	s := string(v)
	switch {
	case strings.HasPrefix(s, "${") && strings.HasSuffix(s, "}") && !strings.ContainsAny(s[2:len(s)-1], "{} "):
		return true
	case strings.HasPrefix(s, "$(") && strings.HasSuffix(s, ")"):
		return true
	case strings.HasPrefix(s, "{{") && strings.HasSuffix(s, "}}"):
		return true
	case len(s) > 2 && s[0] == '<' && s[len(s)-1] == '>' && !strings.ContainsAny(s[1:len(s)-1], "<>"):
		return true
	case len(s) > 1 && s[0] == '$' && isShellName(s[1:]):
		return true
	}
	return false
}

func isShellName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// isPathLike reports an absolute (or home-relative) path made of lower-case
// letters, digits and ". _ - /". Such values for names like
// --tls-private-key-file or client-key are where a secret lives, not the
// secret. Secrets in base64 mix cases, so they do not pass.
func isPathLike(v []byte) bool {
	switch {
	case bytes.HasPrefix(v, []byte("/")):
	case bytes.HasPrefix(v, []byte("~/")):
		v = v[1:]
	default:
		return false
	}
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '/') {
			return false
		}
	}
	return true
}

// sensitiveName decides whether a key name (as in name=value, "name":
// value, --name value) announces a secret. The name is split into words
// (by separators and camelCase). It announces a secret when a word is a
// password, secret, token or credential word, "auth" (not "authority",
// "authorization", "authentication", "author"), or a qualified key such as
// api_key or tls.key, and the last word is not one that describes the
// secret instead of holding it (file, path, name, id, type, mode, ttl ...).
// A bare "key" is not sensitive: Kubernetes taints, selectors and klog
// structured logs use it for plain names.
func sensitiveName(name []byte) bool {
	if len(name) > 128 {
		return false
	}
	words := splitWords(name)
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	if describingWord[last] || endsWithDescribingWord(last) {
		return false
	}
	for i, w := range words {
		prev := ""
		if i > 0 {
			prev = words[i-1]
		}
		if isSecretWord(w, prev) {
			return true
		}
	}
	return false
}

// splitWords splits a name at non-alphanumeric bytes and camelCase
// boundaries and lower-cases the words: "AWS_SECRET_ACCESS_KEY" -> aws
// secret access key, "clientSecret" -> client secret, "SSHKeyName" -> ssh
// key name.
func splitWords(name []byte) []string {
	var words []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(string(name[start:end])))
		}
		start = -1
	}
	for i, c := range name {
		if !isASCIIAlnum(c) {
			flush(i)
			continue
		}
		if start >= 0 && isUpper(c) {
			prev := name[i-1]
			nextLower := i+1 < len(name) && isLower(name[i+1])
			if isLower(prev) || isDigit(prev) || (isUpper(prev) && nextLower) {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(name))
	return words
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// secretWords are substrings that make a word sensitive wherever they
// appear: "PGPASSWORD", "clientsecret", "authtoken".
var secretWords = []string{"password", "passwd", "passphrase", "passcode", "secret", "token", "credential", "apikey", "privatekey"}

// keyQualifiers turn "key" into a secret when they come right before it
// in a joined word (apikey, sshkey, tlskey). Separate words are judged the
// other way round, by plainKeyQualifiers.
var keyQualifiers = map[string]bool{
	"api": true, "access": true, "secret": true, "private": true, "priv": true, "encryption": true,
	"signing": true, "sign": true, "master": true, "license": true, "client": true, "server": true,
	"tls": true, "ssl": true, "ssh": true, "service": true, "account": true, "app": true,
	"consumer": true, "shared": true, "session": true, "hmac": true, "crypt": true, "encrypt": true,
	"decrypt": true, "storage": true, "subscription": true, "admin": true, "root": true, "user": true,
	"deploy": true, "auth": true, "webhook": true, "host": true, "jwt": true, "kms": true,
	"gpg": true, "pgp": true, "rsa": true, "ecdsa": true, "ed25519": true, "sas": true,
}

// plainKeyQualifiers make "<word> key" an ordinary identifier.
var plainKeyQualifiers = map[string]bool{
	"topology": true, "label": true, "labels": true, "cache": true, "partition": true, "sort": true,
	"primary": true, "foreign": true, "routing": true, "lookup": true, "map": true, "hash": true,
	"match": true, "group": true, "object": true, "s3": true, "index": true, "row": true,
	"column": true, "field": true, "metric": true, "dedup": true, "idempotency": true, "unique": true,
	"composite": true, "public": true, "pub": true, "annotation": true, "config": true, "env": true,
	"taint": true, "selector": true, "tag": true, "tags": true, "range": true, "authorized": true,
	"node": true, "sub": true, "json": true, "yaml": true, "registry": true, "kernel": true,
	// containerd and storage: a snapshot key names a layer (ctr containers
	// info prints "SnapshotKey"), an object or bucket key names an object.
	"snapshot": true, "layer": true, "content": true, "lease": true, "bucket": true, "shard": true,
}

// notPassWords end in "pass" without being passwords.
var notPassWords = map[string]bool{"bypass": true, "compass": true, "surpass": true, "overpass": true, "underpass": true, "trespass": true, "encompass": true}

func isSecretWord(w, prev string) bool {
	for _, s := range secretWords {
		if strings.Contains(w, s) {
			return true
		}
	}
	switch {
	case w == "pass" || w == "pwd" || w == "psk" || w == "auth" || w == "cred" || w == "creds":
		return true
	case strings.HasSuffix(w, "auth"): // oauth, basicauth, proxyauth
		return true
	case strings.HasSuffix(w, "pass") && !notPassWords[w]: // dbpass, rootpass
		return true
	case strings.HasSuffix(w, "pwd"): // mysqlpwd
		return true
	case w == "key" || w == "keys":
		return prev != "" && !plainKeyQualifiers[prev]
	case strings.HasSuffix(w, "key"):
		return keyQualifiers[strings.TrimSuffix(w, "key")]
	}
	return false
}

// describingWord lists last words of names whose values describe or point
// at a secret (a file, a name, an id, a lifetime, a mode) rather than hold
// it.
var describingWord = map[string]bool{
	"file": true, "files": true, "path": true, "paths": true, "dir": true, "directory": true, "folder": true,
	"usage": true, "usages": true, "id": true, "ids": true, "name": true, "names": true,
	"type": true, "types": true, "kind": true, "mode": true, "modes": true, "length": true, "len": true,
	"size": true, "bits": true, "ttl": true, "expiry": true, "expiration": true, "expires": true,
	"expire": true, "seconds": true, "timeout": true, "duration": true, "interval": true, "period": true,
	"age": true, "count": true, "version": true, "enabled": true, "disabled": true, "enable": true,
	"disable": true, "required": true, "optional": true, "policy": true, "policies": true,
	"method": true, "methods": true, "provider": true, "providers": true, "plugin": true,
	"algorithm": true, "algorithms": true, "alg": true, "format": true, "source": true, "ref": true,
	"refs": true, "reference": true, "selector": true, "webhook": true, "header": true, "field": true,
	"prefix": true, "suffix": true, "label": true, "labels": true, "class": true, "namespace": true,
	"config": true, "configuration": true, "endpoint": true, "url": true, "uri": true, "arn": true,
	"location": true, "rotation": true, "retries": true, "retry": true, "limit": true, "max": true,
	"min": true, "strategy": true, "level": true, "status": true, "state": true, "audience": true,
	"audiences": true, "issuer": true, "scope": true, "scopes": true, "generation": true,
	"template": true, "hint": true, "stdin": true, "pair": true, "store": true, "ring": true,
	"authentication": true, "request": true, "requests": true, "refresh": true,
}

// endsWithDescribingWord catches joined names such as "tokenfile" or
// "secretname" that camelCase splitting cannot separate.
func endsWithDescribingWord(w string) bool {
	for _, suffix := range []string{"file", "path", "name", "usage", "type", "mode", "expiration", "seconds", "timeout", "webhook", "config", "policy", "provider", "ref", "stdin", "dir"} {
		if len(w) > len(suffix) && strings.HasSuffix(w, suffix) {
			return true
		}
	}
	return false
}
