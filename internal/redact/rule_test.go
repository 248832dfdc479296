package redact

import (
	"errors"
	"os"
	"path/filepath"
	"regexp/syntax"
	"strconv"
	"strings"
	"testing"
)

func writeRulesFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rules.txt")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadRules(t *testing.T) {
	path := writeRulesFile(t, "\ufeff# site rules\n\n"+
		"ticket: TKT-[0-9]{6}\n"+
		"   # indented comment\n"+
		"db-pass : dbpass=(?P<secret>\\S+)\n"+
		"colon.in.regex: host:(?P<secret>[0-9]{4})\r\n")
	rules, err := LoadRules(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rules {
		names = append(names, r.Name)
	}
	if strings.Join(names, ",") != "ticket,db-pass,colon.in.regex" {
		t.Fatalf("names = %v", names)
	}
	got, counts := New(rules).Bytes([]byte("TKT-123456 dbpass=hunter2 x host:8080\n"))
	want := Marker("ticket") + " dbpass=" + Marker("db-pass") + " x host:" + Marker("colon.in.regex") + "\n"
	if string(got) != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if counts["ticket"] != 1 || counts["db-pass"] != 1 || counts["colon.in.regex"] != 1 {
		t.Fatalf("counts %v", counts)
	}
}

func TestLoadRulesErrors(t *testing.T) {
	cases := []struct {
		name, content string
		line          int
		want          string // substring of the message after "file:line: "
	}{
		{"missing colon", "ok: a\njust text\n", 2, `expected "name: regex"`},
		{"bad regex", "# c\n\nok: a\nx: (unclosed\n", 4, `rule "x": error parsing regexp: missing closing ): `},
		{"empty regex", "x:   \n", 1, `rule "x": empty regular expression`},
		{"empty name", ": abc\n", 1, `empty rule name`},
		{"bad name", "has space: abc\n", 1, `rule "has space": character ' ' not allowed`},
		{"marker breaking name", "x]y: abc\n", 1, `character ']' not allowed`},
		{"leading dash", "-x: abc\n", 1, `character '-' not allowed`},
		{"matches empty", "any: a*\n", 1, `matches the empty string`},
		{"long name", strings.Repeat("n", 65) + ": a\n", 1, "longer than 64 bytes"},
		{"long line", "x: " + strings.Repeat("a", maxRuleLineLen) + "\n", 1, "line longer than"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeRulesFile(t, tc.content)
			_, err := LoadRules(path)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrInvalidRule) {
				t.Fatalf("not ErrInvalidRule: %v", err)
			}
			var re *RuleError
			if !errors.As(err, &re) || re.Line != tc.line || re.File != path {
				t.Fatalf("RuleError = %+v", re)
			}
			prefix := path + ":" + strconv.Itoa(tc.line) + ": "
			if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("message %q, want prefix %q and %q", err, prefix, tc.want)
			}
		})
	}
}

func TestLoadRulesRegexpErrorUnwraps(t *testing.T) {
	_, err := LoadRules(writeRulesFile(t, "x: [z-a]\n"))
	var se *syntax.Error
	if !errors.As(err, &se) || se.Code != syntax.ErrInvalidCharRange {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadRulesMissingFile(t *testing.T) {
	_, err := LoadRules(filepath.Join(t.TempDir(), "nope.txt"))
	if !errors.Is(err, os.ErrNotExist) || errors.Is(err, ErrInvalidRule) {
		t.Fatalf("err = %v", err)
	}
}

func TestNewRuleWholeMatchAndGroup(t *testing.T) {
	cases := []struct {
		expr, in, want string
	}{
		{`acct-[0-9]+`, "id acct-42 x", "id " + Marker("r") + " x"},
		{`pin=(?P<secret>[0-9]{4})`, "pin=1234;pin=5678", "pin=" + Marker("r") + ";pin=" + Marker("r")},
		{`(a)(?P<secret>b)`, "ab", "a" + Marker("r")},
		{`x(?P<secret>y)?z`, "xz xyz", "xz x" + Marker("r") + "z"},
	}
	for _, tc := range cases {
		rule, err := NewRule("r", tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := New([]Rule{rule}).Bytes([]byte(tc.in))
		if string(got) != tc.want {
			t.Errorf("%s on %q = %q, want %q", tc.expr, tc.in, got, tc.want)
		}
	}
}
