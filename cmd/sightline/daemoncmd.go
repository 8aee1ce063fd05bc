package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/daemon"
	"github.com/sightline-lsp/sightline/store"
)

// stateOf is the state folder of the workspace at root:
// SIGHTLINE_STATE_DIR, else store.Dir's.
func stateOf(root string) (string, error) {
	if s := os.Getenv("SIGHTLINE_STATE_DIR"); s != "" {
		return filepath.Abs(s)
	}
	return store.Dir(root)
}

// lookState is stateOf without making the folder.
func lookState(root string) (string, error) {
	if s := os.Getenv("SIGHTLINE_STATE_DIR"); s != "" {
		return filepath.Abs(s)
	}
	return store.DirOf(root)
}

// runDaemon serves the workspace headless (what the CLI starts on demand
// unless SIGHTLINE_DAEMON=0, see daemon.Off), or shows, lists or stops
// daemons.
func runDaemon(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	root := fs.String("root", "", "workspace root (default: the nearest folder above the working directory holding .git or .sightline.json)")
	idle := fs.Duration("idle", idleDefault(), "exit after this long without a call (SIGHTLINE_DAEMON_IDLE)")
	logFile := fs.String("log-file", "", "write logs to this file (default: daemon.log in the workspace's state folder, rotated at 1 MiB)")
	level := fs.String("log-level", "info", "log level: debug, info, warn, error")
	all := fs.Bool("all", false, "stop: every daemon of the user")
	jsonOut := fs.Bool("json", false, "status, list: print JSON")
	pretty := prettyFlag(fs)
	pos, ok := parseFlags(fs, args, stderr)
	sub := ""
	if len(pos) == 1 {
		sub = pos[0]
	}
	if !ok || len(pos) > 1 || (sub != "" && sub != "stop" && sub != "status" && sub != "list") || (*all && sub != "stop") {
		fmt.Fprintln(stderr, "usage: sightline daemon [--root DIR] [--idle D] [--log-file F] | daemon status|list [--json] | daemon stop [--all]")
		return exitUsage
	}
	if sub == "list" {
		return listDaemons(ctx, stdout, stderr, *jsonOut, *pretty)
	}
	if sub == "stop" && *all {
		ds, err := daemon.List(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "sightline daemon stop: %v\n", err)
			return exitUsage
		}
		for _, d := range ds {
			stopDaemon(ctx, d.Socket, daemonRoot(d), stdout, stderr)
		}
		return exitOK
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
	dir, err := filepath.Abs(dir)
	if err != nil {
		fmt.Fprintf(stderr, "sightline daemon: --root: %v\n", err)
		return exitUsage
	}
	look := stateOf
	if sub != "" {
		look = lookState // it only looks: it makes no state folder
	}
	state, err := look(dir)
	if err != nil {
		fmt.Fprintf(stderr, "sightline daemon: %v\n", err)
		return exitUsage
	}
	switch sub {
	case "stop":
		if _, err := os.Stat(state); err != nil {
			return exitOK // no state folder: no daemon
		}
		return stopDaemons(ctx, state, stdout, stderr)
	case "status":
		return daemonStatus(ctx, dir, state, stdout, stderr, *jsonOut, *pretty)
	}
	path := *logFile
	if path == "" {
		path = daemon.LogPath(state)
	}
	lf, err := daemon.OpenLog(path, 0)
	if err != nil {
		fmt.Fprintf(stderr, "sightline daemon: %v\n", err)
		return exitUsage
	}
	defer lf.Close()
	lvl, err := zapcore.ParseLevel(*level)
	if err != nil {
		fmt.Fprintf(stderr, "sightline daemon: --log-level: %v\n", err)
		return exitUsage
	}
	l := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), lf, lvl)).With(zap.Int("pid", os.Getpid()))
	defer func() { _ = l.Sync() }()
	// Out of the workspace: a working directory there would keep its file
	// system busy (umount: "target is busy") for the daemon's life.
	if err := os.Chdir(state); err != nil {
		l.Warn("daemon: working directory", zap.Error(err))
	}
	max, _ := strconv.Atoi(os.Getenv("SIGHTLINE_DAEMON_MAX"))
	if isTerminal(stderr) {
		// Run by hand in the foreground: where its words go.
		fmt.Fprintf(stderr, "sightline daemon: serving %s; its log: %s\n", dir, path)
	}
	l.Info("daemon: start", zap.String("root", dir), zap.String("build", daemon.Build()), zap.Duration("idle", *idle))
	custom := ""
	if os.Getenv("SIGHTLINE_STATE_DIR") != "" {
		custom = state // absolute: the daemon left the folder it was named from
	}
	err = daemon.Run(ctx, daemon.Options{Root: dir, StateDir: custom, Idle: *idle, Max: max, Log: l, LogFile: path})
	switch {
	case errors.Is(err, daemon.ErrRunning):
		l.Info("daemon: not started: another daemon serves the workspace")
		return exitOK // another one serves the workspace: nothing to do
	case errors.Is(err, daemon.ErrTooMany):
		// The calls run in their own process: not a failure.
		l.Warn("daemon: not started", zap.Error(err))
		fmt.Fprintf(stderr, "sightline daemon: %v\n", err)
		return exitOK
	case err != nil:
		l.Error("daemon: failed", zap.Error(err))
		fmt.Fprintf(stderr, "sightline daemon: %v\n", err)
		return exitUsage
	}
	l.Info("daemon: stopped")
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

// stopDaemons asks the daemons of the state folder to exit, and waits
// (bounded) until they have written their ledger.
func stopDaemons(ctx context.Context, state string, stdout, stderr io.Writer) int {
	dir, err := bridge.Dir(state)
	if err != nil {
		fmt.Fprintf(stderr, "sightline daemon stop: %v\n", err)
		return exitUsage
	}
	for _, p := range bridge.Sockets(dir) {
		if bridge.IsDaemon(p) {
			stopDaemon(ctx, p, "", stdout, stderr)
		}
	}
	return exitOK
}

// stopDaemon asks the daemon listening on p (of the workspace root, when
// it is named) to exit and waits (bounded) until it has.
func stopDaemon(ctx context.Context, p, root string, stdout, stderr io.Writer) {
	c, err := bridge.Dial(ctx, p, 0)
	if err != nil {
		return // gone already
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	_, err = c.Call(cctx, bridge.MethodExit, nil)
	cancel()
	_ = c.Close()
	if err != nil && !socketGone(p) {
		// Asked, it closes its socket once its ledger is written: a
		// socket still there is a daemon that did not exit.
		fmt.Fprintf(stderr, "sightline daemon stop: %s: %v\n", p, err)
		return
	}
	if root != "" {
		fmt.Fprintf(stdout, "stopped the daemon of %s (pid %d)\n", root, c.PID)
		return
	}
	fmt.Fprintf(stdout, "stopped the daemon (pid %d)\n", c.PID)
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
