//go:build !unix

package journal

import "os/exec"

// killProcessGroupOnCancel keeps exec's default: the end of the context kills
// the process itself. Process groups are a Unix feature.
func killProcessGroupOnCancel(*exec.Cmd) {}
