//go:build !(cgo && linux)

package journal

// Default returns the journalctl reader: this build has no cgo, so
// libsystemd cannot be used.
func Default() Reader {
	return NewJournalctl("")
}
