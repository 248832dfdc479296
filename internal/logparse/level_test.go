package logparse

import "testing"

func TestParseLevel(t *testing.T) {
	cases := map[string]Level{
		"debug": LevelDebug, "DEBUG": LevelDebug, "trace": LevelDebug,
		"info": LevelInfo, "INFO": LevelInfo, "notice": LevelInfo, "I": LevelInfo,
		"warn": LevelWarn, "warning": LevelWarn, "WARNING": LevelWarn, "W": LevelWarn,
		"error": LevelError, "ERROR": LevelError, "err": LevelError, "E": LevelError,
		"fatal": LevelFatal, "dpanic": LevelFatal, "panic": LevelFatal, "CRITICAL": LevelFatal, "F": LevelFatal,
		"": LevelUnknown, "verbose-ish": LevelUnknown, "informationalxx": LevelUnknown, "é": LevelUnknown,
	}
	for word, want := range cases {
		if got := ParseLevel(word); got != want {
			t.Errorf("ParseLevel(%q) = %v, want %v", word, got, want)
		}
	}
}

func TestLevelText(t *testing.T) {
	for l := LevelUnknown; l <= LevelFatal; l++ {
		text, err := l.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Level
		if err := back.UnmarshalText(text); err != nil {
			t.Fatal(err)
		}
		if back != l || string(text) != l.String() {
			t.Errorf("level %d: text %q reads back as %v", l, text, back)
		}
	}
	if got := Level(42).String(); got != "unknown" {
		t.Errorf("Level(42).String() = %q", got)
	}
}

func TestGuessLevel(t *testing.T) {
	cases := map[string]Level{
		"panic: runtime error: index out of range":       LevelFatal,
		"Failed to start kubelet.service":                LevelError,
		"Unable to register node":                        LevelError,
		"WARNING: something odd":                         LevelWarn,
		"Started kubelet.service":                        LevelUnknown,
		"errors_total metric":                            LevelUnknown,
		"the terror of warnings":                         LevelUnknown,
		"node became ready after the error was resolved": LevelError,
	}
	for text, want := range cases {
		if got := GuessLevel(text); got != want {
			t.Errorf("GuessLevel(%q) = %v, want %v", text, got, want)
		}
	}
}
