package logparse

import (
	"path"
	"strings"
	"time"
)

// YearFromBundleName returns the year a bundle was collected in, read from
// its file or folder name; see TimeFromBundleName.
func YearFromBundleName(name string) (int, bool) {
	t, ok := TimeFromBundleName(name)
	if !ok {
		return 0, false
	}
	return t.Year(), true
}

// TimeFromBundleName reads the collection time (UTC) from a bundle name:
//
//	eks_i-049d185b673566680_2025-03-06_1822-UTC_0.7.8.tar.gz   (eks-log-collector.sh)
//	eks_i-0abc_20261129T142631Z_nodetriage.tar.gz              (compact ISO 8601)
//	eks_i-0abc_2026-11-29T14-26-31Z_nodetriage.tar.gz
//	anything-2026-11-29.tgz                                    (a date alone)
//
// The time of day is optional; a date alone gives midnight. The instance id
// of an eks_ name is skipped so that its hex digits are never taken for a
// date. Use the result as Hint.Ref.
func TimeFromBundleName(name string) (time.Time, bool) {
	base := path.Base(strings.ReplaceAll(name, "\\", "/"))
	if rest, ok := strings.CutPrefix(base, "eks_"); ok {
		if _, afterID, ok := strings.Cut(rest, "_"); ok {
			base = afterID
		}
	}
	b := []byte(base)
	for i := 0; i < len(b); i++ {
		if i > 0 && isAlnum(b[i-1]) {
			continue
		}
		if t, ok := nameStampAt(b, i); ok {
			return t, true
		}
	}
	return time.Time{}, false
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || isLetter(c)
}

// nameStampAt reads a date at b[i] ("2025-03-06" or "20250306") and the
// time of day after it, if there is one.
func nameStampAt(b []byte, i int) (time.Time, bool) {
	year, month, day, n, ok := nameDateAt(b, i)
	if !ok || year < 1990 || year > 2200 {
		return time.Time{}, false
	}
	t := time.Date(year, month, day, 0, 0, 0, 0, time.UTC)
	j := i + n
	if j < len(b) && (b[j] == 'T' || b[j] == '_' || b[j] == '-' || b[j] == ' ') {
		if h, m, s, ok := nameClockAt(b, j+1); ok {
			t = t.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second)
		}
	}
	return t, true
}

func nameDateAt(b []byte, i int) (year int, month time.Month, day, n int, ok bool) {
	if y, m, d, ok := dateAt(b, i, '-'); ok && !digitAt(b, i+10) {
		return y, m, d, 10, true
	}
	y, ok1 := digitsAt(b, i, 4)
	m, ok2 := digitsAt(b, i+4, 2)
	d, ok3 := digitsAt(b, i+6, 2)
	if !ok1 || !ok2 || !ok3 || digitAt(b, i+8) || !validDate(y, time.Month(m), d) {
		return 0, 0, 0, 0, false
	}
	return y, time.Month(m), d, 8, true
}

func digitAt(b []byte, i int) bool {
	return i < len(b) && b[i] >= '0' && b[i] <= '9'
}

// nameClockAt reads "HHMM", "HHMMSS", "HH-MM-SS" or "HH:MM:SS".
func nameClockAt(b []byte, i int) (h, m, s int, ok bool) {
	h, ok = digitsAt(b, i, 2)
	if !ok {
		return 0, 0, 0, false
	}
	j := i + 2
	sep := byte(0)
	if j < len(b) && (b[j] == '-' || b[j] == ':') {
		sep = b[j]
		j++
	}
	if m, ok = digitsAt(b, j, 2); !ok {
		return 0, 0, 0, false
	}
	j += 2
	if sep != 0 && j < len(b) && b[j] == sep {
		j++
	}
	s, okSec := digitsAt(b, j, 2)
	if okSec && digitAt(b, j+2) || !okSec && digitAt(b, j) {
		return 0, 0, 0, false
	}
	if h > 23 || m > 59 || s > 59 {
		return 0, 0, 0, false
	}
	return h, m, s, true
}
