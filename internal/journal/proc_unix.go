//go:build unix

package journal

import (
	"os/exec"
	"syscall"
)

// killProcessGroupOnCancel starts cmd in a process group of its own and makes
// the end of its context kill the whole group, so that nothing journalctl
// started (a pager, a helper) outlives the read.
func killProcessGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
