package redact

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plantedSecrets are inserted into fuzzed text; core must never survive.
var plantedSecrets = []struct{ text, core string }{
	{fakeAccessKeyID, fakeAccessKeyID},
	{fakeTempKeyID, fakeTempKeyID},
	{"aws_secret_access_key = " + fakeSecretKey, fakeSecretKey},
	{`"SecretAccessKey": "` + fakeSecretKey + `"`, fakeSecretKey},
	{"AWS_SESSION_TOKEN=" + fakeSessionToken, fakeSessionToken},
	{"-----BEGIN RSA PRIVATE KEY-----\n" + fakeRSAKeyBody + "\n-----END RSA PRIVATE KEY-----", fakeRSAKeyBody},
	{"-----BEGIN OPENSSH PRIVATE KEY-----\\n" + fakeRSAKeyBody + "\\n-----END OPENSSH PRIVATE KEY-----", fakeRSAKeyBody},
	{fakeB64Key, fakeB64Key[20:80]},
	{fakeJWT, fakeJWT},
	{fakeBootstrap, fakeBootstrap},
	{fakeGitHub, fakeGitHub},
	{fakeGitLab, fakeGitLab},
	{fakeSlack, fakeSlack},
	{fakeEKSToken, fakeEKSToken},
	{"Authorization: Basic dXNlcjpzM2NyM3RwYXNzd29yZA==", "dXNlcjpzM2NyM3RwYXNzd29yZA=="},
	{"--password Zq9vX2mK4pL7", "Zq9vX2mK4pL7"},
	{"DB_PASSWORD=Zq9vX2mK4pL8", "Zq9vX2mK4pL8"},
	{`{"client_secret": "Zq9vX2mK4pL9"}`, "Zq9vX2mK4pL9"},
	{"https://admin:Zq9vX2mK4pLa@registry.example.com/v2", "Zq9vX2mK4pLa"},
	{`{"auth": "` + fakeDockerAuth + `"}`, fakeDockerAuth},
	{`{"name":"DB_PASSWORD","value":"Zq9vX2mK4pLb"}`, "Zq9vX2mK4pLb"},
	{`{"value": "Zq9vX2mK4pLc", "name": "API_TOKEN"}`, "Zq9vX2mK4pLc"},
	{`"Env": ["LOG_LEVEL=debug", "DB_PASSWORD=x Zq9vX2mK4pLd"]`, "Zq9vX2mK4pLd"},
	{"ctr -n k8s.io images pull --user AWS:" + fakeECRPassword + " img", fakeECRPassword[16:64]},
	{"curl -u admin:Zq9vX2mK4pLe https://x", "Zq9vX2mK4pLe"},
	{"docker login -u AWS -p Zq9vX2mK4pLf reg", "Zq9vX2mK4pLf"},
	{"crictl pull --creds AWS:Zq9vX2mK4pLg img", "Zq9vX2mK4pLg"},
	{"Env:[]EnvVar{EnvVar{Name:DB_PASSWORD,Value:x Zq9vX2mK4pLh,ValueFrom:nil,},}", "Zq9vX2mK4pLh"},
}

func FuzzRedact(f *testing.F) {
	f.Add([]byte("plain log line\n"), uint16(0), uint8(0))
	f.Add([]byte(streamDoc), uint16(40), uint8(5))
	f.Add([]byte("password: \"abc\\\"\npassword=x\n-----BEGIN PRIVATE KEY-----\n"), uint16(12), uint8(2))
	f.Add([]byte("[REDACTED:jwt][REDACTED:private-key]x"), uint16(3), uint8(8))
	f.Add([]byte("\xff\xfe\x00 token: \xc3\x28"), uint16(5), uint8(15))
	clean, err := os.ReadFile("testdata/clean-node-logs.txt")
	if err == nil {
		f.Add(clean, uint16(1000), uint8(3))
	}
	r := New(DefaultRules())
	f.Fuzz(func(t *testing.T, data []byte, pos uint16, which uint8) {
		once, _ := r.Bytes(data)
		twice, counts := r.Bytes(once)
		if !bytes.Equal(once, twice) {
			t.Fatalf("not idempotent (%v):\n%q\n%q", counts, once, twice)
		}

		planted := plantedSecrets[int(which)%len(plantedSecrets)]
		if bytes.Contains(data, []byte(planted.core)) {
			return // the input already holds it, maybe in an unredactable spot
		}
		at := int(pos) % (len(data) + 1)
		in := make([]byte, 0, len(data)+len(planted.text)+2)
		in = append(in, data[:at]...)
		in = append(in, ' ')
		in = append(in, planted.text...)
		in = append(in, '\n')
		in = append(in, data[at:]...)
		out, _ := r.Bytes(in)
		if bytes.Contains(out, []byte(planted.core)) {
			t.Fatalf("planted secret survived:\nin:  %q\nout: %q", in, out)
		}
	})
}

func FuzzLoadRules(f *testing.F) {
	f.Add([]byte("# comment\n\nticket: TKT-[0-9]+\nsecret-part: pw=(?P<secret>\\S+)\n"))
	f.Add([]byte("bad line without colon\n"))
	f.Add([]byte("x: (unclosed\n"))
	f.Add([]byte("\ufeffname: a*\n"))
	f.Add([]byte("na me: x\n-bad: y\n"))
	f.Add([]byte(strings.Repeat("r: [a-z]{2,}\n", 50)))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "rules.txt")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		rules, err := LoadRules(path)
		if err != nil {
			if !errors.Is(err, ErrInvalidRule) {
				t.Fatalf("error does not match ErrInvalidRule: %v", err)
			}
			if !strings.HasPrefix(err.Error(), path+":") {
				t.Fatalf("error does not name the file and line: %v", err)
			}
			return
		}
		for _, rule := range rules {
			if checkRuleName(rule.Name) != nil || len(rule.matchers) != 1 {
				t.Fatalf("accepted a bad rule %q", rule.Name)
			}
		}
		// The rules must run on any text, including their own file.
		out, _ := New(rules).Bytes(data)
		if len(rules) == 0 && !bytes.Equal(out, data) {
			t.Fatalf("no rules but text changed")
		}
	})
}

func FuzzPseudonymize(f *testing.F) {
	f.Add([]byte("ip-10-0-1-2.ec2.internal 10.0.1.2 i-0123456789abcdef0 arn:aws:iam::123456789012:role/x\n"), uint16(3))
	f.Add([]byte("fe80::1%eth0 ::ffff:1.2.3.4 [2001:db8::1]:443 10.0.0.0/8 255.255.255.0"), uint16(0))
	f.Add([]byte("1.2.3.4.5 999.999.999.999 ip-1-2-3 ::::"), uint16(9))
	const planted = "10.123.45.67"
	f.Fuzz(func(t *testing.T, data []byte, pos uint16) {
		p := NewPseudonymizer()
		out, _ := p.Bytes(data)
		if bytes.Count(out, []byte("\n")) != bytes.Count(data, []byte("\n")) {
			t.Fatalf("line count changed: %q -> %q", data, out)
		}
		if bytes.Contains(data, []byte(planted)) || bytes.Contains(data, []byte("10-123-45-67")) {
			return
		}
		at := int(pos) % (len(data) + 1)
		in := append(append(append([]byte{}, data[:at]...), " "+planted+" "...), data[at:]...)
		out, _ = p.Bytes(in)
		if bytes.Contains(out, []byte(planted)) {
			t.Fatalf("planted address survived: %q -> %q", in, out)
		}
	})
}
