package signature

import (
	"slices"
	"testing"
)

func TestRender(t *testing.T) {
	facts := map[string]string{"cluster.name": "prod", "node.role_arn": "arn:aws:iam::111122223333:role/node", "empty": ""}
	captures := map[string]string{"where": "UserData"}
	tests := []struct {
		name, tmpl, want string
	}{
		{"no variables", "plain text", "plain text"},
		{"fact", "cluster ${cluster.name}", "cluster prod"},
		{"two facts", "${cluster.name}/${node.role_arn}", "prod/arn:aws:iam::111122223333:role/node"},
		{"capture", "within ${capture.where}", "within UserData"},
		{"missing fact", "name ${cluster.region}", "name <cluster.region>"},
		{"empty fact counts as missing", "x=${empty}", "x=<empty>"},
		{"missing capture", "${capture.node}", "<capture.node>"},
		{"missing facts map", "${cluster.name}", "<cluster.name>"},
		{"unterminated kept", "cost ${cluster.name", "cost ${cluster.name"},
		{"malformed kept", "shell ${HOME} var", "shell ${HOME} var"},
		{"aws-auth braces untouched", "system:node:{{EC2PrivateDNSName}}", "system:node:{{EC2PrivateDNSName}}"},
		{"dollar alone", "$5 and ${cluster.name}", "$5 and prod"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c := facts, captures
			if tt.name == "missing facts map" {
				f, c = nil, nil
			}
			if got := Render(tt.tmpl, f, c); got != tt.want {
				t.Errorf("Render(%q) = %q, want %q", tt.tmpl, got, tt.want)
			}
		})
	}
}

func TestTemplateVariables(t *testing.T) {
	tests := []struct {
		tmpl    string
		want    []string
		wantErr bool
	}{
		{"a ${x.y} b ${capture.z}", []string{"x.y", "capture.z"}, false},
		{"none", nil, false},
		{"open ${x", nil, true},
		{"bad ${Upper}", nil, true},
		{"bad capture ${capture.a-b}", nil, true},
	}
	for _, tt := range tests {
		got, err := templateVariables(tt.tmpl)
		if (err != nil) != tt.wantErr {
			t.Errorf("templateVariables(%q) err = %v, wantErr %v", tt.tmpl, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && !slices.Equal(got, tt.want) {
			t.Errorf("templateVariables(%q) = %q, want %q", tt.tmpl, got, tt.want)
		}
	}
}
