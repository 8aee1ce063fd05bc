package daemon

import (
	"fmt"
	"os/exec"
)

// Start starts a daemon, `exe args...` in dir with env, detached from the
// caller: in a session of its own on Unix (a new process group, no
// controlling terminal: the terminal's signals and its closing do not reach
// it), detached and without a console window on Windows. Its standard
// streams are not the caller's (the null device), so nothing waiting for
// the caller's output (a shell's pipe, go test) waits for the daemon. It
// does not wait for the daemon to listen.
func Start(exe string, args []string, dir string, env []string) error {
	cmd := exec.Command(exe, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the daemon: %w", err)
	}
	// Not waited for: the caller exits first, and the daemon is the init
	// process's child then.
	return cmd.Process.Release()
}

// Off reports whether the environment keeps the CLI from starting a daemon:
// SIGHTLINE_DAEMON=0, or no SIGHTLINE_DAEMON=1 where it is off by default.
func Off(getenv func(string) string) bool {
	switch getenv("SIGHTLINE_DAEMON") {
	case "0", "false", "off":
		return true
	case "1", "true", "on":
		return false
	}
	return !onByDefault
}
