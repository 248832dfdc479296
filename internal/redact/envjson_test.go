package redact

import (
	"strings"
	"testing"
	"time"
)

func TestJSONEnvPairs(t *testing.T) {
	pa := m(RulePasswordAssignment)
	runRuleCases(t, []ruleCase{
		// One JSON object on one line.
		{"compact", `{"name":"AWS_SECRET_ACCESS_KEY","value":"` + fakeSecretKey + `"}`,
			`{"name":"AWS_SECRET_ACCESS_KEY","value":"` + pa + `"}`, RulePasswordAssignment},
		{"env list keeps plain entries", `"env":[{"name":"DB_PASSWORD","value":"hunter2x"},{"name":"LOG_LEVEL","value":"debug"}]`,
			`"env":[{"name":"DB_PASSWORD","value":"` + pa + `"},{"name":"LOG_LEVEL","value":"debug"}]`, RulePasswordAssignment},
		{"spaces after colons and commas", `"env": [{"name": "DB_PASSWORD", "value": "hunter2x"}, {"name": "LOG_LEVEL", "value": "debug"}]`,
			`"env": [{"name": "DB_PASSWORD", "value": "` + pa + `"}, {"name": "LOG_LEVEL", "value": "debug"}]`, RulePasswordAssignment},
		{"value before name", `{"value":"hunter2x","name":"DB_PASSWORD"}`, `{"value":"` + pa + `","name":"DB_PASSWORD"}`, RulePasswordAssignment},
		{"value before name spaced", `{ "value" : "hunter2x" , "name" : "API_TOKEN" }`, `{ "value" : "` + pa + `" , "name" : "API_TOKEN" }`, RulePasswordAssignment},
		{"member between", `{"name":"GITHUB_TOKEN","type":"PLAINTEXT","value":"Zq9vX2mK4pL7"}`,
			`{"name":"GITHUB_TOKEN","type":"PLAINTEXT","value":"` + pa + `"}`, RulePasswordAssignment},
		{"capitalised keys", `{"Name":"DB_PASSWORD","Value":"Zq9vX2mK4pL7"}`, `{"Name":"DB_PASSWORD","Value":"` + pa + `"}`, RulePasswordAssignment},
		{"escaped quote in value", `{"name":"DB_PASSWORD","value":"a\"b c"}`, `{"name":"DB_PASSWORD","value":"` + pa + `"}`, RulePasswordAssignment},
		{"escaped json in a log message", `msg="{\"env\":[{\"name\":\"DB_PASSWORD\",\"value\":\"Zq9vX2mK4pL7\"},{\"name\":\"LOG_LEVEL\",\"value\":\"debug\"}]}"`,
			`msg="{\"env\":[{\"name\":\"DB_PASSWORD\",\"value\":\"` + pa + `\"},{\"name\":\"LOG_LEVEL\",\"value\":\"debug\"}]}"`, RulePasswordAssignment},
		{"escaped pretty json", `"{\n  \"name\": \"API_KEY\",\n  \"value\": \"Zq9vX2mK4pL7\"\n}"`,
			`"{\n  \"name\": \"API_KEY\",\n  \"value\": \"` + pa + `\"\n}"`, RulePasswordAssignment},
		{"cut short", `{"name":"DB_PASSWORD","value":"Zq9vX2mK4pL7 and the res`, `{"name":"DB_PASSWORD","value":"` + pa, RulePasswordAssignment},
		{"no closing brace", `"name": "DB_PASSWORD", "value": "Zq9vX2mK4pL7"`, `"name": "DB_PASSWORD", "value": "` + pa + `"`, RulePasswordAssignment},
		{"stray quote before", `x" {"name":"DB_PASSWORD","value":"Zq9vX2mK4pL7"}`, `x" {"name":"DB_PASSWORD","value":"` + pa + `"}`, RulePasswordAssignment},
		{"inside a string before", `{"a":" {"name":"DB_PASSWORD","value":"Zq9vX2mK4pL7"}`, `{"a":" {"name":"DB_PASSWORD","value":"` + pa + `"}`, RulePasswordAssignment},
		{"after a syslog prefix", `Nov 27 21:04:11 ip-10-0-1-2 kubelet[2114]: I1127 pod.go:42] "env" spec=[{"name":"SLACK_WEBHOOK_SECRET","value":"Zq9vX2mK4pL7"}]`,
			`Nov 27 21:04:11 ip-10-0-1-2 kubelet[2114]: I1127 pod.go:42] "env" spec=[{"name":"SLACK_WEBHOOK_SECRET","value":"` + pa + `"}]`, RulePasswordAssignment},

		// Pretty-printed JSON: "name" and "value" on consecutive lines.
		{"pretty json", "      {\n        \"name\": \"X_TOKEN\",\n        \"value\": \"Zq9vX2mK4pL7\"\n      },\n",
			"      {\n        \"name\": \"X_TOKEN\",\n        \"value\": \"" + pa + "\"\n      },\n", RulePasswordAssignment},
		{"pretty json more members", "    \"name\": \"DB_PASSWORD\",\n    \"value\": \"a, b\",\n    \"type\": \"PLAINTEXT\"\n",
			"    \"name\": \"DB_PASSWORD\",\n    \"value\": \"" + pa + "\",\n    \"type\": \"PLAINTEXT\"\n", RulePasswordAssignment},
		{"pretty json crlf", "  \"name\": \"API_KEY\",\r\n  \"value\": \"Zq9vX2mK4pL7\"\r\n", "  \"name\": \"API_KEY\",\r\n  \"value\": \"" + pa + "\"\r\n", RulePasswordAssignment},
		{"yaml quoted value keeps its comment", "- name: X_TOKEN\n  value: \"Zq9vX2mK4pL7\" # from vault\n",
			"- name: X_TOKEN\n  value: \"" + pa + "\" # from vault\n", RulePasswordAssignment},

		// Environments as lists of strings (ctr containers info, docker inspect).
		{"env strings", `"Env": ["AWS_VPC_K8S_CNI_LOGLEVEL=DEBUG", "MY_API_TOKEN=abc123xyz", "AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true", "ENABLE_PREFIX_DELEGATION=true", "AWS_VPC_ENI_MTU=9001"]`,
			`"Env": ["AWS_VPC_K8S_CNI_LOGLEVEL=DEBUG", "MY_API_TOKEN=` + pa + `", "AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true", "ENABLE_PREFIX_DELEGATION=true", "AWS_VPC_ENI_MTU=9001"]`, RulePasswordAssignment},
		{"env string with blanks", `"Env":["DB_PASSWORD=p@ss w0rd x","A=b"]`, `"Env":["DB_PASSWORD=` + pa + `","A=b"]`, RulePasswordAssignment},
		{"pretty env string", "                \"DB_PASSWORD=p@ss w0rd\",\n", "                \"DB_PASSWORD=" + pa + "\",\n", RulePasswordAssignment},
		{"escaped env strings", `{\"Env\":[\"DB_PASSWORD=p@ss w0rd\", \"A=b\"]}`, `{\"Env\":[\"DB_PASSWORD=` + pa + `\", \"A=b\"]}`, RulePasswordAssignment},
		{"python list element", `['--password=p@ss w0rd', '-v']`, `['--password=` + pa + `', '-v']`, RulePasswordAssignment},

		// kubelet's Go form of a container spec.
		{"kubelet env var", `err="container &Container{Name:api,Env:[]EnvVar{EnvVar{Name:DB_PASSWORD,Value:s3cr3t, with comma,ValueFrom:nil,},EnvVar{Name:LOG_LEVEL,Value:debug,ValueFrom:nil,},},}"`,
			`err="container &Container{Name:api,Env:[]EnvVar{EnvVar{Name:DB_PASSWORD,Value:` + pa + `,ValueFrom:nil,},EnvVar{Name:LOG_LEVEL,Value:debug,ValueFrom:nil,},},}"`, RulePasswordAssignment},
		{"kubelet env var cut short", `Env:[]EnvVar{EnvVar{Name:API_TOKEN,Value:Zq9vX2mK4p`, `Env:[]EnvVar{EnvVar{Name:API_TOKEN,Value:` + pa, RulePasswordAssignment},

		// Look-alikes.
		{"kubelet plain env vars", `Env:[]EnvVar{EnvVar{Name:AWS_VPC_ENI_MTU,Value:9001,ValueFrom:nil,},EnvVar{Name:AWS_WEB_IDENTITY_TOKEN_FILE,Value:/var/run/secrets/eks.amazonaws.com/serviceaccount/token,ValueFrom:nil,},` +
			`EnvVar{Name:DB_PASSWORD,Value:,ValueFrom:&EnvVarSource{SecretKeyRef:&SecretKeySelector{Key:pw,},},},}`, "", ""},
		{"plain pair", `{"name":"LOG_LEVEL","value":"debug"}`, "", ""},
		{"cni settings", `[{"name":"AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG","value":"true"},{"name":"ENABLE_PREFIX_DELEGATION","value":"true"},{"name":"AWS_VPC_ENI_MTU","value":"9001"}]`, "", ""},
		{"value from a secret", `{"name":"DB_PASSWORD","valueFrom":{"secretKeyRef":{"name":"db","key":"pw"}}}`, "", ""},
		{"token file path", `{"name":"AWS_WEB_IDENTITY_TOKEN_FILE","value":"/var/run/secrets/eks.amazonaws.com/serviceaccount/token"}`, "", ""},
		{"reference and empty", `[{"name":"DB_PASSWORD","value":"$(DB_PASS)"},{"name":"API_TOKEN","value":""}]`, "", ""},
		{"pair in different objects", `{"metadata":{"name":"api-token"},"data":{"value":"kept-as-is"}}`, "", ""},
		{"name not a string", `{"name":["DB_PASSWORD"],"value":"kept"}`, "", ""},
		{"pretty json plain name", "    \"name\": \"LOG_LEVEL\",\n    \"value\": \"debug\"\n", "", ""},
		{"pretty json value from", "    \"name\": \"DB_PASSWORD\",\n    \"valueFrom\": {\n", "", ""},
		{"pretty json other column", "    \"name\": \"DB_PASSWORD\",\n  \"value\": \"kept\"\n", "", ""},
		{"env strings plain", `"Env": ["PATH=/usr/local/sbin:/usr/bin", "AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true", "AWS_WEB_IDENTITY_TOKEN_FILE=/var/run/secrets/eks.amazonaws.com/serviceaccount/token"]`, "", ""},
		{"message with token word", `{"msg":"token=abc is not a list element"}`, `{"msg":"token=` + pa + ` is not a list element"}`, RulePasswordAssignment},
	})
}

// The JSON pair finder reads from each key; a line made of nothing but
// keys, with no object end in sight, must not make it read the same bytes
// over and over.
func TestJSONEnvPairsManyKeys(t *testing.T) {
	const n = 40000
	line := []byte(strings.Repeat(`"name":"API_TOKEN","value":"x",`, n))
	start := time.Now()
	locs := findJSONEnvPairs(line)
	took := time.Since(start)
	seen := map[int]bool{}
	for _, loc := range locs {
		if string(line[loc[2]:loc[3]]) != "x" {
			t.Fatalf("bad value span %v", loc)
		}
		seen[loc[2]] = true
	}
	// Each reading stops after maxPairMembers members; a pair split by
	// that limit is not one an env list holds.
	if len(seen) < n-n/(maxPairMembers/2) {
		t.Fatalf("found %d of %d values", len(seen), n)
	}
	if took > 5*time.Second {
		t.Fatalf("took %v for %d bytes", took, len(line))
	}
}

func TestJSONEnvPairsStreamed(t *testing.T) {
	r := New(DefaultRules())
	in := "{\n  \"env\": [\n    {\n      \"name\": \"API_TOKEN\",\n      \"value\": \"Zq9vX2mK4pL7\"\n    },\n" +
		"    {\"name\": \"DB_PASSWORD\", \"value\": \"Zq9vX2mK4pL8\"}\n  ]\n}\n"
	once, counts := redactIdempotentAndStreamed(t, r, in)
	if counts[RulePasswordAssignment] != 2 || strings.Contains(once, "Zq9vX2mK4pL") {
		t.Fatalf("got %q (%v)", once, counts)
	}
}
