package userdata

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

type wantPart struct {
	kind      Kind
	media     string
	encoding  string
	seen      bool
	fileName  string
	hasConfig bool
}

func TestParseFixtures(t *testing.T) {
	shell := func(name string) wantPart {
		return wantPart{kind: KindShell, media: "text/x-shellscript", fileName: name}
	}
	nodeConfig := func(name, enc string, seen bool) wantPart {
		return wantPart{kind: KindNodeConfig, media: NodeConfigMediaType, encoding: enc, seen: seen, fileName: name, hasConfig: true}
	}
	tests := []struct {
		file     string
		encoding string
		mime     bool
		boundary string
		parts    []wantPart
		codes    []string
	}{
		{
			file: "al2023-custom-networking-broken.mime", mime: true, boundary: "==MYBOUNDARY==",
			parts: []wantPart{shell("part-1.sh")},
			codes: []string{CodeConfigSourceMissing, CodeNodeadmInitInUserData, CodeShellLabelUnexpanded},
		},
		{
			file: "al2023-custom-networking-fixed.mime", mime: true, boundary: "==MYBOUNDARY==",
			parts: []wantPart{shell("part-1.sh")},
			codes: []string{CodeNodeadmInitInUserData, CodeShellLabelUnexpanded},
		},
		{file: "nodeconfig-plain.yaml", parts: []wantPart{nodeConfig("part-1.nodeadm.yaml", "", true)}},
		{file: "nodeconfig-plain.json", parts: []wantPart{nodeConfig("part-1.nodeadm.json", "", true)}},
		{
			file: "mime-nodeconfig.txt", mime: true, boundary: "//",
			parts: []wantPart{nodeConfig("part-1.nodeadm.yaml", "", true), shell("part-2.sh")},
		},
		{
			file: "mime-mixed.txt", mime: true, boundary: "BOUNDARY",
			parts: []wantPart{
				{kind: KindUnknown, media: "text/cloud-boothook", fileName: "part-1.txt"},
				{kind: KindCloudConfig, media: "text/cloud-config", fileName: "part-2.cloud-config.yaml"},
				nodeConfig("part-3.nodeadm.yaml", "", true),
				nodeConfig("part-4.nodeadm.yaml", "", true),
				shell("part-5.sh"),
			},
		},
		{
			file: "mime-base64-part.txt", mime: true, boundary: "==MYBOUNDARY==",
			parts: []wantPart{nodeConfig("part-1.nodeadm.yaml", "base64", true), shell("part-2.sh")},
		},
		{
			file: "mime-gzip-base64-part.txt", mime: true, boundary: "==MYBOUNDARY==",
			parts: []wantPart{nodeConfig("part-1.nodeadm.yaml", "base64+gzip", true)},
		},
		{
			file: "mime-missing-blank-line.txt", mime: true, boundary: "//",
			parts: []wantPart{nodeConfig("part-1.nodeadm.yaml", "", false)},
			codes: []string{CodeMIMEMissingBlankLine},
		},
		{
			file: "mime-missing-blank-line-shell.txt", mime: true, boundary: "//",
			parts: []wantPart{nodeConfig("part-1.nodeadm.yaml", "", false), shell("part-2.sh")},
			codes: []string{CodeMIMEMissingBlankLine},
		},
		{
			file: "mime-wrong-content-type.txt", mime: true, boundary: "//",
			parts: []wantPart{{kind: KindNodeConfig, media: "text/x-shellscript", fileName: "part-1.nodeadm.yaml", hasConfig: true}},
			codes: []string{CodeMIMEWrongContentType},
		},
		{
			file: "mime-glued-headers.txt", mime: true, boundary: "//",
			parts: []wantPart{nodeConfig("part-1.nodeadm.yaml", "", false)},
			codes: []string{CodeMIMEGluedHeaders, CodeNodeConfigCANotPEM},
		},
		{
			file: "mime-no-boundary.txt", mime: true, boundary: "B1",
			parts: []wantPart{nodeConfig("part-1.nodeadm.yaml", "", false)},
			codes: []string{CodeMIMENoBoundary},
		},
		{
			file: "mime-boundary-not-found.txt", mime: true, boundary: "==MYBOUNDARY==",
			parts: []wantPart{nodeConfig("part-1.nodeadm.yaml", "", false)},
			codes: []string{CodeMIMEBoundaryNotFound},
		},
		{
			file: "mime-missing-close.txt", mime: true, boundary: "//",
			parts: []wantPart{nodeConfig("part-1.nodeadm.yaml", "", false)},
			codes: []string{CodeMIMEMissingClose},
		},
		{
			file: "mime-leading-blank.txt", mime: true, boundary: "//",
			parts: []wantPart{nodeConfig("part-1.nodeadm.yaml", "", false)},
			codes: []string{CodeMIMELeadingBlank},
		},
		{
			file: "mime-indented.txt", mime: true, boundary: "//",
			parts: []wantPart{nodeConfig("part-1.nodeadm.yaml", "", false)},
			codes: []string{CodeMIMEIndentedHeaders},
		},
		{
			file: "userdata-base64.txt", encoding: "base64", mime: true, boundary: "//",
			parts: []wantPart{nodeConfig("part-1.nodeadm.yaml", "", true)},
		},
		{file: "al2-bootstrap.sh", parts: []wantPart{shell("part-1.sh")}},
		{
			file: "al2-bootstrap-seed.sh", parts: []wantPart{shell("part-1.sh")},
			codes: []string{CodeBootstrapMangledDash, CodeBootstrapUnexpanded, CodeShellUndefinedVariable},
		},
		{
			file: "al2-bootstrap-bad-values.sh", parts: []wantPart{shell("part-1.sh")},
			codes: []string{CodeBootstrapBadDNSIP, CodeBootstrapCAExpired, CodeBootstrapRuntime, CodeBootstrapEndpointHTTPS},
		},
		{file: "cloud-config.yaml", parts: []wantPart{{kind: KindCloudConfig, media: "text/cloud-config", fileName: "part-1.cloud-config.yaml"}}},
		{
			file: "shell-two-slashes.sh", parts: []wantPart{shell("part-1.sh")},
			codes: []string{CodeConfigSourceTwoSlashes, CodeNodeadmInitInUserData},
		},
		{
			file: "shell-quoted-heredoc.sh", parts: []wantPart{shell("part-1.sh")},
			codes: []string{CodeNodeConfigUnexpanded, CodeShellQuotedHeredocVars},
		},
		{file: "shell-dropin.sh", parts: []wantPart{shell("part-1.sh")}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			u, err := Parse(readFixture(t, tc.file))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if u.Encoding != tc.encoding || u.MIME != tc.mime || u.Boundary != tc.boundary {
				t.Errorf("encoding/mime/boundary = %q/%v/%q, want %q/%v/%q", u.Encoding, u.MIME, u.Boundary, tc.encoding, tc.mime, tc.boundary)
			}
			if len(u.Parts) != len(tc.parts) {
				t.Fatalf("got %d parts, want %d", len(u.Parts), len(tc.parts))
			}
			for i, want := range tc.parts {
				checkPart(t, u.Parts[i], i+1, want)
			}
			got := codes(u.Check(testNow))
			want := sorted(tc.codes)
			if !slices.Equal(got, want) {
				t.Errorf("problem codes = %v, want %v\n%s", got, want, describe(u.Check(testNow)))
			}
		})
	}
}

func checkPart(t *testing.T, p Part, index int, want wantPart) {
	t.Helper()
	if p.Index != index || p.Kind != want.kind || p.MediaType != want.media || p.Encoding != want.encoding || p.SeenByNodeadm != want.seen {
		t.Errorf("part %d = {index %d kind %s media %q enc %q seen %v}, want {kind %s media %q enc %q seen %v}",
			index, p.Index, p.Kind, p.MediaType, p.Encoding, p.SeenByNodeadm, want.kind, want.media, want.encoding, want.seen)
	}
	if got := p.FileName(); got != want.fileName {
		t.Errorf("part %d FileName = %q, want %q", index, got, want.fileName)
	}
	if (p.NodeConfig != nil) != want.hasConfig {
		t.Errorf("part %d NodeConfig set = %v, want %v", index, p.NodeConfig != nil, want.hasConfig)
	}
	if want.kind == KindShell && p.Shell == nil {
		t.Errorf("part %d: shell part without Shell analysis", index)
	}
}

func describe(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintln(&b, p)
	}
	return b.String()
}

func TestParseEmpty(t *testing.T) {
	for _, raw := range [][]byte{nil, {}} {
		u, err := Parse(raw)
		if !errors.Is(err, ErrNoUserData) || u != nil {
			t.Errorf("Parse(%q) = %v, %v; want nil, ErrNoUserData", raw, u, err)
		}
	}
}

func TestParseWhitespaceOnly(t *testing.T) {
	u, err := Parse([]byte("\n  \n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Parts) != 1 || u.Parts[0].Kind != KindEmpty {
		t.Fatalf("parts = %+v, want one empty part", u.Parts)
	}
	if _, ok := u.NodeConfig(); ok {
		t.Error("an empty user data must not yield a NodeConfig")
	}
}

func TestParseBlobEncodings(t *testing.T) {
	plain := readFixture(t, "mime-nodeconfig.txt")
	gz := gzipBytes(t, plain)
	b64 := []byte(base64.StdEncoding.EncodeToString(plain))
	tests := []struct {
		name     string
		raw      []byte
		encoding string
		codes    []string
	}{
		{"plain", plain, "", nil},
		{"base64", b64, "base64", nil},
		{"gzip", gz, "gzip", nil},
		{"base64+gzip", []byte(base64.StdEncoding.EncodeToString(gz)), "base64+gzip", nil},
		{"double base64", []byte(base64.StdEncoding.EncodeToString(b64)), "base64+base64", []string{CodeDoubleBase64}},
		{"corrupt gzip", append([]byte{0x1f, 0x8b, 0x08}, "not really gzip"...), "", []string{CodeDecodeGzip}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := Parse(tc.raw)
			if err != nil {
				t.Fatal(err)
			}
			if u.Encoding != tc.encoding {
				t.Errorf("Encoding = %q, want %q", u.Encoding, tc.encoding)
			}
			if got := codes(u.Problems); !slices.Equal(got, sorted(tc.codes)) {
				t.Errorf("codes = %v, want %v", got, tc.codes)
			}
			if tc.codes == nil && !bytes.Equal(u.Decoded, plain) {
				t.Error("Decoded differs from the original user data")
			}
		})
	}
}

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestParseGzipBomb(t *testing.T) {
	bomb := gzipBytes(t, make([]byte, 20<<20)) // 20 MiB of zeros, ~20 KiB compressed
	part := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\n" +
		"Content-Type: application/node.eks.aws\nContent-Transfer-Encoding: base64\n\n" +
		base64.StdEncoding.EncodeToString(bomb) + "\n--B--\n"
	tests := []struct {
		name     string
		raw      []byte
		limits   Limits
		partMax  int
		blobMax  int
		wantCode bool
	}{
		{"blob, default limits", bomb, DefaultLimits, 16 << 20, 16 << 20, true},
		{"blob, small limits", bomb, Limits{PartBytes: 1000, TotalBytes: 5000}, 1000, 1000, true},
		{"part, small limits", []byte(part), Limits{PartBytes: 1000, TotalBytes: 1 << 20}, 1000, 1 << 20, true},
		{"part, total smaller than part", []byte(part), Limits{PartBytes: 1 << 20, TotalBytes: 200 << 10}, 200 << 10, 200 << 10, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := ParseLimited(tc.raw, tc.limits)
			if err != nil {
				t.Fatal(err)
			}
			if len(u.Decoded) > tc.blobMax {
				t.Errorf("Decoded is %d bytes, cap %d", len(u.Decoded), tc.blobMax)
			}
			for _, p := range u.Parts {
				if len(p.Body) > tc.partMax {
					t.Errorf("part %d body is %d bytes, cap %d", p.Index, len(p.Body), tc.partMax)
				}
			}
			if _, ok := findProblem(u.Check(testNow), CodeDecodeLimit); ok != tc.wantCode {
				t.Errorf("decode-size-limit reported = %v, want %v", ok, tc.wantCode)
			}
		})
	}
}

func TestParseMissingBlankLineLine(t *testing.T) {
	u, err := Parse(readFixture(t, "mime-missing-blank-line.txt"))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := findProblem(u.Parts[0].Problems, CodeMIMEMissingBlankLine)
	if !ok {
		t.Fatal("missing-blank-line problem not reported")
	}
	lines := strings.Split(string(u.Decoded), "\n")
	if p.Line < 1 || !strings.HasPrefix(lines[p.Line-1], "apiVersion:") {
		t.Errorf("problem line %d does not point at the first body line", p.Line)
	}
	if p.Part != 1 || p.Severity != SeverityError {
		t.Errorf("problem = %+v, want part 1, error", p)
	}
	if !strings.Contains(p.Message, "#2318") {
		t.Errorf("message should cite nodeadm issue #2318: %s", p.Message)
	}
	if got := u.Parts[0].NodeConfig.Spec.Cluster.Name; got != "billing-prod" {
		t.Errorf("recovered body should still decode; cluster name = %q", got)
	}
}

func TestUserDataNodeConfigMerge(t *testing.T) {
	u, err := Parse(readFixture(t, "mime-mixed.txt"))
	if err != nil {
		t.Fatal(err)
	}
	nc, ok := u.NodeConfig()
	if !ok {
		t.Fatal("no merged NodeConfig")
	}
	if nc.Spec.Cluster.Name != "billing-prod" {
		t.Errorf("cluster name = %q", nc.Spec.Cluster.Name)
	}
	wantLabels := map[string]string{"team": "billing", "eks.amazonaws.com/nodegroup": "billing-ng", "tier": "batch"}
	if got := nc.Labels(); !maps.Equal(got, wantLabels) {
		t.Errorf("labels = %v, want %v", got, wantLabels)
	}
	if n, ok := nc.MaxPods(); !ok || n != 58 {
		t.Errorf("MaxPods = %d, %v; want 58 from the later part", n, ok)
	}
	if _, ok := nc.Spec.Kubelet.Config["clusterDNS"]; !ok {
		t.Error("kubelet config keys of the first part must survive the merge")
	}
	if len(nc.Spec.Kubelet.Flags) != 2 {
		t.Errorf("flags = %v, want both parts' flags appended", nc.Spec.Kubelet.Flags)
	}
}

func TestUserDataNodeConfigAbsent(t *testing.T) {
	for _, file := range []string{"al2023-custom-networking-broken.mime", "mime-wrong-content-type.txt", "mime-glued-headers.txt", "cloud-config.yaml"} {
		u, err := Parse(readFixture(t, file))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := u.NodeConfig(); ok {
			t.Errorf("%s: nodeadm would find no NodeConfig, but NodeConfig() returned one", file)
		}
	}
}

func TestPartFileName(t *testing.T) {
	tests := []struct {
		part Part
		want string
	}{
		{Part{Index: 1, Kind: KindShell}, "part-1.sh"},
		{Part{Index: 2, Kind: KindNodeConfig, Body: []byte("apiVersion: x")}, "part-2.nodeadm.yaml"},
		{Part{Index: 2, Kind: KindNodeConfig, Body: []byte(" {\"kind\":\"NodeConfig\"}")}, "part-2.nodeadm.json"},
		{Part{Index: 3, Kind: KindCloudConfig}, "part-3.cloud-config.yaml"},
		{Part{Index: 4, Kind: KindUnknown, Body: []byte("text")}, "part-4.txt"},
		{Part{Index: 5, Kind: KindUnknown, Body: []byte{0xff, 0xfe, 0x00}}, "part-5.bin"},
		{Part{Index: 6, Kind: KindEmpty}, "part-6.txt"},
	}
	for _, tc := range tests {
		if got := tc.part.FileName(); got != tc.want {
			t.Errorf("FileName(%s) = %q, want %q", tc.part.Kind, got, tc.want)
		}
	}
}

func TestSniffKind(t *testing.T) {
	tests := []struct {
		body string
		kind Kind
		ct   string
	}{
		{"#!/bin/bash\necho", KindShell, "text/x-shellscript"},
		{"\xef\xbb\xbf#cloud-config\n", KindCloudConfig, "text/cloud-config"},
		{"#cloud-config-archive\n", KindUnknown, "text/cloud-config-archive"},
		{"#cloud-boothook\n", KindUnknown, "text/cloud-boothook"},
		{"#include https://example.com/x\n", KindUnknown, "text/x-include-url"},
		{"{\"apiVersion\":\"node.eks.aws/v1alpha1\"}", KindNodeConfig, NodeConfigMediaType},
		{"kind: NodeConfig\n", KindNodeConfig, NodeConfigMediaType},
		{"kind: NodeConfigList\n", KindUnknown, ""},
		{"  \n\t", KindEmpty, ""},
		{"Content-Type: text/plain\n\nx", KindMIME, ""},
		{"hello", KindUnknown, ""},
	}
	for _, tc := range tests {
		kind, ct := sniffKind([]byte(tc.body))
		if kind != tc.kind || ct != tc.ct {
			t.Errorf("sniffKind(%q) = %s, %q; want %s, %q", tc.body, kind, ct, tc.kind, tc.ct)
		}
	}
}

func TestParseCRLF(t *testing.T) {
	raw := strings.ReplaceAll(string(readFixture(t, "mime-nodeconfig.txt")), "\n", "\r\n")
	u, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Parts) != 2 || !u.Parts[0].SeenByNodeadm || u.Parts[1].Kind != KindShell {
		t.Fatalf("CRLF user data parsed as %+v", u.Parts)
	}
	if got := u.Parts[0].NodeConfig.Spec.Cluster.Name; got != "billing-prod" {
		t.Errorf("cluster name = %q", got)
	}
	if len(u.Check(testNow)) != 0 {
		t.Errorf("unexpected problems:\n%s", describe(u.Check(testNow)))
	}
}

func TestParseBadPartContentType(t *testing.T) {
	raw := "Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: application/node.eks.aws; =bad\n\n" +
		string(readFixture(t, "nodeconfig-plain.yaml")) + "--B--\n"
	u, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := findProblem(u.Check(testNow), CodeMIMEBadContentType); !ok {
		t.Error("unparsable Content-Type not reported")
	}
	if len(u.NodeadmParts()) != 0 {
		t.Error("nodeadm fails on an unparsable Content-Type, so no part is seen")
	}
}

func TestParsePartVariants(t *testing.T) {
	const nc = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n"
	wrap := func(headers, body string) []byte {
		return []byte("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"XX\"\n\n--XX\n" + headers + "\n\n" + body + "\n--XX--\n")
	}
	tests := []struct {
		name     string
		raw      []byte
		kind     Kind
		encoding string
		seen     bool
		body     string
		code     string
	}{
		{
			name: "quoted-printable", raw: wrap("Content-Type: text/x-shellscript\nContent-Transfer-Encoding: quoted-printable", "#!/bin/sh\necho a=3Db"),
			kind: KindShell, encoding: "quoted-printable", body: "#!/bin/sh\necho a=b",
		},
		{
			name: "declared base64 that is not", raw: wrap("Content-Type: "+NodeConfigMediaType+"\nContent-Transfer-Encoding: base64", nc),
			kind: KindNodeConfig, seen: true, body: nc, code: CodeBadTransferEncode,
		},
		{
			name: "no content type", raw: wrap("Content-Disposition: attachment; filename=\"nc.yaml\"", nc),
			kind: KindNodeConfig, body: nc, code: CodeMIMEWrongContentType,
		},
		{
			name: "shell labelled as NodeConfig", raw: wrap("Content-Type: "+NodeConfigMediaType, "#!/bin/bash\nnodeadm init"),
			kind: KindShell, seen: true, code: CodeMIMEWrongContentType,
		},
		{
			name: "nested multipart", raw: wrap("Content-Type: multipart/alternative; boundary=inner", "--inner\n\nx\n--inner--"),
			kind: KindMIME, code: CodeMIMENested,
		},
		{
			name: "upper-case media type", raw: wrap("Content-Type: Application/Node.EKS.aws", nc),
			kind: KindNodeConfig, seen: true, body: nc,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := Parse(tc.raw)
			if err != nil {
				t.Fatal(err)
			}
			if len(u.Parts) != 1 {
				t.Fatalf("got %d parts", len(u.Parts))
			}
			p := u.Parts[0]
			if p.Kind != tc.kind || p.Encoding != tc.encoding || p.SeenByNodeadm != tc.seen {
				t.Errorf("kind %s enc %q seen %v; want %s %q %v", p.Kind, p.Encoding, p.SeenByNodeadm, tc.kind, tc.encoding, tc.seen)
			}
			if tc.body != "" && string(p.Body) != tc.body {
				t.Errorf("body = %q, want %q", p.Body, tc.body)
			}
			if tc.code != "" {
				if _, ok := findProblem(p.Problems, tc.code); !ok {
					t.Errorf("want %s, got %v", tc.code, p.Problems)
				}
			}
		})
	}
}
