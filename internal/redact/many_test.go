package redact

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkManySecretsOnOneLine is one line holding n secrets, redacted
// twice (the second pass sees only markers). ns/op divided by n must stay
// about the same from 1,000 to 10,000: the cost per secret does not grow
// with the number of secrets on the line.
func BenchmarkManySecretsOnOneLine(b *testing.B) {
	r := New(DefaultRules())
	for _, n := range []int{1000, 10000} {
		line := []byte(strings.Repeat("password=hunter2xyz ", n) + "\n")
		b.Run("secrets="+strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				once, _ := r.Bytes(line)
				if bytes.Contains(once, []byte("hunter2xyz")) {
					b.Fatal("a secret survived")
				}
				r.Bytes(once)
			}
		})
	}
}

// TestManySecretsOnOneLine checks what the benchmark times: every one of
// thousands of secrets on one line is replaced, and a second pass changes
// nothing.
func TestManySecretsOnOneLine(t *testing.T) {
	r := New(DefaultRules())
	line := []byte(strings.Repeat("password=hunter2xyz ", 5000) + "\n")
	once, counts := r.Bytes(line)
	if bytes.Contains(once, []byte("hunter2xyz")) {
		t.Fatal("a secret survived")
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	if total != 5000 {
		t.Errorf("counted %d replacements, want 5000 (%v)", total, counts)
	}
	if twice, counts := r.Bytes(once); !bytes.Equal(once, twice) || len(counts) != 0 {
		t.Errorf("second pass changed the line or counted %v", counts)
	}
}
