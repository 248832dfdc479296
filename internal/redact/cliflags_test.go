package redact

import (
	"strings"
	"testing"
)

// fakeECRPassword has the shape of an ECR password: base64 of a JSON
// document (shortened; real ones are about 2 KB).
const fakeECRPassword = "eyJwYXlsb2FkIjoiTmxVb3V4Z2FQbTdrU2p2Q1JjM0dKd2VZbzJ6QXhUbjRsTGhGcDh1SyIsImRhdGFrZXkiOiJBUUVCQUhoSyIsInZlcnNpb24iOiIyIn0="

func TestCLIPasswords(t *testing.T) {
	cp, pa := m(RuleCLIPassword), m(RulePasswordAssignment)
	runRuleCases(t, []ruleCase{
		// ctr: the user stays, the password goes.
		{"ctr images pull --user", "ctr images pull --user AWS:" + fakeECRPassword + " 602401143452.dkr.ecr.eu-central-1.amazonaws.com/eks/pause:3.10",
			"ctr images pull --user AWS:" + cp + " 602401143452.dkr.ecr.eu-central-1.amazonaws.com/eks/pause:3.10", RuleCLIPassword},
		{"ctr i pull -u expanded", "+ ctr -n k8s.io i pull -u AWS:" + fakeECRPassword + " 1234.dkr.ecr.us-west-2.amazonaws.com/app:1",
			"+ ctr -n k8s.io i pull -u AWS:" + cp + " 1234.dkr.ecr.us-west-2.amazonaws.com/app:1", RuleCLIPassword},
		{"ctr short password", "/usr/bin/ctr -n k8s.io images pull --user ci:hunter2x reg.example.com/app:1",
			"/usr/bin/ctr -n k8s.io images pull --user ci:" + cp + " reg.example.com/app:1", RuleCLIPassword},
		{"ctr content fetch", "ctr content fetch -u ci:hunter2x reg/x", "ctr content fetch -u ci:" + cp + " reg/x", RuleCLIPassword},
		{"ctr equals", "ctr i push --user=AWS:" + fakeECRPassword + " x", "ctr i push --user=AWS:" + cp + " x", RuleCLIPassword},
		{"python argv", `Running command ['ctr', '-n', 'k8s.io', 'images', 'pull', '--user', 'AWS:` + fakeECRPassword + `', 'img'] with allowed codes`,
			`Running command ['ctr', '-n', 'k8s.io', 'images', 'pull', '--user', 'AWS:` + cp + `', 'img'] with allowed codes`, RuleCLIPassword},
		{"json argv", `{"argv":["ctr","images","pull","-u","AWS:` + fakeECRPassword + `","img"]}`,
			`{"argv":["ctr","images","pull","-u","AWS:` + cp + `","img"]}`, RuleCLIPassword},
		{"escaped json argv", `{"msg":"exec [\"ctr\", \"i\", \"pull\", \"-u\", \"AWS:` + fakeECRPassword + `\"]"}`,
			`{"msg":"exec [\"ctr\", \"i\", \"pull\", \"-u\", \"AWS:` + cp + `\"]"}`, RuleCLIPassword},
		{"token shaped anywhere", "pull-image.sh -u AWS:" + fakeECRPassword, "pull-image.sh -u AWS:" + cp, RuleCLIPassword},
		// curl.
		{"curl -u", "curl -fsS -u admin:hunter2x https://nexus.example.com/repo", "curl -fsS -u admin:" + cp + " https://nexus.example.com/repo", RuleCLIPassword},
		{"curl --user quoted", "curl --user 'admin:two words' https://x", "curl --user 'admin:" + cp + "' https://x", RuleCLIPassword},
		{"curl proxy user", "curl -U proxy:hunter2x --proxy-user p2:hunter3y https://x", "curl -U proxy:" + cp + " --proxy-user p2:" + cp + " https://x", RuleCLIPassword},
		{"curl numeric password", "curl -u admin:123456 https://x", "curl -u admin:" + cp + " https://x", RuleCLIPassword},
		{"curl after a query string", `curl "https://x/?a=1&b=2" -u u:hunter2x`, `curl "https://x/?a=1&b=2" -u u:` + cp, RuleCLIPassword},
		// login -p.
		{"docker login -p", "docker login -u AWS -p " + fakeECRPassword + " -e none https://1234.dkr.ecr.us-west-2.amazonaws.com",
			"docker login -u AWS -p " + cp + " -e none https://1234.dkr.ecr.us-west-2.amazonaws.com", RuleCLIPassword},
		{"nerdctl login -p", "nerdctl login -u ci -p hunter2x reg.example.com", "nerdctl login -u ci -p " + cp + " reg.example.com", RuleCLIPassword},
		{"helm registry login -p quoted", `helm registry login reg.example.com -u ci -p "hunter 2"`, `helm registry login reg.example.com -u ci -p "` + cp + `"`, RuleCLIPassword},
		// Flags named like secrets: password-assignment, the user stays.
		{"nerdctl login --password", "nerdctl login --username AWS --password hunter2x x", "nerdctl login --username AWS --password " + pa + " x", RulePasswordAssignment},
		{"crictl --creds", "crictl pull --creds AWS:" + fakeECRPassword + " img", "crictl pull --creds AWS:" + pa + " img", RulePasswordAssignment},
		{"crictl --creds=", "crictl pull --creds=AWS:" + fakeECRPassword + " img", "crictl pull --creds=AWS:" + pa + " img", RulePasswordAssignment},
		{"crictl --auth", "crictl pull --auth QVdTOmh1bnRlcjJ4aHVudGVyMng= img", "crictl pull --auth " + pa + " img", RulePasswordAssignment},
		{"skopeo creds", "skopeo copy --src-creds ci:hunter2x --dest-creds AWS:" + fakeECRPassword + " docker://a docker://b",
			"skopeo copy --src-creds ci:" + pa + " --dest-creds AWS:" + pa + " docker://a docker://b", RulePasswordAssignment},
		{"escaped json argv password", `{"msg":"exec [\"docker\", \"login\", \"--password\", \"hunter2x\"]"}`,
			`{"msg":"exec [\"docker\", \"login\", \"--password\", \"` + pa + `\"]"}`, RulePasswordAssignment},
		{"creds without user", "podman pull --creds hunter2x img", "podman pull --creds " + pa + " img", RulePasswordAssignment},

		// Look-alikes.
		{"docker run uid gid", "docker run -u 1000:1000 --rm img id", "", ""},
		{"docker run user", "docker run --user root img", "", ""},
		{"user and group names", "nerdctl run -p 8080:80 --user app:app img && docker run -u=nobody:nogroup img", "", ""},
		{"ctr run user", "ctr run -u app:staff --rm docker.io/library/busybox:latest t1 id", "", ""},
		{"ctr pull then run", "ctr i pull docker.io/x:1 && ctr run --user app:app docker.io/x:1 t1", "", ""},
		{"sudo user", "sudo -u ec2-user curl -s https://x", "", ""},
		{"journalctl unit", "journalctl -u kubelet -u containerd --no-pager", "", ""},
		{"pip upgrade", "pip install -U awscli", "", ""},
		{"unexpanded ecr login", "ctr -n k8s.io i pull -u AWS:$(aws ecr get-login-password --region us-west-2) img", "", ""},
		{"unexpanded creds", "crictl pull --creds AWS:$(aws ecr get-login-password) img", "", ""},
		{"variable password", `curl -u "$NEXUS_USER:$NEXUS_PASSWORD" https://x`, "", ""},
		{"curl user only", "curl --user admin https://x", "", ""},
		{"password stdin", "aws ecr get-login-password | docker login --username AWS --password-stdin 1234.dkr.ecr.us-west-2.amazonaws.com", "", ""},
		{"unexpanded login -p", "docker login -u AWS -p $(aws ecr get-login-password) x", "", ""},
		{"port without login", "ssh -p 22 ec2-user@10.0.1.2; docker run -p 8080:80 img", "", ""},
		{"ssh user named login", "ssh login@10.42.17.203 -p 2222 uptime", "", ""},
		{"login word after", "docker run -p 8080:80 img login", "", ""},
		{"dash in words", "x-amz-user-agent: aws-sdk-go/1.55 kube-user:admin", "", ""},
	})
}

// An ECR password in a line longer than the window, around the piece
// borders, still goes.
func TestCLIPasswordChunkBorders(t *testing.T) {
	r := New(DefaultRules())
	r.window, r.overlap = 4096, 512
	secrets := []string{
		"ctr -n k8s.io i pull -u AWS:" + fakeECRPassword + " img",
		`{"name":"DB_PASSWORD","value":"Zq9vX2mK4pL7Zq9v"}`,
		`"Env":["MY_API_TOKEN=Zq9vX2mK4pL7Zq9v w"]`,
	}
	cores := []string{fakeECRPassword[20:60], "Zq9vX2mK4pL7Zq9v", "Zq9vX2mK4pL7Zq9v"}
	for si, secret := range secrets {
		for offset := r.window - r.overlap - 300; offset < r.window+50; offset += 7 {
			filler := strings.Repeat("abcdefgh ", 3*r.window/9)
			line := filler[:offset] + " " + secret + " " + filler[offset:] + filler
			got, counts := redactInPieces(t, r, line+"\n", func(i int) int { return 1000 + i%3 })
			if strings.Contains(got, cores[si]) {
				t.Fatalf("secret %d at offset %d survived (counts %v)", si, offset, counts)
			}
		}
	}
}

func TestCLIPasswordsIdempotent(t *testing.T) {
	r := New(DefaultRules())
	in := "curl -u admin:hunter2x https://x\ndocker login -u AWS -p " + fakeECRPassword + " x\n" +
		"ctr i pull --user AWS:" + fakeECRPassword + " y\ncrictl pull --creds AWS:hunter2x z\n"
	once, _ := r.Bytes([]byte(in))
	twice, counts := r.Bytes(once)
	if string(twice) != string(once) || len(counts) != 0 {
		t.Fatalf("second pass changed %q to %q (%v)", once, twice, counts)
	}
}

func TestTokenShaped(t *testing.T) {
	for v, want := range map[string]bool{
		fakeECRPassword: true, "Zq9vX2mK4pL7Zq9vX2mK": true,
		"Zq9vX2mK4pL7": false, "nogroup": false, "1000": false, "docker-users-group-name": false,
		"ALLUPPERCASE123456789": false, "has space Zq9vX2mK4pL7": false,
	} {
		if got := tokenShaped([]byte(v)); got != want {
			t.Errorf("tokenShaped(%q) = %v, want %v", v, got, want)
		}
	}
}
