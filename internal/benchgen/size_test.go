package benchgen

import (
	"errors"
	"strconv"
	"testing"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  bool
	}{
		{"4096", 4096, false},
		{"100MiB", 100 << 20, false},
		{"1GiB", 1 << 30, false},
		{"1.5GiB", 3 << 29, false},
		{"10MB", 10_000_000, false},
		{"64K", 64 << 10, false},
		{" 5 MiB ", 5 << 20, false},
		{"12B", 12, false},
		{"", 0, true},
		{"MiB", 0, true},
		{"-1MiB", 0, true},
		{"ten", 0, true},
		{"9999999TiB", 0, true},
		{"NaN", 0, true},
		{"Inf", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSize(tt.in)
			if tt.err {
				if !errors.Is(err, ErrBadSize) {
					t.Fatalf("ParseSize(%q) = %d, %v; want ErrBadSize", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"100MiB", "1.5GiB", "64K", "12", "", "-3", "1e400", "0x10MiB", "9223372036854775807B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			if !errors.Is(err, ErrBadSize) {
				t.Fatalf("ParseSize(%q): error %v does not wrap ErrBadSize", s, err)
			}
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d, negative", s, n)
		}
		// A plain number of bytes reads back as itself.
		if back, err := ParseSize(strconv.FormatInt(n, 10)); err != nil || back != n {
			t.Fatalf("ParseSize(%d) = %d, %v", n, back, err)
		}
	})
}
