package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodetriage/nodetriage/internal/benchgen"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	planted := filepath.Join(dir, "planted.json")
	bundleDir := filepath.Join(dir, "b")
	if code := run([]string{"--dir", bundleDir, "--size", "300KiB", "--layout", "eks-log-collector", "--seed", "2", "--tar", filepath.Join(dir, "b.tar.gz"), "--planted", planted}, &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Fatalf("generate: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.tar.gz")); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(planted)
	if err != nil {
		t.Fatal(err)
	}
	m, err := benchgen.DecodeManifest(f)
	f.Close()
	if err != nil || len(m.Planted) != len(benchgen.DefaultPlants) {
		t.Fatalf("planted list: %+v, %v", m, err)
	}

	// A report whose evidence is every planted line verifies; one without
	// findings is void.
	type evidence struct {
		File string `json:"file"`
		Line int    `json:"line"`
	}
	type finding struct {
		ID       string     `json:"id"`
		Evidence []evidence `json:"evidence"`
	}
	var all []finding
	for _, p := range m.Planted {
		all = append(all, finding{ID: p.ID, Evidence: []evidence{{p.File, p.Line}}})
	}
	writeReport := func(name string, findings []finding) string {
		data, _ := json.Marshal(map[string]any{"bundles": []any{map[string]any{"findings": findings}}})
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tests := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"verified", []string{"--verify", planted, writeReport("good.json", all)}, 0, "VERIFIED: 7 of 7"},
		{"missed", []string{"--verify", planted, writeReport("part.json", all[:3])}, 1, "MISSED"},
		{"void", []string{"--verify", planted, writeReport("void.json", nil)}, 1, "VOID"},
		{"verify usage", []string{"--verify", planted}, 2, ""},
		{"bytes", []string{"--print-bytes", "5MiB"}, 0, "5242880\n"},
		{"bad bytes", []string{"--print-bytes", "five"}, 2, ""},
		{"plants", []string{"--list-plants"}, 0, "kernel-soft-lockup\n"},
		{"machine id", []string{"--machine-id", "--seed", "2"}, 0, benchgen.MachineID(2) + "\n"},
		{"bad size", []string{"--dir", filepath.Join(dir, "x"), "--size", "lots"}, 2, ""},
		{"dir not empty", []string{"--dir", bundleDir, "--size", "1MiB"}, 2, ""},
		{"stray argument", []string{"--dir", filepath.Join(dir, "y"), "extra"}, 2, ""},
		{"unknown flag", []string{"--colour"}, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tt.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.out) {
				t.Errorf("stdout %q lacks %q", stdout.String(), tt.out)
			}
		})
	}
}

func TestJournalExportToStdout(t *testing.T) {
	var stdout bytes.Buffer
	if code := run([]string{"--journal-export", "--size", "64KiB", "--end", "2026-11-29T14:00:00Z", "--span", "2h"}, &stdout, &bytes.Buffer{}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if stdout.Len() < 64<<10 || !strings.Contains(stdout.String(), "_SYSTEMD_UNIT=kubelet.service\n") {
		t.Errorf("export text: %d bytes, %.200q", stdout.Len(), stdout.String())
	}
	if code := run([]string{"--journal-export", "--end", "yesterday"}, &bytes.Buffer{}, &bytes.Buffer{}); code != 2 {
		t.Errorf("bad --end: exit %d, want 2", code)
	}
}
