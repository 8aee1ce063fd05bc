package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/daemon"
	"github.com/sightline-lsp/sightline/store"
)

// runDaemon serves the workspace headless (what the CLI starts on demand
// unless SIGHTLINE_DAEMON=0, see daemon.Off), or stops its daemon.
func runDaemon(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	root := fs.String("root", "", "workspace root (default: the nearest folder above the working directory holding .git)")
	idle := fs.Duration("idle", idleDefault(), "exit after this long without a call (SIGHTLINE_DAEMON_IDLE)")
	logFile := fs.String("log-file", "", "write logs to this file")
	level := fs.String("log-level", "info", "log level: debug, info, warn, error")
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) > 1 || (len(pos) == 1 && pos[0] != "stop") {
		fmt.Fprintln(stderr, "usage: sightline daemon [stop] [--root DIR] [--idle D] [--log-file F]")
		return exitUsage
	}
	dir := *root
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintf(stderr, "sightline daemon: working directory: %v\n", err)
			return exitUsage
		}
		dir = workspaceRoot(wd)
	}
	if len(pos) == 1 {
		return stopDaemons(ctx, dir, stdout, stderr)
	}
	var log io.Writer = io.Discard
	if *logFile != "" {
		log = stderr
	}
	l, closeLog, err := newLogger(*logFile, *level, log)
	if err != nil {
		fmt.Fprintf(stderr, "sightline daemon: %v\n", err)
		return exitUsage
	}
	defer closeLog()
	max, _ := strconv.Atoi(os.Getenv("SIGHTLINE_DAEMON_MAX"))
	err = daemon.Run(ctx, daemon.Options{Root: dir, StateDir: os.Getenv("SIGHTLINE_STATE_DIR"), Idle: *idle, Max: max, Log: l})
	switch {
	case errors.Is(err, daemon.ErrRunning):
		return exitOK // another one serves the workspace: nothing to do
	case errors.Is(err, daemon.ErrTooMany):
		// The calls run in their own process: not a failure.
		fmt.Fprintf(stderr, "sightline daemon: %v\n", err)
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "sightline daemon: %v\n", err)
		return exitUsage
	}
	return exitOK
}

// idleDefault is SIGHTLINE_DAEMON_IDLE when it is a duration, else
// daemon.DefaultIdle.
func idleDefault() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("SIGHTLINE_DAEMON_IDLE")); err == nil && d > 0 {
		return d
	}
	return daemon.DefaultIdle
}

// stopDaemons asks the daemons of the workspace to exit, and waits (bounded)
// until they have written their ledger.
func stopDaemons(ctx context.Context, root string, stdout, stderr io.Writer) int {
	state := os.Getenv("SIGHTLINE_STATE_DIR")
	if state == "" {
		var err error
		if state, err = store.Dir(root); err != nil {
			fmt.Fprintf(stderr, "sightline daemon stop: %v\n", err)
			return exitUsage
		}
	}
	dir, err := bridge.Dir(state)
	if err != nil {
		fmt.Fprintf(stderr, "sightline daemon stop: %v\n", err)
		return exitUsage
	}
	for _, p := range bridge.Sockets(dir) {
		if !bridge.IsDaemon(p) {
			continue
		}
		c, err := bridge.Dial(ctx, p, 0)
		if err != nil {
			continue // gone already
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err = c.Call(cctx, bridge.MethodExit, nil)
		cancel()
		_ = c.Close()
		if err != nil && !socketGone(p) {
			// Asked, it closes its socket once its ledger is written: a
			// socket still there is a daemon that did not exit.
			fmt.Fprintf(stderr, "sightline daemon stop: %s: %v\n", p, err)
			continue
		}
		fmt.Fprintf(stdout, "stopped the daemon (pid %d)\n", c.PID)
	}
	return exitOK
}

// socketGone waits, bounded, for a daemon asked to exit to remove its
// socket (its answer may be cut off by its exit).
func socketGone(p string) bool {
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			return true
		}
	}
	return false
}
