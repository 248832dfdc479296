// Package redact removes secrets from text streams before they go into a
// support bundle, and can replace network and account identifiers with
// consistent pseudonyms.
//
// A bundle leaves a production node for a support case. It must carry no
// secret, yet keep what diagnosis needs: addresses, ids, ARNs, digests,
// certificates and flags. Both halves are properties of the rules and are
// tested with planted secrets and with look-alikes that must survive.
//
// # Redactor
//
// A Redactor applies named Rules to text, line by line. Every secret found is
// replaced by the marker "[REDACTED:<rule>]", whatever its length, and each
// Writer counts replacements per rule (never the values), for the redaction
// report. The same Redactor serves many streams at once; each stream gets
// its own Writer.
//
// Guarantees, tested and fuzzed:
//   - text without secrets passes through byte for byte, including invalid
//     UTF-8 and CRLF line ends;
//   - redacting twice changes nothing: markers never match a rule, a match
//     that covers markers only replaces the text between them, and rules
//     are re-run on a line until it stops changing (at most 8 times);
//   - one rule cannot shield another's secret: in each pass all rules look
//     at the same text and their spans are merged before replacement (the
//     first rule by position gets the count);
//   - memory is bounded: a line is held at most one window (1 MiB) at a time.
//
// # Long lines
//
// A line longer than the window is redacted in pieces. Each piece ends at
// least 64 KiB before the end of the window, later if a match starts before
// that point and runs past it; the held-back bytes start the next window, so
// any match shorter than 64 KiB is seen whole. The trade-off: a secret whose
// match starts more than 64 KiB before the end of a full window and runs past
// it (a single token longer than 64 KiB) is cut at the window's end, and its
// tail, now without its context, may survive. Rules anchored to the line start
// may also fire at the start of a piece (over-redaction, never a leak), and
// idempotence is only promised for lines shorter than the window.
//
// # Private keys
//
// A PEM private key block (RSA, EC, DSA, OPENSSH, ENCRYPTED, PKCS#8, PGP) is
// removed whole: from the BEGIN marker, over the following lines, to the end
// of its END marker, which leaves one marker line. The stream remembers an
// open block across writes, so a block split in any way still goes. A block
// whose END never comes ends after 512 lines (real keys are under ~200), so a
// stray BEGIN line cannot eat a whole log. A block on one line (JSON with
// "\n" escapes) and base64-encoded PEM keys (client-key-data, Secret data)
// are found too. CERTIFICATE blocks, plain or base64, are kept: the cluster CA
// is public and needed.
//
// # Default rules and decisions
//
// DefaultRules, in order: private-key, aws-access-key-id, aws-secret-key,
// aws-session-token, aws-signature, kubeconfig-credential, docker-auth,
// authorization-header, bearer-token, eks-token, jwt, url-credentials,
// github-token, gitlab-token, slack-token, bootstrap-token, cli-password,
// password-assignment. Choices made:
//
//   - AWS key ids: AKIA, ASIA, ABIA and ACCA ids go. AROA, AIDA, ANPA, AGPA
//     and the like are unique ids of roles, users and policies, shown in ARNs
//     and CloudTrail; they are not credentials and stay.
//   - Secret keys and session tokens go after aws_secret_access_key,
//     AWS_SECRET_ACCESS_KEY, SecretAccessKey, AWS_SESSION_TOKEN, SessionToken,
//     X-Amz-Security-Token and the "Token" of IMDS/STS credential documents,
//     with '=', ':', JSON quotes, a space, or a comma (argument lists such
//     as cloud-init's "Running command ['aws', 'configure', 'set', ...]").
//     X-Amz-Signature of presigned URLs goes too.
//   - Passwords and friends (password-assignment): values of KEY=VALUE,
//     export KEY=..., KEY: value (YAML, HTTP headers), "key": "value",
//     key = \"value\" (TOML inside a JSON string), --flag=value, --flag
//     value, argument lists ('--flag', 'value' and [--flag, value]), Go's
//     {Field:value}, and the "value:" line that follows a "name: KEY" line
//     in a YAML name/value list (container and kubeconfig exec env), when
//     the key name holds a password, secret, token, credential or auth
//     word, or a qualified key (api_key, tls.key, clientKey). The key
//     stays, the value goes.
//     Not redacted, so diagnosis keeps them: a bare "key" (Kubernetes taints,
//     selectors, klog key="ns/name"), names that describe a secret instead of
//     holding it (tokenFile, --token-auth-file, secretName, secretRef,
//     keyUsage, kmsKeyId, AWS_ACCESS_KEY_ID, token_ttl, authorization-mode,
//     --authentication-token-webhook ...), "authority", "authorization",
//     "authentication" (so certificateAuthority and
//     certificate-authority-data stay: the CA is public), and values that are
//     booleans, null, masks (****), references ($VAR, ${VAR}, {{ tmpl }},
//     <placeholder>) or lower-case absolute paths (--kubeconfig,
//     --client-key /var/lib/kubelet/pki/x.pem). A prose line such as "failed
//     to get token: timeout" is kept: the YAML form is only recognised at the
//     start of a line, after a syslog "prog[pid]: " prefix, after an escaped
//     newline or in a flow mapping.
//   - Environments written as name/value objects go the same way, the
//     name deciding: {"name":"KEY","value":"..."} on one line (Kubernetes,
//     ECS, CodeBuild), keys in either order, blanks or other scalar
//     members between them, plain or escaped inside a JSON string;
//     pretty-printed JSON with "name" and "value" on consecutive lines at
//     the same column; kubelet's Go form of a container spec
//     (EnvVar{Name:KEY,Value:...,ValueFrom:nil,}). A KEY=value string in a JSON or Python list ("Env":
//     [...] of ctr containers info and docker inspect) loses everything up
//     to its closing quote, blanks included. Plain entries such as
//     {"name":"LOG_LEVEL","value":"debug"} and
//     AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=true stay.
//     Not handled: "value" before "name" on separate lines (the stream
//     would have to hold a line back), name/value objects with more than
//     16 members, and Go maps (map[name:KEY
//     value:...]).
//   - user:password flags: --creds, --src-creds and --dest-creds (crictl,
//     podman, skopeo) lose the password and keep the user ("AWS" says it
//     was an ECR token); crictl --auth (base64 of user:password) goes
//     whole. cli-password covers flags whose names say nothing: the
//     password of -u/--user user:password and -U/--proxy-user, and the -p
//     of a "login" command (docker, nerdctl, helm registry ... login -p).
//     -u means uid:gid or user:group to docker, nerdctl and ctr run, so a
//     password goes only when it looks generated (20 bytes or more of
//     base64 or URL-safe characters mixing upper case, lower case and
//     digits: every ECR password) or when the command is curl or a ctr
//     pull, push or fetch; two numbers (-u 1000:1000) and a bare user
//     (--user root) always stay, as do unexpanded references
//     (AWS:$(aws ecr get-login-password)). Attached forms (-uuser:pw,
//     -ppassword) are not handled.
//   - kubeconfig: token, client-key-data, client-certificate-data, id-token,
//     refresh-token and access-token values go; certificate-authority-data
//     stays.
//   - Bootstrap tokens ([a-z0-9]{6}.[a-z0-9]{16}, word-bounded) go; so do JWTs,
//     EKS tokens (k8s-aws-v1.<presigned URL>), Bearer tokens, Authorization
//     and Proxy-Authorization values (the scheme stays), GitHub, GitLab and
//     Slack tokens, and docker config "auth", "identitytoken" and
//     "registrytoken".
//   - URLs with credentials keep scheme, user and host; only the password
//     goes. A token used as the user name is left to the token rules.
//   - Public keys (ssh-rsa AAAA...) stay; they are not secrets.
//   - Look-alikes that stay: CA certificates, sha256 digests, 64-hex image
//     and container ids, UUIDs, instance, ENI and AMI ids, account ids, ARNs,
//     IP addresses, host names, kubelet flags such as --node-labels.
//
// User rules (LoadRules, NewRule) come in a file, one "name: <RE2 regex>" per
// line; a group named "secret" limits the replacement to that group.
//
// # Speed
//
// Most log lines hold no secret-looking word. Each rule carries lower-case
// literals or a cheap gate (a shape scan for bootstrap tokens, a scan for
// "name=" / "name:" around sensitive names); a line is lower-cased once,
// all literals are found in one table-driven pass, and only the rules whose
// literal occurs or whose gate passes run. password-assignment and
// cli-password are linear scanners rather than regular expressions, so long
// lines stay cheap; the name/value object scan runs only on lines holding
// "value" in quotes, cli-password only on lines holding "-u" or "login".
// BenchmarkWriter reports MB/s on typical node logs.
//
// # Pseudonymizer
//
// Pseudonymizer (opt-in) replaces IPv4 and IPv6 addresses, EC2 host names
// that embed an address (ip-10-0-1-2.ec2.internal, ec2-54-1-2-3...), 12-digit
// AWS account ids and instance ids with pseudonyms that are consistent across
// every stream of a bundle and keep their form: 10.0.1.2 becomes 10.255.0.1
// and ip-10-0-1-2 becomes ip-10-255-0-1. Special addresses stay (loopback,
// link-local such as IMDS 169.254.169.254, multicast, netmasks), as do
// network addresses written as CIDRs (10.0.0.0/16), so the layout of subnets
// is still readable; host addresses do not keep their subnet. A bare 12-digit
// number is taken for an account id, so a 12-digit quantity (say a byte count
// between 93 and 931 GiB) is replaced too, consistently. Map returns the
// mapping, which belongs outside the bundle.
package redact
