package deploytest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite the runCommand lines of deploy/ssm/collect.yaml from deploy/ssm/collect.sh")

const (
	documentPath = "../../deploy/ssm/collect.yaml"
	scriptPath   = "../../deploy/ssm/collect.sh"
)

// ssmDocument holds every field the document may use; decoding with known
// fields only turns a misspelt key into a test failure.
type ssmDocument struct {
	SchemaVersion string                  `yaml:"schemaVersion"`
	Description   string                  `yaml:"description"`
	Parameters    map[string]ssmParameter `yaml:"parameters"`
	MainSteps     []ssmStep               `yaml:"mainSteps"`
}

type ssmParameter struct {
	Type              string  `yaml:"type"`
	Description       string  `yaml:"description"`
	Default           *string `yaml:"default"`
	AllowedPattern    string  `yaml:"allowedPattern"`
	InterpolationType string  `yaml:"interpolationType"`
}

type ssmStep struct {
	Action       string              `yaml:"action"`
	Name         string              `yaml:"name"`
	Precondition map[string][]string `yaml:"precondition"`
	Inputs       struct {
		RunCommand []string `yaml:"runCommand"`
	} `yaml:"inputs"`
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func loadDocument(t *testing.T) ssmDocument {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(readFile(t, documentPath)))
	dec.KnownFields(true)
	var doc ssmDocument
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: %v", documentPath, err)
	}
	return doc
}

// documentScript is the script as the document carries it.
func documentScript(t *testing.T) string {
	t.Helper()
	doc := loadDocument(t)
	if len(doc.MainSteps) == 0 {
		t.Fatalf("%s has no mainSteps", documentPath)
	}
	return strings.Join(doc.MainSteps[0].Inputs.RunCommand, "\n") + "\n"
}

// wantParameters lists each parameter and whether the caller must give it.
var wantParameters = map[string]bool{
	"BinaryUrl":    true,
	"BinarySha256": true,
	"Bucket":       false,
	"Prefix":       false,
	"Since":        false,
	"MaxSize":      false,
	"Timeout":      false,
	"PresignedUrl": false,
}

func TestSSMDocumentShape(t *testing.T) {
	doc := loadDocument(t)

	var raw yaml.Node
	if err := yaml.Unmarshal(readFile(t, documentPath), &raw); err != nil {
		t.Fatal(err)
	}
	if tag := mappingValue(raw.Content[0], "schemaVersion").Tag; doc.SchemaVersion != "2.2" || tag != "!!str" {
		t.Errorf("schemaVersion = %q (%s), want the string 2.2", doc.SchemaVersion, tag)
	}
	if doc.Description == "" {
		t.Error("document has no description")
	}

	for name, required := range wantParameters {
		p, ok := doc.Parameters[name]
		if !ok {
			t.Errorf("parameter %s missing", name)
			continue
		}
		if p.Type != "String" {
			t.Errorf("%s: type %q, want String", name, p.Type)
		}
		if p.Description == "" {
			t.Errorf("%s: no description", name)
		}
		if required != (p.Default == nil) {
			t.Errorf("%s: required = %v, want %v", name, p.Default == nil, required)
		}
		if p.InterpolationType != "ENV_VAR" {
			t.Errorf("%s: interpolationType %q, want ENV_VAR", name, p.InterpolationType)
		}
		pattern, err := regexp.Compile(p.AllowedPattern)
		if err != nil || !strings.HasPrefix(p.AllowedPattern, "^") || !strings.HasSuffix(p.AllowedPattern, "$") {
			t.Errorf("%s: allowedPattern %q must compile and be anchored at both ends (%v)", name, p.AllowedPattern, err)
			continue
		}
		if p.Default != nil && !pattern.MatchString(*p.Default) {
			t.Errorf("%s: default %q does not match its own allowedPattern", name, *p.Default)
		}
	}
	for name := range doc.Parameters {
		if _, ok := wantParameters[name]; !ok {
			t.Errorf("parameter %s is not known to this test; add it to wantParameters", name)
		}
	}

	if len(doc.MainSteps) != 1 {
		t.Fatalf("%d mainSteps, want 1", len(doc.MainSteps))
	}
	step := doc.MainSteps[0]
	if step.Action != "aws:runShellScript" {
		t.Errorf("action %q, want aws:runShellScript", step.Action)
	}
	if step.Name == "" {
		t.Error("step has no name")
	}
	if got := step.Precondition["StringEquals"]; !slices.Equal(got, []string{"platformType", "Linux"}) {
		t.Errorf("precondition StringEquals = %v, want [platformType Linux]", got)
	}
	if len(step.Inputs.RunCommand) == 0 {
		t.Error("runCommand is empty")
	}
}

func mappingValue(mapping *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		if mapping.Content[i].Value == key {
			return mapping.Content[i+1]
		}
	}
	return &yaml.Node{}
}

// TestSSMParameterPatterns checks that the allowedPattern of each parameter
// takes real values and turns away anything that could break out of the
// script's quoting, since older agents paste the text into the script.
func TestSSMParameterPatterns(t *testing.T) {
	doc := loadDocument(t)
	sha := strings.Repeat("0123456789abcdef", 4)
	tests := []struct {
		param string
		value string
		ok    bool
	}{
		{"BinaryUrl", "s3://my-tools/nodetriage/v1.2.0/collect", true},
		{"BinaryUrl", "https://github.com/nodetriage/nodetriage/releases/download/v1.2.0/nodetriage_v1.2.0_linux_arm64.tar.gz", true},
		{"BinaryUrl", "https://my-tools.s3.us-west-2.amazonaws.com/collect?X-Amz-Signature=ab12&X-Amz-Expires=900", true},
		{"BinaryUrl", "http://example.com/collect", false},
		{"BinaryUrl", "https://example.com/collect'; reboot; '", false},
		{"BinaryUrl", "https://example.com/$(reboot)", false},
		{"BinaryUrl", "", false},
		{"BinarySha256", sha, true},
		{"BinarySha256", strings.ToUpper(sha), false},
		{"BinarySha256", sha[:63], false},
		{"BinarySha256", sha + "\nreboot", false},
		{"Bucket", "", true},
		{"Bucket", "team-eks-bundles", true},
		{"Bucket", "Bad_Bucket", false},
		{"Bucket", "b`reboot`", false},
		{"Prefix", "", true},
		{"Prefix", "incidents/2026-03-04/", true},
		{"Prefix", "a b", false},
		{"Prefix", "x'y", false},
		{"Since", "48h", true},
		{"Since", "1h30m", true},
		{"Since", "2026-03-04T05:06:07Z", true},
		{"Since", "2026-03-04T05:06:07.5+01:00", true},
		{"Since", "2d", false},
		{"Since", "48h; reboot", false},
		{"MaxSize", "5MiB", true},
		{"MaxSize", "1048576", true},
		{"MaxSize", "0", false},
		{"MaxSize", "5 MiB", false},
		{"Timeout", "300", true},
		{"Timeout", "3000", true},
		{"Timeout", "3001", false},
		{"Timeout", "0", false},
		{"Timeout", "30s", false},
		{"PresignedUrl", "", true},
		{"PresignedUrl", "https://b.s3.eu-west-1.amazonaws.com/k/eks.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=ASIA%2F20260304%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Security-Token=IQo%2Bab%3D&X-Amz-Signature=0f", true},
		{"PresignedUrl", "http://b.s3.amazonaws.com/k", false},
		{"PresignedUrl", "https://b/k?a='b'", false},
		{"PresignedUrl", "https://b/k?a=\"$(id)\"", false},
	}
	for _, tt := range tests {
		p, ok := doc.Parameters[tt.param]
		if !ok {
			t.Fatalf("parameter %s missing", tt.param)
		}
		pattern, err := regexp.Compile(p.AllowedPattern)
		if err != nil {
			t.Fatalf("%s: %v", tt.param, err)
		}
		if got := pattern.MatchString(tt.value); got != tt.ok {
			t.Errorf("%s allowedPattern on %q: match = %v, want %v", tt.param, tt.value, got, tt.ok)
		}
	}
}

// TestSSMDocumentRunsTheScript checks that runCommand is collect.sh line for
// line. With -update it rewrites the document's runCommand from the script.
func TestSSMDocumentRunsTheScript(t *testing.T) {
	script := string(readFile(t, scriptPath))
	if *update {
		generated, err := withRunCommand(string(readFile(t, documentPath)), script)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(documentPath, []byte(generated), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := strings.Split(strings.TrimSuffix(script, "\n"), "\n")
	got := loadDocument(t).MainSteps[0].Inputs.RunCommand
	for i := range max(len(want), len(got)) {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			t.Fatalf("collect.yaml runCommand differs from collect.sh at line %d:\n script:   %q\n document: %q\nrun: go test ./internal/deploytest -run %s -update",
				i+1, w, g, t.Name())
		}
	}
}

// withRunCommand returns the document with everything after its runCommand
// key replaced by one single-quoted YAML item per script line. runCommand
// must therefore be the last key in the file.
func withRunCommand(document, script string) (string, error) {
	lines := strings.SplitAfter(document, "\n")
	for i, line := range lines {
		if strings.TrimSpace(line) != "runCommand:" {
			continue
		}
		indent := strings.Repeat(" ", len(line)-len(strings.TrimLeft(line, " "))+2)
		var out strings.Builder
		for _, l := range lines[:i+1] {
			out.WriteString(l)
		}
		for _, l := range strings.Split(strings.TrimSuffix(script, "\n"), "\n") {
			fmt.Fprintf(&out, "%s- '%s'\n", indent, strings.ReplaceAll(l, "'", "''"))
		}
		return out.String(), nil
	}
	return "", fmt.Errorf("%s: no runCommand key", documentPath)
}

// placeholder matches a {{ Name }} parameter reference as SSM writes them.
var placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_.:-]+)\s*\}\}`)

// envReference matches the environment variable an ENV_VAR parameter becomes.
var envReference = regexp.MustCompile(`\bSSM_([A-Za-z0-9]+)\b`)

func TestSSMParametersDeclaredAndUsed(t *testing.T) {
	doc := loadDocument(t)
	script := documentScript(t)
	placeholders := map[string]bool{}
	for _, m := range placeholder.FindAllStringSubmatch(script, -1) {
		placeholders[m[1]] = true
	}
	envVars := map[string]bool{}
	for _, m := range envReference.FindAllStringSubmatch(script, -1) {
		envVars[m[1]] = true
	}
	if opened, found := strings.Count(script, "{{"), len(placeholder.FindAllString(script, -1)); opened != found {
		t.Errorf("script has %d '{{' but only %d well-formed parameter references; SSM rejects the others", opened, found)
	}
	for name := range placeholders {
		if _, ok := doc.Parameters[name]; !ok {
			t.Errorf("script uses {{ %s }}, which the document does not declare", name)
		}
	}
	for name := range envVars {
		if _, ok := doc.Parameters[name]; !ok {
			t.Errorf("script reads SSM_%s, which the document does not declare", name)
		}
	}
	for name := range doc.Parameters {
		if !placeholders[name] {
			t.Errorf("parameter %s is declared but the script has no {{ %s }} fallback", name, name)
		}
		if !envVars[name] {
			t.Errorf("parameter %s is declared but the script never reads SSM_%s", name, name)
		}
	}
}

// sampleValues are realistic values for the script's placeholders when it is
// checked as plain bash.
var sampleValues = map[string]string{
	"BinaryUrl":    "https://github.com/nodetriage/nodetriage/releases/download/v1.0.0/nodetriage_v1.0.0_linux_amd64.tar.gz",
	"BinarySha256": strings.Repeat("ab", 32),
	"Bucket":       "team-eks-bundles",
	"Prefix":       "nodetriage/",
	"Since":        "48h",
	"MaxSize":      "5MiB",
	"Timeout":      "300",
	"PresignedUrl": "",
}

// substitute does what an SSM Agent older than ENV_VAR support does: paste
// each value in place of its {{ Name }}.
func substitute(t *testing.T, script string, values map[string]string) string {
	t.Helper()
	return placeholder.ReplaceAllStringFunc(script, func(ref string) string {
		name := placeholder.FindStringSubmatch(ref)[1]
		v, ok := values[name]
		if !ok {
			t.Fatalf("no value for placeholder %s", ref)
		}
		return v
	})
}

func TestSSMScriptPassesBashAndShellcheck(t *testing.T) {
	script := substitute(t, documentScript(t), sampleValues)
	path := filepath.Join(t.TempDir(), "collect.sh")
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("bash -n", func(t *testing.T) {
		if out, err := exec.Command("bash", "-n", path).CombinedOutput(); err != nil {
			t.Fatalf("bash -n: %v\n%s", err, out)
		}
	})
	t.Run("shellcheck", func(t *testing.T) {
		if _, err := exec.LookPath("shellcheck"); err != nil {
			t.Skip("shellcheck is not installed (scripts/install-deps.sh installs it)")
		}
		if out, err := exec.Command("shellcheck", "--shell=bash", "--severity=style", path).CombinedOutput(); err != nil {
			t.Fatalf("shellcheck: %v\n%s", err, out)
		}
	})
}
