package userdata

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestParseShellSeed(t *testing.T) {
	tests := []struct {
		file        string
		initSources []string
		missing     string
	}{
		{"al2023-custom-networking-broken.mime", nil, "/etc/eks/nodeadm-config.yaml"},
		{"al2023-custom-networking-fixed.mime", []string{"file:///etc/eks/nodeadm-config.yaml"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			u, err := Parse(readFixture(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			sh := u.Parts[0].Shell
			if sh == nil || len(sh.NodeadmInits) != 1 {
				t.Fatalf("want one nodeadm init, got %+v", sh)
			}
			in := sh.NodeadmInits[0]
			if !slices.Equal(in.ConfigSources, tc.initSources) || !strings.HasPrefix(in.Command, "/usr/bin/nodeadm init") {
				t.Errorf("init = %+v", in)
			}
			if lines := strings.Split(string(u.Parts[0].Body), "\n"); !strings.HasPrefix(lines[in.Line-1], "/usr/bin/nodeadm init") {
				t.Errorf("init line %d is %q", in.Line, lines[in.Line-1])
			}
			if !slices.Equal(sh.NodeConfigFiles, []string{"/etc/eks/nodeadm-config.yaml"}) {
				t.Errorf("NodeConfigFiles = %v", sh.NodeConfigFiles)
			}
			wantLabels := map[string]string{"team": "billing", "nodegroup": "billing-ng", "eks.amazonaws.com/custom-eni-config": "billing-$AZ"}
			if !maps.Equal(sh.Labels, wantLabels) {
				t.Errorf("Labels = %v, want %v", sh.Labels, wantLabels)
			}
			if !slices.Equal(sh.UnexpandedLabels, []string{"eks.amazonaws.com/custom-eni-config"}) {
				t.Errorf("UnexpandedLabels = %v", sh.UnexpandedLabels)
			}
			if !sh.UsesIMDS || !sh.UsesIMDSv2 {
				t.Error("IMDSv2 use not detected")
			}
			path, ok := sh.MissingFileSource()
			if path != tc.missing || ok != (tc.missing != "") {
				t.Errorf("MissingFileSource = %q, %v; want %q", path, ok, tc.missing)
			}
			if tc.missing != "" {
				p, found := findProblem(in.Problems, CodeConfigSourceMissing)
				if !found || !strings.Contains(p.Message, CorrectedInit(tc.missing)) || !strings.Contains(p.Message, "no config in chain") {
					t.Errorf("config-source-missing problem = %+v", p)
				}
			}
			f := sh.WrittenFiles[0]
			if f.NodeConfig == nil || f.NodeConfig.Spec.Cluster.Name != "billing-prod" || !f.Expands {
				t.Errorf("written NodeConfig = %+v", f)
			}
		})
	}
}

func TestCorrectedInit(t *testing.T) {
	tests := map[string]string{
		"/etc/eks/nodeadm-config.yaml": "/usr/bin/nodeadm init --config-source file:///etc/eks/nodeadm-config.yaml",
		"etc/eks/x.yaml":               "/usr/bin/nodeadm init --config-source file:///etc/eks/x.yaml",
	}
	for in, want := range tests {
		if got := CorrectedInit(in); got != want {
			t.Errorf("CorrectedInit(%q) = %q, want %q", in, got, want)
		}
	}
}

const ncBody = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: c1\n"

func TestMissingFileSource(t *testing.T) {
	write := "cat > /etc/eks/x.yaml <<EOF\n" + ncBody + "EOF\n"
	tests := []struct {
		name    string
		script  string
		missing string
		codes   []string // codes of the init call, sorted
	}{
		{"no init at all", write, "/etc/eks/x.yaml", nil},
		{"default source", write + "nodeadm init\n", "/etc/eks/x.yaml", []string{CodeConfigSourceMissing, CodeNodeadmInitInUserData}},
		{"three slashes", write + "nodeadm init -c file:///etc/eks/x.yaml\n", "", []string{CodeNodeadmInitInUserData}},
		{"equals form", write + "sudo /usr/bin/nodeadm init --config-source=file:///etc/eks/x.yaml\n", "", []string{CodeNodeadmInitInUserData}},
		{"short equals", write + "nodeadm init -c=file:///etc/eks/x.yaml --config-cache /run/eks/nodeadm/config.json\n", "", []string{CodeNodeadmInitInUserData}},
		{"directory source", write + "nodeadm init --config-source imds://user-data --config-source file:///etc/eks/\n", "", []string{CodeNodeadmInitInUserData}},
		{"one slash", write + "nodeadm init -c file:/etc/eks/x.yaml\n", "", []string{CodeNodeadmInitInUserData}},
		{"two slashes", write + "nodeadm init -c file://etc/eks/x.yaml\n", "/etc/eks/x.yaml", []string{CodeConfigSourceTwoSlashes, CodeNodeadmInitInUserData}},
		{"variable path", "CFG=/etc/eks/x.yaml\ncat > $CFG <<EOF\n" + ncBody + "EOF\nnodeadm init -c \"file://${CFG}\"\n", "", []string{CodeNodeadmInitInUserData}},
		{"wrong path", write + "nodeadm init -c file:///etc/eks/y.yaml\n", "/etc/eks/x.yaml", sorted([]string{CodeConfigSourceMismatch, CodeConfigSourceMissing, CodeNodeadmInitInUserData})},
		{"plain path", write + "nodeadm init -c /etc/eks/x.yaml\n", "/etc/eks/x.yaml", []string{CodeConfigSourceMissing, CodeConfigSourceScheme, CodeNodeadmInitInUserData}},
		{"s3 scheme", write + "nodeadm init -c s3://bucket/x.yaml\n", "/etc/eks/x.yaml", []string{CodeConfigSourceMissing, CodeConfigSourceScheme, CodeNodeadmInitInUserData}},
		{"drop-in dir", "cat > /etc/eks/nodeadm.d/x.yaml <<EOF\n" + ncBody + "EOF\n", "", nil},
		{"drop-in wrong ext", "cat > /etc/eks/nodeadm.d/x.conf <<EOF\n" + ncBody + "EOF\n", "/etc/eks/nodeadm.d/x.conf", nil},
		{"commented init", write + "# nodeadm init -c file:///etc/eks/x.yaml\n", "/etc/eks/x.yaml", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sh := ParseShell([]byte(tc.script))
			path, ok := sh.MissingFileSource()
			if path != tc.missing || ok != (tc.missing != "") {
				t.Errorf("MissingFileSource = %q, %v; want %q", path, ok, tc.missing)
			}
			var got []string
			for _, in := range sh.NodeadmInits {
				got = append(got, codes(in.Problems)...)
			}
			if !slices.Equal(sorted(got), tc.codes) {
				t.Errorf("init problem codes = %v, want %v", sorted(got), tc.codes)
			}
			if tc.missing != "" && len(sh.NodeadmInits) == 0 {
				if _, found := findProblem(sh.Problems, CodeConfigSourceMissing); !found {
					t.Error("a NodeConfig file nothing reads must be reported even without nodeadm init")
				}
			}
		})
	}
}

func TestParseShellHeredocs(t *testing.T) {
	tests := []struct {
		name    string
		script  string
		path    string
		content string
		expands bool
		appends bool
	}{
		{"plain", "cat > /f <<EOF\na $X\nEOF\n", "/f", "a $X\n", true, false},
		{"redirect after", "cat <<EOF >/f\na\nEOF\n", "/f", "a\n", true, false},
		{"single quoted", "cat > /f <<'EOF'\na $X\nEOF\n", "/f", "a $X\n", false, false},
		{"double quoted", "cat > /f << \"END\"\nx\nEND\n", "/f", "x\n", false, false},
		{"backslash", "cat > /f <<\\EOF\nx\nEOF\n", "/f", "x\n", false, false},
		{"strip tabs", "cat > /f <<-EOF\n\t\tindented\n\tEOF\n", "/f", "indented\n", true, false},
		{"append", "cat >> /f <<EOF\nx\nEOF\n", "/f", "x\n", true, true},
		{"tee", "tee /f <<EOF >/dev/null\nx\nEOF\n", "/f", "x\n", true, false},
		{"tee append", "sudo tee -a /f <<EOF\nx\nEOF\n", "/f", "x\n", true, true},
		{"pipe to tee", "cat <<'EOF' | sudo tee /f > /dev/null\nx 'quoted' \"too\"\nEOF\n", "/f", "x 'quoted' \"too\"\n", false, false},
		{"body with quotes and EOF-like lines", "cat > /f <<EOF\nit's \"odd\" (\n EOF\nEOFX\nEOF\n", "/f", "it's \"odd\" (\n EOF\nEOFX\n", true, false},
		{"echo", "echo '{\"kind\":\"NodeConfig\"}' > /f\n", "/f", "{\"kind\":\"NodeConfig\"}\n", false, false},
		{"echo expands", "echo -n \"v=$X\" >> /f\n", "/f", "v=$X\n", true, true},
		{"command substitution", "X=$(cat <<EOF\nnot a file\nEOF\n)\ncat > /f <<EOF\ny\nEOF\n", "/f", "y\n", true, false},
		{"variable target", "D=/etc/eks\ncat > \"$D/f\" <<EOF\ny\nEOF\n", "/etc/eks/f", "y\n", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sh := ParseShell([]byte(tc.script))
			if len(sh.WrittenFiles) != 1 {
				t.Fatalf("WrittenFiles = %+v, want one", sh.WrittenFiles)
			}
			f := sh.WrittenFiles[0]
			if f.Path != tc.path || string(f.Content) != tc.content || f.Expands != tc.expands || f.Append != tc.appends {
				t.Errorf("got {%q %q expands=%v append=%v}, want {%q %q %v %v}", f.Path, f.Content, f.Expands, f.Append, tc.path, tc.content, tc.expands, tc.appends)
			}
		})
	}
}

func TestParseShellLines(t *testing.T) {
	script := "#!/bin/bash\n" + // 1
		"# nodeadm init in a comment\n" + // 2
		"echo \"nodeadm init in a string\"\n" + // 3
		"cat > /etc/eks/x.yaml <<EOF\n" + // 4
		ncBody + // 5-9
		"EOF\n" + // 10
		"if true; then\n" + // 11
		"  nodeadm \\\n" + // 12
		"    init -c file:///etc/eks/x.yaml\n" + // 13
		"fi\n" + // 14
		"X=\"multi\n" + // 15
		"line\" ; nodeadm init --skip run\n" + // 16
		"CFG=$(cat <<EOF\n" + // 17
		"a\nb\n" + // 18-19
		"EOF\n" + // 20
		"); nodeadm init\n" // 21
	sh := ParseShell([]byte(script))
	if len(sh.NodeadmInits) != 3 {
		t.Fatalf("inits = %+v, want 3", sh.NodeadmInits)
	}
	for i, want := range []int{12, 16, 21} {
		if got := sh.NodeadmInits[i].Line; got != want {
			t.Errorf("init %d at line %d, want %d", i, got, want)
		}
	}
	if !slices.Equal(sh.NodeadmInits[1].Skip, []string{"run"}) {
		t.Errorf("skip = %v", sh.NodeadmInits[1].Skip)
	}
	if f := sh.WrittenFiles[0]; f.Line != 4 || f.BodyLine != 5 {
		t.Errorf("written file lines = %d/%d, want 4/5", f.Line, f.BodyLine)
	}
	if sh.Variables["X"] != "multi\nline" {
		t.Errorf("X = %q", sh.Variables["X"])
	}
}

func TestParseShellUnterminated(t *testing.T) {
	tests := map[string]string{
		"heredoc":      "cat > /f <<EOF\nno end\n",
		"quote":        "echo \"never closed\nnodeadm init\n",
		"continuation": "nodeadm init \\",
	}
	for name, script := range tests {
		t.Run(name, func(t *testing.T) {
			sh := ParseShell([]byte(script))
			if _, ok := findProblem(sh.Problems, CodeShellUnterminated); !ok {
				t.Errorf("unterminated %s not reported: %v", name, sh.Problems)
			}
		})
	}
}

func TestParseShellBootstrap(t *testing.T) {
	u, err := Parse(readFixture(t, "al2-bootstrap.sh"))
	if err != nil {
		t.Fatal(err)
	}
	b := u.Parts[0].Shell.Bootstrap
	if b == nil {
		t.Fatal("bootstrap.sh call not found")
	}
	if b.Line != 6 || b.ClusterName != "billing-prod" || b.Flags["--b64-cluster-ca"] != "$B64_CLUSTER_CA" {
		t.Errorf("call = line %d name %q flags %v", b.Line, b.ClusterName, b.Flags)
	}
	if b.Expanded["--apiserver-endpoint"] != "https://ABCDEF0123456789.gr7.ap-northeast-1.eks.amazonaws.com" || b.Expanded["--dns-cluster-ip"] != "10.100.0.10" {
		t.Errorf("expanded = %v", b.Expanded)
	}
	wantLabels := map[string]string{"eks.amazonaws.com/nodegroup": "billing-ng", "team": "billing"}
	if !maps.Equal(b.Labels, wantLabels) || b.MaxPods != 58 {
		t.Errorf("labels %v max pods %d", b.Labels, b.MaxPods)
	}
	if ps := b.Validate(testNow); len(ps) != 0 {
		t.Errorf("valid call reported:\n%s", describe(ps))
	}
}

func TestParseShellBootstrapForms(t *testing.T) {
	tests := []struct {
		name    string
		script  string
		cluster string
		flags   map[string]string
		labels  map[string]string
		codes   []string
	}{
		{
			name:    "equals and quotes",
			script:  `/etc/eks/bootstrap.sh --apiserver-endpoint=https://x.example.com "my-cluster" --kubelet-extra-args "--node-labels a=b,c=d --register-with-taints=x=y:NoSchedule"`,
			cluster: "my-cluster",
			flags:   map[string]string{"--apiserver-endpoint": "https://x.example.com", "--kubelet-extra-args": "--node-labels a=b,c=d --register-with-taints=x=y:NoSchedule"},
			labels:  map[string]string{"a": "b", "c": "d"},
		},
		{
			name:    "labels from variable",
			script:  "ARGS='--node-labels=role=web'\nbash -xe /etc/eks/bootstrap.sh c1 --kubelet-extra-args \"$ARGS --max-pods=20\"",
			cluster: "c1",
			flags:   map[string]string{"--kubelet-extra-args": "$ARGS --max-pods=20"},
			labels:  map[string]string{"role": "web"},
		},
		{
			name:    "unknown flag before name",
			script:  "/etc/eks/bootstrap.sh --no-such-flag c1",
			cluster: "--no-such-flag",
			flags:   map[string]string{},
			labels:  map[string]string{},
			codes:   []string{CodeBootstrapUnknownFlag},
		},
		{
			name:    "missing value",
			script:  "/etc/eks/bootstrap.sh c1 --kubelet-extra-args",
			cluster: "c1",
			flags:   map[string]string{"--kubelet-extra-args": ""},
			labels:  map[string]string{},
			codes:   []string{CodeBootstrapMissingValue},
		},
		{
			name:    "en dash",
			script:  "/etc/eks/bootstrap.sh c1 \u2013\u2013b64-cluster-ca abc",
			cluster: "c1",
			flags:   map[string]string{},
			labels:  map[string]string{},
			codes:   []string{CodeBootstrapMangledDash},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sh := ParseShell([]byte(tc.script))
			b := sh.Bootstrap
			if b == nil {
				t.Fatal("no bootstrap call")
			}
			if b.ClusterName != tc.cluster || !maps.Equal(b.Flags, tc.flags) || !maps.Equal(b.Labels, tc.labels) {
				t.Errorf("got name %q flags %v labels %v", b.ClusterName, b.Flags, b.Labels)
			}
			if got := codes(b.Problems); !slices.Equal(got, sorted(tc.codes)) {
				t.Errorf("codes = %v, want %v", got, tc.codes)
			}
		})
	}
}

func TestShellExpand(t *testing.T) {
	sh := ParseShell([]byte("A=one\nB=\"$A-two\"\nC=$(hostname)\nD=${B}/x\nLOOP=$LOOP$LOOP\nP=/bin\nP=$P:/usr/bin\nM=$N\nN=$M\n"))
	tests := map[string]string{
		"$A":        "one",
		"${D}":      "one-two/x",
		"$C and $A": "$C and one",
		"$UNKNOWN":  "$UNKNOWN",
		"plain":     "plain",
		"$LOOP":     "$LOOP",
		"$P":        "/bin:/usr/bin",
		"$M":        "$M",
	}
	for in, want := range tests {
		if got := sh.Expand(in); got != want {
			t.Errorf("Expand(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseShellIMDS(t *testing.T) {
	tests := map[string][2]bool{
		"curl -s http://169.254.169.254/latest/meta-data/instance-id":  {true, false},
		"TOKEN=$(curl -X PUT http://169.254.169.254/latest/api/token)": {true, true},
		"AZ=$(ec2-metadata --availability-zone)":                       {true, false},
		"echo no metadata here":                                        {false, false},
		"# curl http://169.254.169.254/latest/meta-data/ (a comment)":  {false, false},
	}
	for script, want := range tests {
		sh := ParseShell([]byte(script))
		if sh.UsesIMDS != want[0] || sh.UsesIMDSv2 != want[1] {
			t.Errorf("%q: IMDS %v/%v, want %v/%v", script, sh.UsesIMDS, sh.UsesIMDSv2, want[0], want[1])
		}
	}
}
