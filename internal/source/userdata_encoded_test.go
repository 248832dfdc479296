package source

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/nodetriage/nodetriage/internal/redact"
	"github.com/nodetriage/nodetriage/internal/userdata"
)

const (
	udSecret = "Zq9vX2mK4pL7-userdata"
	udScript = "#!/bin/bash\nexport DB_PASSWORD=" + udSecret + "\n/usr/bin/nodeadm init\n"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func gzipString(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

// wrap76 lays base64 out over lines as MIME writers do.
func wrap76(s string) string {
	var lines []string
	for len(s) > 76 {
		lines = append(lines, s[:76])
		s = s[76:]
	}
	return strings.Join(append(lines, s), "\n")
}

func indent(prefix, text string) string {
	return prefix + strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n"+prefix) + "\n"
}

func mimeUserData(parts ...string) string {
	var b strings.Builder
	b.WriteString("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BOUNDARY\"\n\n")
	for _, p := range parts {
		b.WriteString("--BOUNDARY\n" + p + "\n")
	}
	b.WriteString("--BOUNDARY--\n")
	return b.String()
}

const nodeConfigPart = "Content-Type: application/node.eks.aws\n\n---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: c\n"

func TestStageUserDataRedactsEncodedParts(t *testing.T) {
	gz := gzipString(t, udScript)
	tests := []struct {
		name string
		raw  string
		keep string // text that must stay in the staged copy as it was
	}{
		{"base64 part with transfer encoding", mimeUserData(nodeConfigPart,
			"Content-Type: text/x-shellscript\nContent-Transfer-Encoding: base64\n\n"+wrap76(b64(strings.Repeat("# pad\n", 20)+udScript))), "kind: NodeConfig"},
		{"gzip+base64 part, sniffed", mimeUserData("Content-Type: text/x-shellscript\n\n"+wrap76(b64(gz)), nodeConfigPart), "kind: NodeConfig"},
		{"base64 blob", b64(mimeUserData(nodeConfigPart, "Content-Type: text/x-shellscript\n\n"+udScript)), ""},
		{"base64 blob of gzip", wrap76(b64(gz)) + "\n", ""},
		{"double base64 blob", b64(b64(udScript)), ""},
		{"gzip blob staged decoded", gz, ""},
		{"indented message", indent("  ", mimeUserData("Content-Type: text/x-shellscript\nContent-Transfer-Encoding: base64\n\n"+wrap76(b64(udScript+strings.Repeat("# pad\n", 20))))), "BOUNDARY"},
		{"crlf line ends", strings.ReplaceAll(mimeUserData("Content-Type: text/x-shellscript\nContent-Transfer-Encoding: base64\n\n"+b64(udScript)), "\n", "\r\n"), "BOUNDARY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig, err := userdata.Parse([]byte(tt.raw))
			if err != nil {
				t.Fatal(err)
			}
			if !hasEncoding(orig) {
				t.Fatalf("the fixture has nothing encoded: %+v", orig)
			}
			s := newTestStage(t, StageOptions{Filter: redactFilter{redact.New(redact.DefaultRules())}})
			if err := StageUserData(s.Sink("userdata"), "userdata/user-data.txt", []byte(tt.raw), nil); err != nil {
				t.Fatal(err)
			}
			staged := readStaged(t, s, "userdata/user-data.txt")
			got, err := userdata.Parse([]byte(staged))
			if err != nil {
				t.Fatal(err)
			}
			if !hasEncoding(got) && isText([]byte(tt.raw)) {
				t.Fatalf("the staged copy lost its encoding: %q", staged)
			}
			if strings.Contains(staged, udSecret) || strings.Contains(string(got.Decoded), udSecret) {
				t.Fatalf("secret in the staged copy: %q", staged)
			}
			for _, p := range got.Parts {
				if bytes.Contains(p.Body, []byte(udSecret)) {
					t.Fatalf("secret in part %d: %q", p.Index, p.Body)
				}
			}
			if len(got.Parts) != len(orig.Parts) || got.MIME != orig.MIME {
				t.Fatalf("parts %d (MIME %v), want %d (MIME %v)", len(got.Parts), got.MIME, len(orig.Parts), orig.MIME)
			}
			for i := range got.Parts {
				if got.Parts[i].Kind != orig.Parts[i].Kind || got.Parts[i].Encoding != orig.Parts[i].Encoding {
					t.Errorf("part %d: %s/%s, want %s/%s", i+1, got.Parts[i].Kind, got.Parts[i].Encoding, orig.Parts[i].Kind, orig.Parts[i].Encoding)
				}
			}
			if tt.keep != "" && !strings.Contains(staged, tt.keep) {
				t.Errorf("staged copy lost %q", tt.keep)
			}
			if isText([]byte(tt.raw)) && got.Encoding != orig.Encoding {
				t.Errorf("blob encoding %q, want %q", got.Encoding, orig.Encoding)
			}
			if record(t, s, "userdata/user-data.txt").Redactions[redact.RulePasswordAssignment] == 0 {
				t.Errorf("the redaction is not counted: %+v", record(t, s, "userdata/user-data.txt"))
			}
		})
	}
}

func TestStageUserDataUnchangedWithoutSecrets(t *testing.T) {
	raw := mimeUserData(nodeConfigPart, "Content-Type: text/x-shellscript\nContent-Transfer-Encoding: base64\n\n"+b64("#!/bin/bash\necho hello\n"))
	s := newTestStage(t, StageOptions{Filter: redactFilter{redact.New(redact.DefaultRules())}})
	if err := StageUserData(s.Sink("userdata"), "u.txt", []byte(raw), nil); err != nil {
		t.Fatal(err)
	}
	if got := readStaged(t, s, "u.txt"); got != raw {
		t.Fatalf("copy changed:\n%q\nwant\n%q", got, raw)
	}
	// Binary that does not decode to text is not staged.
	err := StageUserData(s.Sink("userdata"), "bin.txt", []byte{0x00, 0x01, 0xff}, nil)
	if !errors.Is(err, ErrNotText) {
		t.Fatalf("binary user data: %v, want ErrNotText", err)
	}
}

func TestPartBodySpan(t *testing.T) {
	data := []byte("h\n\n--B\nContent-Type: x\n\nbody1\nbody2\r\n--B\n\nlast\n  --B--  \n")
	tests := []struct {
		line int
		want string
		ok   bool
	}{
		{6, "body1\nbody2", true},
		{10, "last", true},
		{13, "", false}, // past the end
		{0, "", false},
	}
	for _, tt := range tests {
		start, end, ok := partBodySpan(data, "B", tt.line)
		if ok != tt.ok || (ok && string(data[start:end]) != tt.want) {
			t.Errorf("line %d: %q %v, want %q %v", tt.line, data[start:end], ok, tt.want, tt.ok)
		}
	}
	if _, _, ok := partBodySpan(data, "", 7); ok {
		t.Error("empty boundary accepted")
	}
}

// FuzzStageUserData stages fuzzed user data with a planted secret inside a
// base64 part. Properties: no panic; when the copy is staged, the secret is
// in none of its parts once decoded, and the copy parses to the same parts.
func FuzzStageUserData(f *testing.F) {
	f.Add("#!/bin/bash\necho hi\n", uint8(0))
	f.Add(nodeConfigPart, uint8(1))
	f.Add("Content-Type: text/x-shellscript\nContent-Transfer-Encoding: base64\n\n", uint8(2))
	f.Add("--BOUNDARY\n\n--BOUNDARY--", uint8(3))
	f.Add("\xff\x00 binary", uint8(4))
	filter := redactFilter{redact.New(redact.DefaultRules())}
	f.Fuzz(func(t *testing.T, extra string, layout uint8) {
		part := "Content-Type: text/x-shellscript\nContent-Transfer-Encoding: base64\n\n" + wrap76(b64(extra+"\n"+udScript))
		if layout%2 == 1 {
			part = "Content-Type: text/x-shellscript\n\n" + wrap76(b64(gzipString(t, udScript+extra)))
		}
		var raw string
		switch layout % 4 {
		case 0, 1:
			raw = mimeUserData(extra, part)
		case 2:
			raw = mimeUserData(part, extra)
		case 3:
			raw = b64(mimeUserData(part)) + extra
		}
		s := newTestStage(t, StageOptions{Filter: filter})
		err := StageUserData(s.Sink("userdata"), "u.txt", []byte(raw), nil)
		if err != nil {
			if !errors.Is(err, ErrReencode) && !errors.Is(err, ErrNotText) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		staged := readStaged(t, s, "u.txt")
		orig, _ := userdata.Parse([]byte(raw))
		got, _ := userdata.Parse([]byte(staged))
		if orig == nil || got == nil {
			return
		}
		if len(got.Parts) != len(orig.Parts) {
			t.Fatalf("%d parts, want %d", len(got.Parts), len(orig.Parts))
		}
		for _, p := range got.Parts {
			if reencodable(p.Encoding) && bytes.Contains(p.Body, []byte(udSecret)) {
				t.Fatalf("secret survived in part %d: %q", p.Index, p.Body)
			}
		}
	})
}
