package benchgen

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrBadSize is returned by ParseSize for text that is not a size.
var ErrBadSize = errors.New("bad size")

// sizeUnits are the suffixes ParseSize knows, binary and decimal.
var sizeUnits = []struct {
	suffix string
	factor int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40},
	{"B", 1},
}

// ParseSize reads a byte count such as "100MiB", "1.5GiB", "10MB", "64K"
// or "4096". Single letters (K, M, G, T) are binary units.
func ParseSize(s string) (int64, error) {
	text := strings.TrimSpace(s)
	factor := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(text, u.suffix) {
			text, factor = strings.TrimSpace(strings.TrimSuffix(text, u.suffix)), u.factor
			break
		}
	}
	if text == "" {
		return 0, fmt.Errorf("%w %q", ErrBadSize, s)
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		if n < 0 || n > math.MaxInt64/factor {
			return 0, fmt.Errorf("%w %q: out of range", ErrBadSize, s)
		}
		return n * factor, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(f) || f < 0 {
		return 0, fmt.Errorf("%w %q", ErrBadSize, s)
	}
	bytes := f * float64(factor)
	if bytes >= math.MaxInt64 {
		return 0, fmt.Errorf("%w %q: out of range", ErrBadSize, s)
	}
	return int64(bytes), nil
}
