//go:build cgo && linux

package journal

// Default returns the libsystemd reader when libsystemd loads on this
// machine, and the journalctl reader otherwise.
func Default() Reader {
	if sdjournalLoads() {
		return NewSDJournal()
	}
	return NewJournalctl("")
}
