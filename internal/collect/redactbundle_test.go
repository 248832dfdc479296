package collect

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// awsBundle writes a bundle shaped like one of eks-log-collector.sh: a
// tar.gz whose members start with "./", one of them a rotated .gz log.
func awsBundle(t *testing.T, dir string, members map[string]string) string {
	t.Helper()
	p := filepath.Join(dir, "eks_i-0a1b2c3d4e5f60718_2026-11-28_0330-UTC_0.7.9.tar.gz")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, content := range members {
		if err := tw.WriteHeader(&tar.Header{Name: "./" + name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(content))
	}
	tw.Close()
	zw.Close()
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRedactBundleFromTheAWSCollector(t *testing.T) {
	const key, password = "AKIAIOSFODNN7EXAMPLE", "hunter2-Very-Secret"
	dir := t.TempDir()
	in := awsBundle(t, dir, map[string]string{
		"kubelet/kubelet.log":                   "I1128 kubelet started\nDB_PASSWORD=" + password + "\n",
		"var_log/cloud-init-output.log":         "export AWS_ACCESS_KEY_ID=" + key + "\n",
		"var_log/aws-routed-eni/ipamd.log.1.gz": gzipped(t, "rotated line with aws_access_key_id="+key+"\n"),
		"system/instance-id.txt":                "i-0a1b2c3d4e5f60718\n",
	})
	res, err := RedactBundle(context.Background(), RedactOptions{Input: in, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(res.Path) != "eks_i-0a1b2c3d4e5f60718_2026-11-28_0330-UTC_0.7.9_redacted.tar.gz" || filepath.Dir(res.Path) != dir {
		t.Fatalf("redacted bundle at %s", res.Path)
	}
	b := readBundle(t, res.Path)
	for p, data := range b.members {
		if strings.Contains(data, key) || strings.Contains(data, password) {
			t.Errorf("%s still holds a planted secret", p)
		}
	}
	if !strings.Contains(b.members["var_log/aws-routed-eni/ipamd.log.1"], "rotated line") {
		t.Errorf("the .gz member was not stored decompressed: %v", keysOf(b.members))
	}
	if b.members["system/instance-id.txt"] != "i-0a1b2c3d4e5f60718\n" {
		t.Errorf("instance id changed: %q", b.members["system/instance-id.txt"])
	}
	counted := map[string]bool{}
	for _, c := range b.manifest.Redaction.Counts {
		counted[c.File] = c.Count > 0
	}
	for _, f := range []string{"kubelet/kubelet.log", "var_log/cloud-init-output.log", "var_log/aws-routed-eni/ipamd.log.1"} {
		if !counted[f] {
			t.Errorf("no redaction counted for %s: %+v", f, b.manifest.Redaction.Counts)
		}
	}

	// Again: the name is taken, so the second copy gets its own.
	again, err := RedactBundle(context.Background(), RedactOptions{Input: in})
	if err != nil || again.Path == res.Path {
		t.Fatalf("second run: %v, %s", err, again.Path)
	}
}

func TestRedactBundleErrors(t *testing.T) {
	if _, err := RedactBundle(context.Background(), RedactOptions{Input: filepath.Join(t.TempDir(), "missing.tar.gz")}); !errors.Is(err, ErrInput) {
		t.Errorf("missing input: %v, want ErrInput", err)
	}
	in := awsBundle(t, t.TempDir(), map[string]string{"a.txt": "x"})
	rules := filepath.Join(t.TempDir(), "rules.txt")
	os.WriteFile(rules, []byte("broken: (unclosed\n"), 0o600)
	_, err := RedactBundle(context.Background(), RedactOptions{Input: in, RedactRules: rules})
	if !errors.Is(err, ErrInvalidUsage) || !strings.Contains(err.Error(), "rules.txt") {
		t.Errorf("bad rules: %v", err)
	}
}

func gzipped(t *testing.T, text string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(text))
	zw.Close()
	return b.String()
}

func keysOf(m map[string]string) []string {
	var k []string
	for p := range m {
		k = append(k, p)
	}
	return k
}
