package logparse

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var fuzzHint = Hint{Ref: ref2026, BootTime: ref2026.Add(-time.Hour), Source: "hinted"}

// addFixtureLines seeds a fuzz target with every line of the fixtures.
func addFixtureLines(f *testing.F) {
	f.Helper()
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(path, "fuzz") {
			return err
		}
		lines, err := fixtureLines(strings.TrimPrefix(filepath.ToSlash(path), "testdata/"))
		for _, line := range lines {
			f.Add(line)
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
}

// constantSources are the sources a parser may set without reading them
// from the line.
var constantSources = map[string]bool{"": true, "hinted": true, kernelSource: true, "systemd": true, cloudInitSource: true}

// checkRecord asserts what holds for every record of every format.
func checkRecord(t *testing.T, f Format, line []byte, rec Record) {
	t.Helper()
	if rec.Level < LevelUnknown || rec.Level > LevelFatal {
		t.Fatalf("%v: Level %d out of range", f, rec.Level)
	}
	if !rec.Time.IsZero() && rec.Time.Location() != time.UTC {
		t.Fatalf("%v: Time %v not in UTC", f, rec.Time)
	}
	if !constantSources[rec.Source] && !bytes.Contains(line, []byte(rec.Source)) {
		t.Fatalf("%v: Source %q is not in the line %q", f, rec.Source, line)
	}
	if !bytes.Contains(line, []byte(rec.Text)) && !bytes.ContainsAny(line, "{=") {
		t.Fatalf("%v: Text %q is not in the line %q, and the line has no structured payload", f, rec.Text, line)
	}
	if rec.File != "" || rec.Line != 0 {
		t.Fatalf("%v: File and Line are the caller's, got %q %d", f, rec.File, rec.Line)
	}
}

// parseAndCheck parses line as f and checks the general invariants plus
// determinism, that the input is left alone, and that a Stream agrees.
func parseAndCheck(t *testing.T, f Format, line []byte) Record {
	t.Helper()
	orig := bytes.Clone(line)
	rec := Parse(f, line, fuzzHint)
	if !bytes.Equal(orig, line) {
		t.Fatalf("%v: Parse changed its input", f)
	}
	checkRecord(t, f, line, rec)
	again := Parse(f, line, fuzzHint)
	if again != rec {
		t.Fatalf("%v: Parse is not deterministic: %+v then %+v", f, rec, again)
	}
	if streamed := NewStream(f, fuzzHint).Parse(line); streamed != rec {
		t.Fatalf("%v: Stream with Ref gives %+v, Parse gives %+v", f, streamed, rec)
	}
	return rec
}

func FuzzParseJournal(f *testing.F) {
	addFixtureLines(f)
	f.Add([]byte("Nov 29 14:26:31 host kubelet[1]:"))
	f.Add([]byte("Nov  9 14:26:31.5 host a@b.service[1]: [   1.0] cloud-init[2]: Nov 29 14:26:31 h nodeadm[3]: {}"))
	f.Add([]byte("2026-11-29T14:26:31+0000 host x: 2026-11-29T14:26:31+00:00 host y: z"))
	f.Fuzz(func(t *testing.T, line []byte) {
		parseAndCheck(t, FormatJournalShort, line)
		parseAndCheck(t, FormatJournalISO, line)
	})
}

func FuzzParseKlog(f *testing.F) {
	addFixtureLines(f)
	f.Add([]byte("E1129 14:26:31.123456    2817 kubelet_node_status.go:96] msg"))
	f.Add([]byte("F0229 23:59:60.9999999999 1 a.go:1]"))
	f.Fuzz(func(t *testing.T, line []byte) {
		rec := parseAndCheck(t, FormatKlog, line)
		if _, ok := klogHeaderAt(trimEOL(line)); ok && rec.Level == LevelUnknown {
			t.Fatalf("klog header but no level: %q", line)
		}
	})
}

func FuzzParseZap(f *testing.F) {
	addFixtureLines(f)
	f.Add([]byte(`{"level":"fatal","ts":1709500289.81,"caller":"nodeadm/main.go:36","msg":"Command failed","error":"yaml: line 4: could not find expected ':'"}`))
	f.Add([]byte(`{"level":"error","ts":"2026-11-29T14:30:01.000Z","msg":"a\u00e9\ud83d\ude00\ud800x","n":{"a":[1,"}"]}}`))
	f.Add([]byte(`{"m\u0073g":"escaped key","level":"\u0065rror"}`))
	f.Add([]byte(`fatal cli/main.go:35 Command failed {"error": "no config in chain"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		rec := parseAndCheck(t, FormatZapJSON, line)
		parseAndCheck(t, FormatZapConsole, line)
		checkZapAgainstEncodingJSON(t, trimEOL(line), rec)
	})
}

// checkZapAgainstEncodingJSON compares with the standard library: for a
// valid JSON object, Text starts with the decoded msg and Level is the
// level word's.
func checkZapAgainstEncodingJSON(t *testing.T, line []byte, rec Record) {
	if len(line) == 0 || line[0] != '{' || !utf8.Valid(line) || !json.Valid(line) {
		return
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		return
	}
	_, hasMessage := m["message"]
	if msg, ok := m["msg"].(string); ok && !hasMessage && !strings.HasPrefix(rec.Text, msg) {
		t.Fatalf("Text %q does not start with msg %q", rec.Text, msg)
	}
	_, hasSeverity := m["severity"]
	_, hasMsg := m["msg"]
	if lv, ok := m["level"].(string); ok && !hasSeverity && hasMsg && rec.Level != ParseLevel(lv) {
		t.Fatalf("Level %v, want %v for level %q", rec.Level, ParseLevel(lv), lv)
	}
}

func FuzzParseLogfmt(f *testing.F) {
	addFixtureLines(f)
	f.Add([]byte(`time="2026-11-29T14:26:40.512345678Z" level=error msg="PullImage \"x\" failed" error="dial tcp: i/o timeout"`))
	f.Add([]byte(`level=warning msg="\x41\u00e9\U0001F600\101\q" a=b rest of line`))
	f.Fuzz(func(t *testing.T, line []byte) {
		rec := parseAndCheck(t, FormatLogfmt, line)
		checkLogfmtAgainstStrconv(t, trimEOL(line), rec)
	})
}

// checkLogfmtAgainstStrconv compares the message with strconv.Unquote.
func checkLogfmtAgainstStrconv(t *testing.T, line []byte, rec Record) {
	fields, ok := scanLogfmt(line)
	if !ok || fields.msg.end == 0 || !utf8.Valid(line) {
		return
	}
	raw := string(line[fields.msg.start:fields.msg.end])
	if !strings.HasPrefix(raw, `"`) {
		if !strings.HasPrefix(rec.Text, raw) {
			t.Fatalf("Text %q does not start with bare msg %q", rec.Text, raw)
		}
		return
	}
	msg, err := strconv.Unquote(raw)
	if err != nil {
		return
	}
	if !strings.HasPrefix(rec.Text, msg) {
		t.Fatalf("Text %q does not start with msg %q", rec.Text, msg)
	}
}

func FuzzParseDmesg(f *testing.F) {
	addFixtureLines(f)
	f.Add([]byte("[ 1234.567890] nf_conntrack: table full, dropping packet"))
	f.Add([]byte("<3>[Sun Nov 29 14:26:31 2026] x"))
	f.Add([]byte("kern  :err   : [    1.000000] systemd[1]: y"))
	f.Fuzz(func(t *testing.T, line []byte) {
		parseAndCheck(t, FormatDmesg, line)
		parseAndCheck(t, FormatDmesgCtime, line)
	})
}

func FuzzParseConsole(f *testing.F) {
	addFixtureLines(f)
	f.Add([]byte("[\x1b[0;32m  OK  \x1b[0m] Started kubelet.service"))
	f.Add([]byte("<14>Nov 29 14:20:36 cloud-init: ####"))
	f.Fuzz(func(t *testing.T, line []byte) {
		parseAndCheck(t, FormatConsole, line)
		parseAndCheck(t, FormatCRI, line)
		parseAndCheck(t, FormatUnknown, line)
	})
}

func FuzzParseCloudInit(f *testing.F) {
	addFixtureLines(f)
	f.Add([]byte("2026-11-29 14:20:30,789 - util.py[WARNING]: Failed running"))
	f.Add([]byte("Cloud-init v. 22.2.2 finished at Sun, 29 Nov 2026 14:20:35 +0000. Up 35.12 seconds"))
	f.Fuzz(func(t *testing.T, line []byte) {
		parseAndCheck(t, FormatCloudInit, line)
		parseAndCheck(t, FormatCloudInitOutput, line)
	})
}

func FuzzDetect(f *testing.F) {
	f.Add("kubelet/kubelet.log", []byte("Nov 29 14:26:31 host kubelet[1]: x\n"))
	f.Add("journal/x.log", []byte("2026-11-29T14:26:31+00:00 host a[1]: x\n{\"level\":\"info\"}\n"))
	f.Add("", []byte("[    0.0] a\n[  OK  ] b\n"))
	f.Add("./eks_i-1_2025-03-06_1822-UTC_0.7.8/var_log/aws-routed-eni/ipamd.log", []byte(`{"level":"error","msg":"x"}`))
	f.Fuzz(func(t *testing.T, path string, head []byte) {
		got := DetectFormat(path, head)
		if got > FormatPlain {
			t.Fatalf("DetectFormat = %d, not a format", got)
		}
		if again := DetectFormat(path, head); again != got {
			t.Fatalf("DetectFormat not deterministic: %v then %v", got, again)
		}
		line, _, _ := cutLine(head)
		parseAndCheck(t, got, line)
		_ = SourceFromPath(path)
	})
}

func FuzzBundleName(f *testing.F) {
	f.Add("eks_i-049d185b673566680_2025-03-06_1822-UTC_0.7.8.tar.gz")
	f.Add("eks_i-0abc_20261129T142631Z_nodetriage.tar.gz")
	f.Add("x-2024-02-29T23:59:59")
	f.Fuzz(func(t *testing.T, name string) {
		ts, ok := TimeFromBundleName(name)
		year, yok := YearFromBundleName(name)
		if ok != yok || ok && (year != ts.Year() || year < 1990 || year > 2200 || ts.Location() != time.UTC) {
			t.Fatalf("TimeFromBundleName = %v %v, YearFromBundleName = %d %v", ts, ok, year, yok)
		}
	})
}
