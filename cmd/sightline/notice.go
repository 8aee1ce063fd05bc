package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sightline-lsp/sightline/daemon"
)

// noticedFile, in a workspace's socket folder, says that the daemon's first
// start there was told to a person: it is told once.
const noticedFile = "daemon.noticed"

// machineKey marks the context of a command whose output a program reads
// (--json): nothing is said to a person then, on any stream.
type machineKey struct{}

// withMachine marks ctx when the command's arguments ask for JSON.
func withMachine(ctx context.Context, args []string) context.Context {
	for _, a := range args {
		switch a {
		case "--":
			return ctx
		case "--json", "-json", "--json=true", "-json=true":
			return context.WithValue(ctx, machineKey{}, true)
		}
	}
	return ctx
}

// machineRead reports whether ctx's command writes for a program.
func machineRead(ctx context.Context) bool {
	v, _ := ctx.Value(machineKey{}).(bool)
	return v
}

// firstStartNotice tells, once per workspace, that a command left a daemon
// running, what it is and how to see it or turn it off: a process that
// outlives the command should not be a surprise.
func firstStartNotice(stderr io.Writer, sockDir, root string) {
	marker := filepath.Join(sockDir, noticedFile)
	if _, err := os.Lstat(marker); err == nil {
		return
	}
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		return // not told rather than told at every start
	}
	log := daemon.LogName + " in the workspace's state folder"
	if state, err := stateOf(root); err == nil {
		log = daemon.LogPath(state)
	}
	fmt.Fprintf(stderr, "sightline: started a daemon for %s: it holds this workspace's state between commands and exits after %v without one. `sightline daemon status` shows it (its log: %s), `sightline daemon stop` stops it; SIGHTLINE_DAEMON=0 keeps commands from starting it. (Said once.)\n",
		root, idleDefault(), log)
}
