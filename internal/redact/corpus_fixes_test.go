package redact

import "testing"

// Secrets the end-to-end corpus (testdata/secrets) found surviving, each
// with a look-alike that must still pass.
func TestArgumentListSecrets(t *testing.T) {
	sk, pa := m(RuleAWSSecretKey), m(RulePasswordAssignment)
	runRuleCases(t, []ruleCase{
		{"python argv secret key", `Running command ['aws', 'configure', 'set', 'aws_secret_access_key', '` + fakeSecretKey + `'] with`,
			`Running command ['aws', 'configure', 'set', 'aws_secret_access_key', '` + sk + `'] with`, RuleAWSSecretKey},
		{"yaml flow secret key", "  - [aws, configure, set, aws_secret_access_key, " + fakeSecretKey + "]",
			"  - [aws, configure, set, aws_secret_access_key, " + sk + "]", RuleAWSSecretKey},
		{"json array session token", `["aws", "configure", "set", "aws_session_token", "` + fakeSessionToken + `"]`,
			`["aws", "configure", "set", "aws_session_token", "` + m(RuleAWSSessionToken) + `"]`, RuleAWSSessionToken},
		{"python argv password flag", `['docker', 'login', '--username', 'ci', '--password', 'Zq9vX2mK4pL7', 'reg.example.com']`,
			`['docker', 'login', '--username', 'ci', '--password', '` + pa + `', 'reg.example.com']`, RulePasswordAssignment},
		{"yaml flow password flag", "  - [docker, login, --password, Zq9vX2mK4pL7, reg.example.com]",
			"  - [docker, login, --password, " + pa + ", reg.example.com]", RulePasswordAssignment},
		{"argv token flag last", `['agent', '--token', "Zq9vX2mK4pL7"]`, `['agent', '--token', "` + pa + `"]`, RulePasswordAssignment},
		// Look-alikes.
		{"argv flag without value", `['docker', 'login', '--password-stdin', 'reg.example.com']`, "", ""},
		{"argv next flag", `['kubelet', '--token-file', '/var/lib/t', '--v', '2']`, "", ""},
		{"prose session token", "invalid session_token, retrying\n", "", ""},
	})
}

// Found by FuzzRedact: an empty assignment before a flag took the flag as
// its value and shielded the flag's own value.
func TestEmptyAssignmentBeforeFlag(t *testing.T) {
	pa := m(RulePasswordAssignment)
	runRuleCases(t, []ruleCase{
		{"empty then flag", "x DB_PASS= --password Zq9vX2mK4pL7\n", "x DB_PASS= --password " + pa + "\n", RulePasswordAssignment},
		{"value starting with a dash", "x DB_PASS=-Zq9vX2mK4pL7\n", "x DB_PASS=" + pa + "\n", RulePasswordAssignment},
	})
}

func TestEscapedQuotedAssignment(t *testing.T) {
	pa := m(RulePasswordAssignment)
	runRuleCases(t, []ruleCase{
		{"toml in json", `{"config":"[auth]\n  username = \"ci\"\n  password = \"Zq9vX2mK4pL7\"\n"}`,
			`{"config":"[auth]\n  username = \"ci\"\n  password = \"` + pa + `\"\n"}`, RulePasswordAssignment},
		{"toml in json unterminated", `{"config":"password = \"Zq9vX2mK4pL7`, `{"config":"password = \"` + pa, RulePasswordAssignment},
		{"escaped reference kept", `{"config":"password = \"${REG_PASSWORD}\"\n"}`, "", ""},
	})
}

func TestEnvPairs(t *testing.T) {
	pa := m(RulePasswordAssignment)
	runRuleCases(t, []ruleCase{
		{"kubeconfig exec env",
			"        env:\n          - name: AWS_SECRET_ACCESS_KEY\n            value: " + fakeSecretKey + "\n          - name: AWS_SESSION_TOKEN\n            value: \"" + fakeSessionToken + "\"\r\n",
			"        env:\n          - name: AWS_SECRET_ACCESS_KEY\n            value: " + pa + "\n          - name: AWS_SESSION_TOKEN\n            value: \"" + pa + "\"\r\n",
			RulePasswordAssignment},
		{"pod env quoted name", "- name: 'DB_PASSWORD'\n  value: Zq9vX2mK4pL7\n", "- name: 'DB_PASSWORD'\n  value: " + pa + "\n", RulePasswordAssignment},
		// Look-alikes: names that hold no secret, values elsewhere.
		{"plain env", "- name: AWS_REGION\n  value: eu-central-1\n- name: AWS_ACCESS_KEY_ID_FILE\n  value: x\n", "", ""},
		{"value from secret ref", "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: db, key: pw}\n", "", ""},
		{"other column", "- name: DB_PASSWORD\nvalue: not-the-pair\n", "", ""},
		{"not the next line", "- name: DB_PASSWORD\n  image: x\n  value: kept\n", "", ""},
		{"token file path", "- name: AWS_WEB_IDENTITY_TOKEN\n  value: /var/run/secrets/eks.amazonaws.com/serviceaccount/token\n", "", ""},
	})
}

func TestEnvPairsIdempotentAndStreamed(t *testing.T) {
	r := New(DefaultRules())
	in := "env:\n  - name: API_TOKEN\n    value: Zq9vX2mK4pL7\n"
	if _, counts := redactIdempotentAndStreamed(t, r, in); counts[RulePasswordAssignment] != 1 {
		t.Fatalf("counts %v", counts)
	}
	// Without the password-assignment rule, nothing happens.
	if got, _ := New([]Rule{DefaultRules()[0]}).Bytes([]byte(in)); string(got) != in {
		t.Fatalf("env pair redacted without its rule: %q", got)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// redactIdempotentAndStreamed redacts in and checks that a second pass
// changes nothing and that the same text written a byte at a time (so
// that a name/value pair is split over many writes) comes out the same.
func redactIdempotentAndStreamed(t *testing.T, r *Redactor, in string) (string, map[string]int) {
	t.Helper()
	once, counts := r.Bytes([]byte(in))
	twice, again := r.Bytes(once)
	if string(twice) != string(once) || len(again) != 0 {
		t.Fatalf("second pass changed %q to %q (%v)", once, twice, again)
	}
	var out []byte
	w := r.NewWriter(writerFunc(func(p []byte) (int, error) { out = append(out, p...); return len(p), nil }))
	for i := range len(in) {
		if _, err := w.Write([]byte{in[i]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if string(out) != string(once) {
		t.Fatalf("streamed %q, want %q", out, once)
	}
	return string(once), counts
}
