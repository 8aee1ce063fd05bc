//go:build unix

package procgroup

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

func prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// sysGroup is the process group, named by its leader's pid.
type sysGroup struct{ pgid int }

func attach(cmd *exec.Cmd) sysGroup { return sysGroup{pgid: cmd.Process.Pid} }

// empty: no process of the group can be signalled. A zombie counts as
// one until it is reaped, so the caller must wait for the leader (the
// others are reaped by whoever inherits them).
func (s sysGroup) empty() bool {
	return errors.Is(syscall.Kill(-s.pgid, 0), syscall.ESRCH)
}

func (s sysGroup) stop(grace time.Duration) bool {
	if syscall.Kill(-s.pgid, syscall.SIGTERM) != nil && s.empty() {
		return true
	}
	if waitGone(s.empty, grace) {
		return true
	}
	_ = syscall.Kill(-s.pgid, syscall.SIGKILL)
	return waitGone(s.empty, grace)
}
