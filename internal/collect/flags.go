package collect

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// sizeUnits are the suffixes ParseSize accepts, longest first.
var sizeUnits = []struct {
	suffix string
	factor int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1000}, {"mb", 1000 * 1000}, {"gb", 1000 * 1000 * 1000},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1},
}

// ParseSize reads a --max-size value: bytes, or a number with a unit
// (5MiB, 5M, 512KiB, 5MB); "0" means unlimited.
func ParseSize(s string) (int64, error) {
	text := strings.ToLower(strings.TrimSpace(s))
	factor := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(text, u.suffix) {
			text, factor = strings.TrimSpace(strings.TrimSuffix(text, u.suffix)), u.factor
			break
		}
	}
	value, err := strconv.ParseFloat(text, 64)
	if err != nil || !(value >= 0 && value*float64(factor) <= 1<<50) {
		return 0, fmt.Errorf("%w: --max-size %q: want bytes or a size such as 5MiB (0 = unlimited)", ErrInvalidUsage, s)
	}
	return int64(value * float64(factor)), nil
}

// maxSinceDays bounds a --since in days (about 270 years), so that the
// duration cannot overflow.
const maxSinceDays = 100_000

// ParseSince reads a --since value: a duration back from the end of the
// window ("48h", "10d" for days) or an RFC 3339 time. Exactly one of the
// results is set.
func ParseSince(s string) (time.Time, time.Duration, error) {
	text := strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, text); err == nil {
		return t.UTC(), 0, nil
	}
	if days, ok := strings.CutSuffix(text, "d"); ok {
		if n, err := strconv.ParseFloat(days, 64); err == nil && n > 0 && n <= maxSinceDays {
			return time.Time{}, time.Duration(n * float64(24*time.Hour)), nil
		}
	}
	if d, err := time.ParseDuration(text); err == nil && d > 0 {
		return time.Time{}, d, nil
	}
	return time.Time{}, 0, fmt.Errorf("%w: --since %q: want a duration such as 48h or 10d, or an RFC 3339 time", ErrInvalidUsage, s)
}
