package daemon

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// startedFile, in the socket folder, says that a daemon was started there
// and has not ended as a daemon ends (Run removes it). Found there when no
// daemon answers, it is a daemon that was killed, or that could not start
// (a sandbox that ends what a command leaves running, no free slot, no
// socket): Start does not try again before retryAfter, so that each call
// does not pay for a start that will not last.
const startedFile = "daemon.started"

// retryAfter is how long a daemon that did not last keeps Start from
// starting another.
const retryAfter = 10 * time.Minute

// Start starts the daemon of the socket folder sockDir, `exe args...` in
// dir with env, detached from the caller, unless one started there lately
// did not last (see startedFile): then it does nothing. The daemon is
// started: in a session of its own on Unix (a new process group, no
// controlling terminal: the terminal's signals and its closing do not reach
// it), detached and without a console window on Windows. Its standard
// streams are not the caller's (the null device), so nothing waiting for
// the caller's output (a shell's pipe, go test) waits for the daemon. It
// does not wait for the daemon to listen. started says whether it started
// one. dir should lie outside the workspace: a working directory inside it
// would keep its file system busy (umount) for the daemon's life.
func Start(sockDir, exe string, args []string, dir string, env []string) (started bool, err error) {
	marker := filepath.Join(sockDir, startedFile)
	if fi, err := os.Stat(marker); err == nil && time.Since(fi.ModTime()) < retryAfter {
		return false, nil
	}
	now := time.Now()
	if err := os.WriteFile(marker, []byte(now.UTC().Format(time.RFC3339)+"\n"), 0o600); err != nil {
		return false, fmt.Errorf("start the daemon: %w", err)
	}
	_ = os.Chtimes(marker, now, now) // a rewrite of the same bytes may keep the old time
	cmd := exec.Command(exe, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("start the daemon: %w", err)
	}
	// Not waited for: the caller exits first, and the daemon is the init
	// process's child then.
	return true, cmd.Process.Release()
}

// Off reports whether the environment keeps the CLI from starting a daemon:
// SIGHTLINE_DAEMON=0, or no SIGHTLINE_DAEMON=1 where it is off by default
// (onByDefault).
func Off(getenv func(string) string) bool {
	switch getenv("SIGHTLINE_DAEMON") {
	case "0", "false", "off":
		return true
	case "1", "true", "on":
		return false
	}
	return !onByDefault
}
