package collect

import (
	"errors"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{"5MiB", 5 << 20, false},
		{"5M", 5 << 20, false},
		{"5MB", 5_000_000, false},
		{"512KiB", 512 << 10, false},
		{"0", 0, false},
		{"1048576", 1 << 20, false},
		{"1.5G", 3 << 29, false},
		{"-1", 0, true},
		{"five", 0, true},
		{"", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d (error %v)", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err != nil && !errors.Is(err, ErrInvalidUsage) {
			t.Errorf("ParseSize(%q) error %v is not ErrInvalidUsage", tt.in, err)
		}
	}
}

func TestParseSince(t *testing.T) {
	tests := []struct {
		in      string
		at      time.Time
		back    time.Duration
		wantErr bool
	}{
		{"48h", time.Time{}, 48 * time.Hour, false},
		{"10d", time.Time{}, 240 * time.Hour, false},
		{"2026-11-20T00:00:00Z", time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), 0, false},
		{"2026-11-20T09:00:00+09:00", time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), 0, false},
		{"-5h", time.Time{}, 0, true},
		{"yesterday", time.Time{}, 0, true},
	}
	for _, tt := range tests {
		at, back, err := ParseSince(tt.in)
		if (err != nil) != tt.wantErr || !at.Equal(tt.at) || back != tt.back {
			t.Errorf("ParseSince(%q) = %v, %v, %v", tt.in, at, back, err)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"5MiB", "0", "1e3k", "NaN", "+Inf", "9999999999999G"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err == nil && (n < 0 || n > 1<<50) {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
	})
}

func FuzzParseSince(f *testing.F) {
	for _, s := range []string{"48h", "10d", "2026-11-20T00:00:00Z", "1e308d", "NaNd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		at, back, err := ParseSince(s)
		if err == nil && (at.IsZero() == (back == 0)) {
			t.Fatalf("ParseSince(%q) = %v, %v: want exactly one of them", s, at, back)
		}
		if back < 0 {
			t.Fatalf("negative window %v", back)
		}
	})
}
