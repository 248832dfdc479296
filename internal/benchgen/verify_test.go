package benchgen

import (
	"errors"
	"strings"
	"testing"
)

func TestVerify(t *testing.T) {
	m := Manifest{Planted: []Planted{
		{ID: "kubelet-unauthorized", File: "kubelet/kubelet.log", Line: 40},
		{ID: "kernel-oom-kill", File: "kernel/dmesg.current", Line: 7},
	}}
	tests := []struct {
		name   string
		report string
		want   error
		found  []string
	}{
		{
			name:   "both at their lines",
			report: `{"bundles":[{"findings":[{"id":"kubelet-unauthorized","evidence":[{"file":"kubelet/kubelet.log","line":40}]},{"id":"kernel-oom","evidence":[{"file":"./kernel/dmesg.current","line":7}]}]}]}`,
			found:  []string{FoundAtLine, FoundAtLine},
		},
		{
			name:   "line beats file",
			report: `{"bundles":[{"findings":[{"id":"a","evidence":[{"file":"kubelet/kubelet.log","line":3}]},{"id":"b","evidence":[{"file":"kubelet/kubelet.log","line":40},{"file":"kernel/dmesg.current","line":99}]}]}]}`,
			found:  []string{FoundAtLine, FoundInFile},
		},
		{
			name:   "one missed",
			report: `{"bundles":[{"findings":[{"id":"a","evidence":[{"file":"kubelet/kubelet.log","line":40}]}]}]}`,
			want:   ErrMissed,
			found:  []string{FoundAtLine, NotFound},
		},
		{
			name:   "no findings",
			report: `{"bundles":[{"findings":[]}]}`,
			want:   ErrVoid,
			found:  []string{NotFound, NotFound},
		},
		{
			name:   "no bundles",
			report: `{"bundles":[]}`,
			want:   ErrVoid,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Verify(m, strings.NewReader(tt.report))
			if !errors.Is(err, tt.want) {
				t.Fatalf("Verify: %v, want %v", err, tt.want)
			}
			var found []string
			for _, r := range v.Results {
				found = append(found, r.Found)
			}
			if strings.Join(found, ",") != strings.Join(tt.found, ",") {
				t.Errorf("found %v, want %v", found, tt.found)
			}
		})
	}
	if _, err := Verify(m, strings.NewReader("{not json")); err == nil || errors.Is(err, ErrVoid) {
		t.Errorf("bad JSON: %v", err)
	}
}

func TestManifestRoundTrip(t *testing.T) {
	m := Manifest{Layout: "nodetriage", Seed: 4, Size: 100, Bytes: 99, Files: 3, Planted: []Planted{{ID: "x", File: "a/b", Line: 2, Text: `say "hi"`}}}
	var b strings.Builder
	if err := m.Encode(&b); err != nil {
		t.Fatal(err)
	}
	got, err := DecodeManifest(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if got.Planted[0] != m.Planted[0] || got.Bytes != m.Bytes || got.Layout != m.Layout {
		t.Errorf("round trip: %+v", got)
	}
}
