//go:build unix

package daemon

import "syscall"

// onByDefault: the CLI starts a daemon only when SIGHTLINE_DAEMON=1, for
// now: the programs that run the CLI by the hundred (test suites among
// them) are not yet all known to live with a process that outlives it.
const onByDefault = false

func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
