package source

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func gzipped(t *testing.T, text string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(text))
	zw.Close()
	return b.String()
}

func TestFilesCopies(t *testing.T) {
	secret := hostSecret(t)
	root := makeTree(t, map[string]string{
		"var/log/messages":                                     numberedLines(1000),
		"var/log/aws-routed-eni/ipamd.log":                     "ipamd line\n",
		"var/log/aws-routed-eni/ipamd-2026-11-27.log.gz":       "",
		"var/log/pods/kube-system_aws-node-1_u/aws-node/0.log": "pod line\n",
		"var/log/pods/kube-system_aws-node-1_u/evil.log":       "->" + secret,
		"var/lib/cloud/data/result.json":                       `{"v1":{}}`,
		"etc/eks/big.bin":                                      strings.Repeat("x", 5000),
		"etc/eks/release":                                      "ARCH=x86_64\n",
	})
	gz := filepath.Join(root, "var/log/aws-routed-eni/ipamd-2026-11-27.log.gz")
	if err := os.WriteFile(gz, []byte(gzipped(t, "rotated ipamd line\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	tree := openTree(t, root)
	tests := []struct {
		name    string
		copies  []Copy
		want    map[string]string // bundle path → content ("" = only exists)
		wantErr error
	}{
		{"tail of a big log", []Copy{{From: "/var/log/messages", To: "var_log/messages", Tail: 100}},
			map[string]string{"var_log/messages": ""}, nil},
		{"folder with rotated gz", []Copy{{From: "/var/log/aws-routed-eni", To: "var_log/aws-routed-eni", Dir: true}},
			map[string]string{"var_log/aws-routed-eni/ipamd.log": "ipamd line\n", "var_log/aws-routed-eni/ipamd-2026-11-27.log": "rotated ipamd line\n"}, nil},
		{"wildcard folders keep their name, links outside are not read", []Copy{{From: "/var/log/pods/kube-system_aws-node*", To: "var_log", Dir: true}},
			map[string]string{"var_log/kube-system_aws-node-1_u/aws-node/0.log": "pod line\n"}, nil},
		{"fallback used when the first place is missing", []Copy{
			{From: "/run/cloud-init/result.json", To: "cloud-init/result.json"},
			{From: "/var/lib/cloud/data/result.json", To: "cloud-init/result.json", Fallback: true}},
			map[string]string{"cloud-init/result.json": `{"v1":{}}`}, nil},
		{"big files skipped in config folders", []Copy{{From: "/etc/eks", To: "eks", Dir: true, SkipOver: 1000}},
			map[string]string{"eks/release": "ARCH=x86_64\n"}, nil},
		{"nothing there", []Copy{{From: "/var/log/syslog", To: "var_log/syslog"}}, nil, ErrSkipped},
		{"live-only under --root", []Copy{{From: "/proc/stat", To: "system/procstat.txt", LiveOnly: true}}, nil, ErrSkipped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStage(t, StageOptions{})
			err := NewFiles("files", tree, tt.copies...).Collect(context.Background(), s.Sink("files"))
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("Collect = %v, want %v", err, tt.wantErr)
			}
			var got []string
			for _, r := range s.Records() {
				got = append(got, r.Path)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("staged %v, want %d files", got, len(tt.want))
			}
			for p, content := range tt.want {
				text := readStaged(t, s, p)
				if content != "" && text != content {
					t.Errorf("%s = %q, want %q", p, text, content)
				}
				if strings.Contains(text, "HOST-ONLY") {
					t.Errorf("%s holds a file of the host", p)
				}
			}
		})
	}
}

func TestFilesTailRecordsTheOriginalSize(t *testing.T) {
	text := numberedLines(20000) // 420,000 bytes
	root := makeTree(t, map[string]string{"var/log/messages": text})
	s := newTestStage(t, StageOptions{MaxFileBytes: 10000})
	src := NewFiles("m", openTree(t, root), Copy{From: "/var/log/messages", To: "var_log/messages", Tail: 10000})
	if err := src.Collect(context.Background(), s.Sink("m")); err != nil {
		t.Fatal(err)
	}
	rec := record(t, s, "var_log/messages")
	got := readStaged(t, s, "var_log/messages")
	if rec.OriginalBytes != int64(len(text)) || !rec.Truncated || rec.Bytes > 10000 {
		t.Fatalf("record = %+v", rec)
	}
	if !strings.HasSuffix(got, "line 20000 of the log\n") || !strings.HasPrefix(got, "line ") {
		t.Fatalf("kept part is not the newest whole lines: %.60q", got)
	}
}
