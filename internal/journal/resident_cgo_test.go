//go:build cgo && linux

package journal

import "testing"

// TestResidentFileBytes checks that the file-backed resident memory of
// this process is read: a running test binary has its code mapped.
func TestResidentFileBytes(t *testing.T) {
	if got := residentFileBytes(); got <= 0 {
		t.Errorf("residentFileBytes() = %d, want the size of the mapped program", got)
	}
}
