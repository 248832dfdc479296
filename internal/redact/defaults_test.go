package redact

import (
	"strings"
	"testing"
)

// Realistic fake secrets (none is live).
const (
	fakeAccessKeyID  = "AKIAIOSFODNN7EXAMPLE"
	fakeTempKeyID    = "ASIAY34FZKBOKMUTVV7A"
	fakeSecretKey    = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	fakeSessionToken = "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLXdlc3QtMiJHMEUCIQDexampleexampleexample="
	fakeJWT          = "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50In0.c2lnbmF0dXJlLXZhbHVlLWhlcmU"
	fakeBootstrap    = "07401b.f395accd246ae52d"
	fakeGitHub       = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	fakeGitLab       = "glpat-xYz12AbC34dEf56GhI78"
	fakeSlack        = "xoxb-263594206564-2343594206574-FGqddMF8t08v8N7Oq4i57vs1"
	fakeEKSToken     = "k8s-aws-v1.aHR0cHM6Ly9zdHMudXMtd2VzdC0yLmFtYXpvbmF3cy5jb20vP0FjdGlvbj1HZXRDYWxsZXJJZGVudGl0eQ"
	fakeDockerAuth   = "dXNlcjpodW50ZXIy"
	fakeRSAKeyBody   = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9OiJjRazXBZ1BjP5CE/Wm/Rr500P"
	fakeCACert       = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUMvakNDQWVhZ0F3SUJBZ0lCQURBTkJna3Foa2lHOXcwQkFRc0ZBREFWTVJNd0VRWURWUVFERXdwcmRXSmwK"
	fakeB64Key       = "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVBM1R6Mm1yN1NaaUFNZlF5dXZCak05T2lKalJhelhCWjFCalA1Q0UvV20vUnI1MDBQCg=="
)

type ruleCase struct {
	name string
	in   string
	want string // empty means: unchanged
	rule string // rule expected to count (when want is set)
}

func runRuleCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	r := New(DefaultRules())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, counts := r.Bytes([]byte(tc.in))
			want := tc.want
			if want == "" {
				want = tc.in
			}
			if string(got) != want {
				t.Fatalf("redact(%q)\n got: %q\nwant: %q", tc.in, got, want)
			}
			if tc.want == "" && len(counts) != 0 {
				t.Fatalf("look-alike counted: %v", counts)
			}
			if tc.rule != "" && counts[tc.rule] == 0 {
				t.Fatalf("rule %s not counted: %v", tc.rule, counts)
			}
		})
	}
}

func m(rule string) string { return Marker(rule) }

func TestDefaultRulesSecrets(t *testing.T) {
	pk, ak, sk, st := m(RulePrivateKey), m(RuleAWSAccessKeyID), m(RuleAWSSecretKey), m(RuleAWSSessionToken)
	kc, da, ah, pa := m(RuleKubeconfigCredential), m(RuleDockerAuth), m(RuleAuthorizationHeader), m(RulePasswordAssignment)
	cases := []ruleCase{
		// AWS access key ids.
		{"akia alone", "key id " + fakeAccessKeyID + " used\n", "key id " + ak + " used\n", RuleAWSAccessKeyID},
		{"asia in env", "AWS_ACCESS_KEY_ID=" + fakeTempKeyID + "\n", "AWS_ACCESS_KEY_ID=" + ak + "\n", RuleAWSAccessKeyID},
		{"akia in json", `{"AccessKeyId" : "` + fakeTempKeyID + `"}`, `{"AccessKeyId" : "` + ak + `"}`, RuleAWSAccessKeyID},
		// AWS secret keys in every notation.
		{"secret ini", "aws_secret_access_key = " + fakeSecretKey + "\n", "aws_secret_access_key = " + sk + "\n", RuleAWSSecretKey},
		{"secret env", "AWS_SECRET_ACCESS_KEY=" + fakeSecretKey, "AWS_SECRET_ACCESS_KEY=" + sk, RuleAWSSecretKey},
		{"secret export quoted", `export AWS_SECRET_ACCESS_KEY="` + fakeSecretKey + `"`, `export AWS_SECRET_ACCESS_KEY="` + sk + `"`, RuleAWSSecretKey},
		{"secret yaml", "SecretAccessKey: " + fakeSecretKey, "SecretAccessKey: " + sk, RuleAWSSecretKey},
		{"secret json", `"SecretAccessKey" : "` + fakeSecretKey + `",`, `"SecretAccessKey" : "` + sk + `",`, RuleAWSSecretKey},
		{"secret escaped json", `msg="{\"SecretAccessKey\":\"` + fakeSecretKey + `\"}"`, `msg="{\"SecretAccessKey\":\"` + sk + `\"}"`, RuleAWSSecretKey},
		{"secret cli", "aws configure set aws_secret_access_key " + fakeSecretKey, "aws configure set aws_secret_access_key " + sk, RuleAWSSecretKey},
		// Session tokens.
		{"session env", "AWS_SESSION_TOKEN=" + fakeSessionToken, "AWS_SESSION_TOKEN=" + st, RuleAWSSessionToken},
		{"session ini", "aws_session_token = " + fakeSessionToken, "aws_session_token = " + st, RuleAWSSessionToken},
		{"imds token", `  "Token" : "` + fakeSessionToken + `",`, `  "Token" : "` + st + `",`, RuleAWSSessionToken},
		{"sts json", `"SessionToken": "` + fakeSessionToken + `"`, `"SessionToken": "` + st + `"`, RuleAWSSessionToken},
		{"presigned url", "GET /b/k?X-Amz-Security-Token=" + fakeSessionToken + "&X-Amz-Signature=" + strings.Repeat("ab12", 16) + "&x=1",
			"GET /b/k?X-Amz-Security-Token=" + st + "&X-Amz-Signature=" + m(RuleAWSSignature) + "&x=1", RuleAWSSignature},
		// Private keys.
		{"pem block", "-----BEGIN RSA PRIVATE KEY-----\n" + fakeRSAKeyBody + "\n-----END RSA PRIVATE KEY-----\nnext\n", pk + "\nnext\n", RulePrivateKey},
		{"pem openssh indented", "key.pem: |\n  -----BEGIN OPENSSH PRIVATE KEY-----\n  " + fakeRSAKeyBody + "\n  -----END OPENSSH PRIVATE KEY-----\nother: x\n",
			"key.pem: |\n  " + pk + "\nother: x\n", RulePrivateKey},
		{"pem pkcs8 encrypted", "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + fakeRSAKeyBody + "\n" + fakeRSAKeyBody + "\n-----END ENCRYPTED PRIVATE KEY-----\n", pk + "\n", RulePrivateKey},
		{"pem ec with text after end", "-----BEGIN EC PRIVATE KEY-----\n" + fakeRSAKeyBody + "\n-----END EC PRIVATE KEY-----  tail\n", pk + "\n  tail\n", RulePrivateKey},
		{"pem plain", "x -----BEGIN PRIVATE KEY-----\n" + fakeRSAKeyBody + "\n-----END PRIVATE KEY-----\n", "x " + pk + "\n", RulePrivateKey},
		{"pem journald prefixed", "Jan 02 10:00:00 ip-10-0-1-2 cloud-init[812]: -----BEGIN RSA PRIVATE KEY-----\nJan 02 10:00:00 ip-10-0-1-2 cloud-init[812]: " + fakeRSAKeyBody + "\nJan 02 10:00:00 ip-10-0-1-2 cloud-init[812]: -----END RSA PRIVATE KEY-----\n",
			"Jan 02 10:00:00 ip-10-0-1-2 cloud-init[812]: " + pk + "\n", RulePrivateKey},
		{"pem in json string", `{"key": "-----BEGIN RSA PRIVATE KEY-----\n` + fakeRSAKeyBody + `\n-----END RSA PRIVATE KEY-----\n"}`, `{"key": "` + pk + `\n"}`, RulePrivateKey},
		{"pem pgp", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + fakeRSAKeyBody + "\n-----END PGP PRIVATE KEY BLOCK-----\n", pk + "\n", RulePrivateKey},
		{"pem base64", "  client-key-data: " + fakeB64Key + "\n", "  client-key-data: " + pk + "\n", RulePrivateKey},
		{"pem base64 in secret", "  tls.pem: " + fakeB64Key + "\n", "  tls.pem: " + pk + "\n", RulePrivateKey},
		// kubeconfig.
		{"kubeconfig token", "    token: " + fakeJWT + "\n", "    token: " + kc + "\n", RuleKubeconfigCredential},
		{"kubeconfig client cert", "    client-certificate-data: " + fakeCACert + "\n", "    client-certificate-data: " + kc + "\n", RuleKubeconfigCredential},
		{"kubeconfig json", `{"token": "abc123def456"}`, `{"token": "` + kc + `"}`, RuleKubeconfigCredential},
		{"kubeconfig list item", "- token: abcdef123456\n", "- token: " + kc + "\n", RuleKubeconfigCredential},
		// Docker.
		{"docker auth", `{"auths": {"123456789012.dkr.ecr.us-west-2.amazonaws.com": {"auth": "` + fakeDockerAuth + `"}}}`,
			`{"auths": {"123456789012.dkr.ecr.us-west-2.amazonaws.com": {"auth": "` + da + `"}}}`, RuleDockerAuth},
		{"docker identitytoken", `"identitytoken": "` + fakeSessionToken + `"`, `"identitytoken": "` + da + `"`, RuleDockerAuth},
		// Authorization headers.
		{"auth bearer header", "Authorization: Bearer " + fakeJWT + "\n", "Authorization: Bearer " + ah + "\n", RuleAuthorizationHeader},
		{"auth basic header", "authorization: Basic dXNlcjpwYXNzd29yZA==", "authorization: Basic " + ah, RuleAuthorizationHeader},
		{"auth json", `"Authorization": "Bearer abc.def.ghi-12345"`, `"Authorization": "Bearer ` + ah + `"`, RuleAuthorizationHeader},
		{"auth go header map", "map[Authorization:[Bearer sometoken1234567890] Accept:[*/*]]", "map[Authorization:[Bearer " + ah + "] Accept:[*/*]]", RuleAuthorizationHeader},
		{"auth sigv4", "Authorization: AWS4-HMAC-SHA256 Credential=x/20240101/us-west-2/sts/aws4_request, SignedHeaders=host, Signature=abcdef",
			"Authorization: AWS4-HMAC-SHA256 " + ah, RuleAuthorizationHeader},
		{"curl header", `curl -H "Authorization: Bearer tok_1234567890abcdef" https://x`, `curl -H "Authorization: Bearer ` + ah + `" https://x`, RuleAuthorizationHeader},
		{"bearer loose", "using bearer " + fakeGitLab + "xx for call", "using bearer " + m(RuleBearerToken) + " for call", RuleBearerToken},
		{"eks token", "token=" + fakeEKSToken + " ok", "token=" + m(RuleEKSToken) + " ok", RuleEKSToken},
		{"jwt alone", "sa token " + fakeJWT + ".", "sa token " + m(RuleJWT) + ".", RuleJWT},
		// URLs.
		{"url password", "https_proxy=http://proxyuser:s3cr3t@10.0.0.5:3128", "https_proxy=http://proxyuser:" + m(RuleURLCredentials) + "@10.0.0.5:3128", RuleURLCredentials},
		{"url password with at", "postgres://app:p@ss@db.internal/app", "postgres://app:" + m(RuleURLCredentials) + "@db.internal/app", RuleURLCredentials},
		{"url empty user", "redis://:hunter2@cache:6379", "redis://:" + m(RuleURLCredentials) + "@cache:6379", RuleURLCredentials},
		// Vendor tokens.
		{"github", "GH " + fakeGitHub, "GH " + m(RuleGitHubToken), RuleGitHubToken},
		{"github pat", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", m(RuleGitHubToken), RuleGitHubToken},
		{"gitlab", "GL " + fakeGitLab, "GL " + m(RuleGitLabToken), RuleGitLabToken},
		{"slack", "hook " + fakeSlack, "hook " + m(RuleSlackToken), RuleSlackToken},
		// Bootstrap tokens.
		{"bootstrap flag", "kubeadm join --discovery-token-unsafe-skip-ca-verification --token " + fakeBootstrap, "kubeadm join --discovery-token-unsafe-skip-ca-verification --token " + m(RuleBootstrapToken), RuleBootstrapToken},
		{"bootstrap alone", "using " + fakeBootstrap + " now", "using " + m(RuleBootstrapToken) + " now", RuleBootstrapToken},
		// Generic assignments.
		{"env password", "DB_PASSWORD=hunter2", "DB_PASSWORD=" + pa, RulePasswordAssignment},
		{"env export", "export API_KEY=abc123", "export API_KEY=" + pa, RulePasswordAssignment},
		{"env quoted", `PGPASSWORD="a b c"`, `PGPASSWORD="` + pa + `"`, RulePasswordAssignment},
		{"ini spaces", "password = correct horse battery", "password = " + pa, RulePasswordAssignment},
		{"toml", `  password = "hunter2"`, `  password = "` + pa + `"`, RulePasswordAssignment},
		{"yaml", "  clientSecret: s3cr3tvalue\n", "  clientSecret: " + pa + "\n", RulePasswordAssignment},
		{"yaml quoted", "  password: 'hunter2'\n", "  password: '" + pa + "'\n", RulePasswordAssignment},
		{"yaml syslog", "Jan 02 cloud-init[1]: password: hunter2", "Jan 02 cloud-init[1]: password: " + pa, RulePasswordAssignment},
		{"yaml escaped newline", `'#cloud-config\npassword: hunter2\nssh_pwauth: true'`, `'#cloud-config\npassword: ` + pa + `\nssh_pwauth: true'`, RulePasswordAssignment},
		{"yaml flow", "chpasswd: {users: [{name: root, password: hunter2, type: text}]}", "chpasswd: {users: [{name: root, password: " + pa + ", type: text}]}", RulePasswordAssignment},
		{"json", `{"user": "admin", "password": "hunter2"}`, `{"user": "admin", "password": "` + pa + `"}`, RulePasswordAssignment},
		{"json escaped quote", `{"apiKey": "a\"b"}`, `{"apiKey": "` + pa + `"}`, RulePasswordAssignment},
		{"escaped json", `msg="{\"db_password\":\"hunter2\"}"`, `msg="{\"db_password\":\"` + pa + `\"}"`, RulePasswordAssignment},
		{"python dict", `{'secret': 'hunter2'}`, `{'secret': '` + pa + `'}`, RulePasswordAssignment},
		{"flag equals", "/usr/bin/app --db-password=hunter2 --v=2", "/usr/bin/app --db-password=" + pa + " --v=2", RulePasswordAssignment},
		{"flag space", "docker login --username AWS --password hunter2 123456789012.dkr.ecr.us-west-2.amazonaws.com",
			"docker login --username AWS --password " + pa + " 123456789012.dkr.ecr.us-west-2.amazonaws.com", RulePasswordAssignment},
		{"flag token space", "app --token abcdef --other", "app --token " + pa + " --other", RulePasswordAssignment},
		{"logfmt", `level=info auth_token=abc123 user=bob`, `level=info auth_token=` + pa + ` user=bob`, RulePasswordAssignment},
		{"query string", "GET /cb?code=1&access_token=abc123&state=x", "GET /cb?code=1&access_token=" + pa + "&state=x", RulePasswordAssignment},
		{"http header", "X-Auth-Token: 0123456789abcdef\n", "X-Auth-Token: " + pa + "\n", RulePasswordAssignment},
		{"curl custom header", `curl -H 'X-Api-Key: abc123' https://x`, `curl -H 'X-Api-Key: ` + pa + `' https://x`, RulePasswordAssignment},
		{"go struct", "config: {User:admin Password:hunter2 Port:5432}", "config: {User:admin Password:" + pa + " Port:5432}", RulePasswordAssignment},
		{"containerd auth", `          auth = "dXNlcjpwYXNz"`, `          auth = "` + pa + `"`, RulePasswordAssignment},
		{"k8s secret data", "  tls.key: c2VjcmV0LWtleS1kYXRh\n", "  tls.key: " + pa + "\n", RulePasswordAssignment},
		{"oauth", "oauth=abc123", "oauth=" + pa, RulePasswordAssignment},
		{"mysql pwd", "MYSQL_PWD=abc", "MYSQL_PWD=" + pa, RulePasswordAssignment},
		{"private key var", "PRIVATE_KEY=abcdef", "PRIVATE_KEY=" + pa, RulePasswordAssignment},
		{"credentials", `"credentials": "abc123"`, `"credentials": "` + pa + `"`, RulePasswordAssignment},
		{"password with comma", "password=ab,cd user=x", "password=" + pa + " user=x", RulePasswordAssignment},
		{"crlf line", "password=hunter2\r\n", "password=" + pa + "\r\n", RulePasswordAssignment},
		{"shadow hash", "root_password: $6$salt$abcdef", "root_password: " + pa, RulePasswordAssignment},
		{"truncated quote", `level=info password="hunter2 and the rest`, `level=info password="` + pa, RulePasswordAssignment},
		{"quoted name equals", `"password"=hunter2 next`, `"password"=` + pa + ` next`, RulePasswordAssignment},
		{"compact json", `{"password":"a1","token":"b2"}`, `{"password":"` + pa + `","token":"` + kc + `"}`, RulePasswordAssignment},
		{"yaml quoted with comment", `  password: "x y" # set by ops`, `  password: "` + pa + `" # set by ops`, RulePasswordAssignment},
		{"go struct pointer", "cfg=&{Region:us-west-2 Token:abc123}", "cfg=&{Region:us-west-2 Token:" + pa + "}", RulePasswordAssignment},
		{"context eaten by another rule", " token: --password Zq9vX2mK4pL7", " token: " + kc, RuleKubeconfigCredential},
		{"ruby hash", `{"secret" => "s3cr3t"}`, `{"secret" => "` + pa + `"}`, RulePasswordAssignment},
	}
	_ = pk
	runRuleCases(t, cases)
}

func TestDefaultRulesLookAlikes(t *testing.T) {
	cases := []ruleCase{
		{name: "ca certificate pem", in: "-----BEGIN CERTIFICATE-----\nMIIC/jCCAeagAwIBAgIBADANBgkqhkiG9w0BAQsFADAVMRMwEQYDVQQDEwprdWJl\n-----END CERTIFICATE-----\n"},
		{name: "certificateAuthority", in: "    certificateAuthority: " + fakeCACert + "\n"},
		{name: "certificate-authority-data", in: "    certificate-authority-data: " + fakeCACert + "\n"},
		{name: "b64 cluster ca flag", in: "/etc/eks/bootstrap.sh my-cluster --b64-cluster-ca " + fakeCACert + " --apiserver-endpoint https://ABC.gr7.us-west-2.eks.amazonaws.com"},
		{name: "sha256 digest", in: "image sha256:" + strings.Repeat("0123456789abcdef", 4) + " pulled"},
		{name: "container id", in: "cri-containerd-" + strings.Repeat("a1b2c3d4", 8) + ".scope"},
		{name: "uuid", in: "pod 123e4567-e89b-12d3-a456-426614174000 deleted"},
		{name: "instance id", in: "instance i-0123456789abcdef0 and i-0abc1234"},
		{name: "account id", in: "account 123456789012"},
		{name: "arn", in: "arn:aws:iam::123456789012:role/eks-node-role"},
		{name: "assumed role arn", in: "arn:aws:sts::123456789012:assumed-role/eks-node/i-0123456789abcdef0"},
		{name: "role unique id", in: `"UserId": "AROAEXAMPLEID1234567:i-0123456789abcdef0"`},
		{name: "user unique id", in: "AIDAJQABLZS4A3QDU576Q"},
		{name: "ip and hostname", in: "node ip-10-0-1-2.ec2.internal 10.0.1.2 ip-10-0-1-2.us-west-2.compute.internal"},
		{name: "eni and ami", in: "eni-0a1b2c3d4e5f67890 ami-0abcdef1234567890 subnet-0123abcd vpc-0a1b2c3d"},
		{name: "node labels", in: "--node-labels=eks.amazonaws.com/nodegroup=ng-1,eks.amazonaws.com/capacityType=ON_DEMAND"},
		{name: "kubeconfig path flag", in: "--kubeconfig /var/lib/kubelet/kubeconfig --bootstrap-kubeconfig=/var/lib/kubelet/bootstrap-kubeconfig"},
		{name: "token file", in: `"tokenFile": "/var/run/secrets/eks.amazonaws.com/serviceaccount/token"`},
		{name: "token file flag", in: "--token-auth-file=/etc/k/tokens.csv --service-account-key-file=/etc/k/sa.pub"},
		{name: "client key path", in: "  client-key: /var/lib/kubelet/pki/kubelet-client-current.pem"},
		{name: "tls private key file", in: "--tls-private-key-file /etc/kubernetes/pki/apiserver.key"},
		{name: "key usage", in: `"keyUsage": ["digitalSignature", "keyEncipherment"]`},
		{name: "taint key", in: "  - key: node.kubernetes.io/not-ready\n    operator: Exists\n"},
		{name: "klog key", in: `I0102 10:00:00.000000    3214 controller.go:42] "Processing item" key="kube-system/aws-node-abcde"`},
		{name: "topology key", in: "      topologyKey: kubernetes.io/hostname"},
		{name: "secret key ref", in: "        secretKeyRef:\n          name: db\n          key: password\n"},
		{name: "secret name", in: "  secretName: my-tls"},
		{name: "authorization mode", in: "--authorization-mode=Webhook --authentication-token-webhook=true --anonymous-auth=false"},
		{name: "kubelet config auth", in: `"authentication": {"anonymous": {"enabled": false}, "webhook": {"cacheTTL": "2m0s", "enabled": true}}, "authorization": {"mode": "Webhook"}`},
		{name: "automount", in: "automountServiceAccountToken: false"},
		{name: "prose token", in: `E0102 10:00:00.000000 1 server.go:1] failed to get token: context deadline exceeded`},
		{name: "prose credentials", in: "error: You must be logged in to the server (the server has asked for the client to provide credentials)"},
		{name: "imds token ttl", in: "X-aws-ec2-metadata-token-ttl-seconds: 21600"},
		{name: "imds api token message", in: "failed to get API token, operation error ec2imds"},
		{name: "empty password", in: "password=\npassword: \"\"\n"},
		{name: "variable refs", in: `export AWS_SECRET_ACCESS_KEY=$SECRET
token: ${TOKEN}
password: "{{ .Values.password }}"
api_key=<your-api-key>
`},
		{name: "masked", in: "password: ********"},
		{name: "ssh public key", in: "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 user@host"},
		{name: "authorized keys", in: "ssh_authorized_keys:\n  - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"},
		{name: "kms key id", in: "kmsKeyId: arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"},
		{name: "access key id name", in: "AWS_ACCESS_KEY_ID=$AWS_KEY"},
		{name: "password authentication", in: "PasswordAuthentication no"},
		{name: "bypass", in: "bypass=true passthrough=yes"},
		{name: "url no password", in: "https://github.com/awslabs/amazon-eks-ami ssh://git@github.com/x.git http://[::1]:8080/x"},
		{name: "url port no creds", in: "https://ABCDEF.gr7.us-west-2.eks.amazonaws.com:443/api?timeout=32s"},
		{name: "bearer prose", in: "bearer token expired; Bearer authentication failed"},
		{name: "dotted names", in: "kernel.unprivileged_bpf_disabled = 1, amzn2023.0.20240101 containerd.io"},
		{name: "kube-dns", in: "nameserver 172.20.0.10 search default.svc.cluster.local"},
		{name: "nodeadm log", in: `info init/init.go:65 Loading configuration.. {"configSource": ["imds://user-data"], "configCache": "/run/eks/nodeadm/config.json"}`},
		{name: "invalid utf8", in: "bad \xff\xfe bytes \xc3( ok\n"},
		{name: "go struct lowercase", in: "{name:foo key:bar}"},
		{name: "docker auths object", in: `{"auths": {"x": {}}}`},
		{name: "marker like text", in: "[REDACTED:unknown-rule] and [REDACTED:jwt]"},
		{name: "comparison", in: `if password == "" { return errNoPassword }`},
		{name: "describing names", in: "token_count=5 passwordless=true secret_name=db-creds tokenExpirationSeconds: 3600"},
		{name: "quoted word then colon", in: `MountVolume.SetUp failed for volume "aws-iam-token" : failed to fetch token: forbidden`},
	}
	runRuleCases(t, cases)
}

func TestSensitiveName(t *testing.T) {
	cases := map[string]bool{
		"password": true, "DB_PASSWORD": true, "PGPASSWORD": true, "passwd": true, "pass": true,
		"clientSecret": true, "client_secret": true, "token": true, "accessToken": true, "X-Auth-Token": true,
		"api_key": true, "apiKey": true, "API-KEY": true, "apikey": true, "tls.key": true, "privateKey": true,
		"credentials": true, "creds": true, "auth": true, "oauth": true, "basicAuth": true, "psk": true,
		"MYSQL_PWD": true, "secret_key_base": true, "--password": true, "SSHKey": true, "ssh_key": true,
		"my_key": true,
		"key":    false, "keys": false, "keyUsage": false, "topologyKey": false, "labelKey": false,
		"tokenFile": false, "token-file": false, "tokenfile": false, "secretName": false, "secretRef": false,
		"secretKeyRef": false, "AWS_ACCESS_KEY_ID": false, "kmsKeyId": false, "authorization": false,
		"authorization-mode": false, "certificateAuthority": false, "authentication": false, "author": false,
		"bypass": false, "passthrough": false, "passed": false, "keyboard": false, "monkey": false,
		"token_ttl": false, "tokenTTL": false, "SSHKeyName": false, "KeyPair": false, "password_file": false,
		"authentication-token-webhook": false, "password-stdin": false, "PasswordAuthentication": false,
		"SnapshotKey": false, "snapshot_key": false, "bucketKey": false,
		"": false, "---": false,
	}
	for name, want := range cases {
		if got := sensitiveName([]byte(name)); got != want {
			t.Errorf("sensitiveName(%q) = %v, want %v (words %q)", name, got, want, splitWords([]byte(name)))
		}
	}
}

func TestSplitWords(t *testing.T) {
	cases := map[string]string{
		"AWS_SECRET_ACCESS_KEY": "aws secret access key",
		"clientSecret":          "client secret",
		"SSHKeyName":            "ssh key name",
		"s3Key":                 "s3 key",
		"--token-file":          "token file",
		"tls.key":               "tls key",
		"PGPASSWORD":            "pgpassword",
	}
	for in, want := range cases {
		if got := strings.Join(splitWords([]byte(in)), " "); got != want {
			t.Errorf("splitWords(%q) = %q, want %q", in, got, want)
		}
	}
}
