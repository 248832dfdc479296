package userdata

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseNodeConfigPlain(t *testing.T) {
	for _, file := range []string{"nodeconfig-plain.yaml", "nodeconfig-plain.json"} {
		t.Run(file, func(t *testing.T) {
			nc, probs, err := ParseNodeConfig(readFixture(t, file))
			if err != nil || len(probs) != 0 {
				t.Fatalf("ParseNodeConfig: %v %v", err, probs)
			}
			c := nc.Spec.Cluster
			if nc.APIVersion != NodeConfigAPIVersion || nc.Kind != "NodeConfig" || c.Name != "billing-prod" ||
				c.APIServerEndpoint != "https://ABCDEF0123456789.gr7.ap-northeast-1.eks.amazonaws.com" || c.CIDR != "10.100.0.0/16" {
				t.Errorf("decoded %+v", nc)
			}
			if ps := nc.Validate(testNow); len(ps) != 0 {
				t.Errorf("valid config reported problems:\n%s", describe(ps))
			}
			expiry, ok := nc.CAExpiry()
			if want := fixtureCAExpiry(t); !ok || !expiry.Equal(want) {
				t.Errorf("CAExpiry = %v, %v; want %v", expiry, ok, want)
			}
		})
	}
}

func fixtureCAExpiry(t *testing.T) time.Time {
	t.Helper()
	block, _ := pem.Decode(readFixture(t, "ca.pem"))
	if block == nil {
		t.Fatal("ca.pem holds no PEM block")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert.NotAfter
}

func TestNodeConfigLabelsAndMaxPods(t *testing.T) {
	tests := []struct {
		name    string
		flags   []string
		config  map[string]any
		labels  map[string]string
		maxPods int
		hasPods bool
	}{
		{name: "equals form", flags: []string{"--node-labels=a=b,c=d"}, labels: map[string]string{"a": "b", "c": "d"}},
		{name: "space form", flags: []string{"--node-labels a=b"}, labels: map[string]string{"a": "b"}},
		{name: "separate item", flags: []string{"--node-labels", "a=b,c="}, labels: map[string]string{"a": "b", "c": ""}},
		{name: "later wins", flags: []string{"--node-labels=a=1", "--node-labels=a=2,b=3"}, labels: map[string]string{"a": "2", "b": "3"}},
		{name: "variable kept", flags: []string{"--node-labels=eks.amazonaws.com/custom-eni-config=${var}-$AZ"},
			labels: map[string]string{"eks.amazonaws.com/custom-eni-config": "${var}-$AZ"}},
		{name: "max pods from config", config: map[string]any{"maxPods": 110}, labels: map[string]string{}, maxPods: 110, hasPods: true},
		{name: "max pods float", config: map[string]any{"maxPods": 29.0}, labels: map[string]string{}, maxPods: 29, hasPods: true},
		{name: "flag beats config", flags: []string{"--max-pods=58"}, config: map[string]any{"maxPods": 110}, labels: map[string]string{}, maxPods: 58, hasPods: true},
		{name: "flag with space", flags: []string{"--max-pods", "17"}, labels: map[string]string{}, maxPods: 17, hasPods: true},
		{name: "no max pods", labels: map[string]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nc := &NodeConfig{Spec: NodeConfigSpec{Kubelet: KubeletOptions{Flags: tc.flags, Config: tc.config}}}
			if got := nc.Labels(); !maps.Equal(got, tc.labels) {
				t.Errorf("Labels = %v, want %v", got, tc.labels)
			}
			n, ok := nc.MaxPods()
			if n != tc.maxPods || ok != tc.hasPods {
				t.Errorf("MaxPods = %d, %v; want %d, %v", n, ok, tc.maxPods, tc.hasPods)
			}
		})
	}
}

func TestParseNodeConfigInvalid(t *testing.T) {
	tests := []struct {
		file    string
		codes   []string
		line    int // line of the first listed code, 0 = not checked
		wantErr bool
		message string // substring of the first code's message
	}{
		{file: "missing-name.yaml", codes: []string{CodeNodeConfigMissingName, CodeNodeConfigUnknownField}, line: 4, message: "Name is missing in cluster configuration"},
		{file: "bad-name.yaml", codes: []string{CodeNodeConfigBadName}, line: 5},
		{file: "bad-api-version.yaml", codes: []string{CodeNodeConfigBadAPIVersion}, line: 1, message: "node.eks.aws/v1alpha"},
		{file: "wrong-group.yaml", codes: []string{CodeNodeConfigBadAPIVersion}, message: "unexpected group: eks.amazonaws.com"},
		{file: "wrong-kind.yaml", codes: []string{CodeNodeConfigWrongKind}, line: 2, message: `failed to decode "NodeConfiguration" (wrong Kind)`},
		{file: "missing-endpoint.yaml", codes: []string{CodeNodeConfigMissingEndpoint}, message: "Apiserver endpoint is missing in cluster configuration"},
		{file: "endpoint-not-https.yaml", codes: []string{CodeNodeConfigEndpointHTTPS}, line: 6},
		{file: "missing-ca.yaml", codes: []string{CodeNodeConfigMissingCA}, message: "Certificate authority is missing in cluster configuration"},
		{file: "ca-not-base64.yaml", codes: []string{CodeNodeConfigCANotBase64}, line: 7},
		{file: "ca-not-pem.yaml", codes: []string{CodeNodeConfigCANotPEM}},
		{file: "ca-double-base64.yaml", codes: []string{CodeNodeConfigCADoubleBase64}},
		{file: "ca-expired.yaml", codes: []string{CodeNodeConfigCAExpired}, message: "2024-01-01"},
		{file: "missing-cidr.yaml", codes: []string{CodeNodeConfigMissingCIDR}, message: "CIDR is missing in cluster configuration"},
		{file: "bad-cidr.yaml", codes: []string{CodeNodeConfigBadCIDR}, line: 8, message: "10.100.0.0/33 is not a valid IP Address. error:"},
		{file: "outpost-id.yaml", codes: []string{CodeNodeConfigOutpostID}, message: "cluster ID must be provided for outposts"},
		{file: "yaml-syntax.yaml", codes: []string{CodeNodeConfigYAML}, line: 5, wantErr: true},
		{file: "wrong-type.yaml", codes: []string{CodeNodeConfigDecode}, line: 10, wantErr: true},
		{file: "unknown-field.yaml", codes: []string{CodeNodeConfigUnknownField}, line: 10, message: `did you mean "flags"?`},
		{file: "extra-documents.yaml", codes: []string{CodeNodeConfigExtraDocuments}, line: 10},
		{file: "unexpanded.yaml", codes: []string{CodeNodeConfigUnexpanded}},
		{file: "bad-local-storage.yaml", codes: []string{CodeNodeConfigBadEnum}, message: "RAID5"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			nc, probs, err := ParseNodeConfig(readFixture(t, "invalid/"+tc.file))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrInvalidNodeConfig) {
				t.Errorf("error %v does not wrap ErrInvalidNodeConfig", err)
			}
			all := append(probs, nc.Validate(testNow)...)
			if got := codes(all); !slices.Equal(got, sorted(tc.codes)) {
				t.Fatalf("codes = %v, want %v\n%s", got, tc.codes, describe(all))
			}
			first, _ := findProblem(all, tc.codes[0])
			if tc.line != 0 && first.Line != tc.line {
				t.Errorf("%s at line %d, want %d", first.Code, first.Line, tc.line)
			}
			if !strings.Contains(first.Message, tc.message) {
				t.Errorf("message %q does not contain %q", first.Message, tc.message)
			}
		})
	}
}

func TestParseNodeConfigEdgeInputs(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr bool
		code    string
	}{
		{"empty", "", true, CodeNodeConfigYAML},
		{"only separator", "---\n", true, CodeNodeConfigYAML},
		{"list", "- a\n- b\n", true, CodeNodeConfigDecode},
		{"scalar", "hello", true, CodeNodeConfigDecode},
		{"case typo", "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    Name: x\n", false, CodeNodeConfigUnknownField},
		{"duplicate key", "kind: NodeConfig\nkind: NodeConfig\n", true, CodeNodeConfigDecode},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, probs, err := ParseNodeConfig([]byte(tc.in))
			if (err != nil) != tc.wantErr {
				t.Errorf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if _, ok := findProblem(probs, tc.code); !ok {
				t.Errorf("want a %s problem, got %v", tc.code, probs)
			}
		})
	}
}

func TestValidateCANotYetValid(t *testing.T) {
	nc, _, err := ParseNodeConfig(readFixture(t, "nodeconfig-plain.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	early := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := codes(nc.Validate(early)); !slices.Equal(got, []string{CodeNodeConfigCANotYetValid}) {
		t.Errorf("codes = %v, want not-yet-valid", got)
	}
	late := time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := codes(nc.Validate(late)); !slices.Equal(got, []string{CodeNodeConfigCAExpired}) {
		t.Errorf("codes = %v, want expired", got)
	}
}

func TestValidatePEMInsteadOfBase64(t *testing.T) {
	nc := &NodeConfig{APIVersion: NodeConfigAPIVersion, Kind: "NodeConfig", Spec: NodeConfigSpec{Cluster: ClusterDetails{
		Name: "x", APIServerEndpoint: "https://x.example.com", CIDR: "10.100.0.0/16",
		CertificateAuthority: string(readFixture(t, "ca.pem")),
	}}}
	p, ok := findProblem(nc.Validate(testNow), CodeNodeConfigCANotBase64)
	if !ok || !strings.Contains(p.Message, "PEM certificate, not its base64 encoding") {
		t.Errorf("PEM pasted as certificateAuthority not explained: %+v", p)
	}
}

func TestMergeNodeConfigs(t *testing.T) {
	on := true
	a := &NodeConfig{APIVersion: NodeConfigAPIVersion, Spec: NodeConfigSpec{
		Cluster:  ClusterDetails{Name: "a", CIDR: "10.0.0.0/16"},
		Kubelet:  KubeletOptions{Flags: []string{"--v=2"}, Config: map[string]any{"maxPods": 10, "eviction": map[string]any{"a": 1}}},
		Instance: InstanceOptions{Environment: map[string]map[string]string{"default": {"A": "1"}}},
	}}
	b := &NodeConfig{Kind: "NodeConfig", Spec: NodeConfigSpec{
		Cluster:      ClusterDetails{Name: "b", EnableOutpost: &on},
		Kubelet:      KubeletOptions{Flags: []string{"--v=4"}, Config: map[string]any{"maxPods": 20, "eviction": map[string]any{"b": 2}}},
		Instance:     InstanceOptions{Environment: map[string]map[string]string{"default": {"B": "2"}}},
		FeatureGates: map[string]bool{"InstanceIdNodeName": true},
	}}
	m := MergeNodeConfigs(a, nil, b)
	if m.APIVersion != NodeConfigAPIVersion || m.Kind != "NodeConfig" || m.Spec.Cluster.Name != "b" || m.Spec.Cluster.CIDR != "10.0.0.0/16" {
		t.Errorf("scalars merged wrong: %+v", m)
	}
	if m.Spec.Cluster.EnableOutpost == nil || !*m.Spec.Cluster.EnableOutpost {
		t.Error("enableOutpost lost")
	}
	if !slices.Equal(m.Spec.Kubelet.Flags, []string{"--v=2", "--v=4"}) {
		t.Errorf("flags = %v, want appended", m.Spec.Kubelet.Flags)
	}
	if n, _ := m.MaxPods(); n != 20 {
		t.Errorf("maxPods = %d, want 20", n)
	}
	if ev := m.Spec.Kubelet.Config["eviction"].(map[string]any); len(ev) != 2 {
		t.Errorf("nested kubelet config not merged: %v", ev)
	}
	if env := m.Spec.Instance.Environment["default"]; env["A"] != "1" || env["B"] != "2" {
		t.Errorf("environment = %v", env)
	}
	if !m.Spec.FeatureGates["InstanceIdNodeName"] {
		t.Error("feature gate lost")
	}
	if len(a.Spec.Kubelet.Flags) != 1 || a.Spec.Kubelet.Config["maxPods"] != 10 {
		t.Error("merge modified its input")
	}
}
