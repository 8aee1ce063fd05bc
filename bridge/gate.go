package bridge

import (
	"context"
	"time"

	"github.com/sightline-lsp/sightline/pathlock"
)

// The daemon's gate orders a daemon's start with the commands that work on
// disk in their own process. Such a command holds the gate shared from
// before it looks for the workspace's sockets until its ledger is written
// (EnterGate); a daemon that has started listening takes it exclusively,
// and lets go at once, before it serves a call (PassGate). A command that
// looked before the daemon listened has thus written its reads before the
// daemon reads the database, and one that looks after finds the daemon:
// no read recorded on disk is missing from the daemon's memory, to be
// written over by it.

// gateWait bounds EnterGate's wait: a daemon holds the gate only as long
// as taking it and letting go.
const gateWait = time.Second

// EnterGate holds the gate of the socket folder dir shared; the release
// must be called once. An error (a gate not taken within its bound, a
// folder that cannot hold its lock file) leaves the caller to go on
// without it: the gate only narrows a window in which a read would be
// forgotten, the safe side of the ledger.
func EnterGate(ctx context.Context, dir string) (release func(), err error) {
	return pathlock.New(dir).LockShared(ctx, gateName(dir), gateWait)
}

// PassGate waits, at most wait, until no command holds the gate of the
// socket folder dir; pathlock.ErrTimeout when one held it for all of it.
func PassGate(ctx context.Context, dir string, wait time.Duration) error {
	release, err := pathlock.New(dir).Lock(ctx, gateName(dir), wait)
	if err != nil {
		return err
	}
	release()
	return nil
}

func gateName(dir string) string { return "gate " + dir }
