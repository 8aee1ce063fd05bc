package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/sightline-lsp/sightline/daemon"
)

// daemonReport is `sightline daemon status --json`: the workspace, its
// state folder and log, and its daemon when one runs.
type daemonReport struct {
	Root     string       `json:"root"`
	StateDir string       `json:"stateDir"`
	Log      string       `json:"log"`
	Running  bool         `json:"running"`
	Daemon   *daemon.Info `json:"daemon,omitempty"`
	// ThisBuild: the daemon is of this command's build, so it serves it.
	ThisBuild bool `json:"thisBuild,omitempty"`
}

// daemonStatus shows the daemon of the workspace at root.
func daemonStatus(ctx context.Context, root, state string, stdout, stderr io.Writer, asJSON, pretty bool) int {
	rep := daemonReport{Root: root, StateDir: state, Log: daemon.LogPath(state)}
	var ds []daemon.Info
	if _, err := os.Stat(state); err == nil {
		if ds, err = daemon.Running(ctx, state); err != nil {
			fmt.Fprintf(stderr, "sightline daemon status: %v\n", err)
			return exitUsage
		}
	}
	if len(ds) > 0 {
		rep.Running, rep.Daemon = true, &ds[0]
		rep.ThisBuild = ds[0].Build == daemon.Build()
		if ds[0].Log != "" {
			rep.Log = ds[0].Log
		}
	}
	if asJSON {
		if err := writeJSON(stdout, rep, pretty); err != nil {
			fmt.Fprintf(stderr, "sightline daemon status: %v\n", err)
			return exitUsage
		}
		return exitOK
	}
	if !rep.Running {
		why := ""
		if daemon.Off(os.Getenv) {
			why = " (commands start none: SIGHTLINE_DAEMON=1 turns it on)"
		}
		fmt.Fprintf(stdout, "no daemon runs for %s%s\n  state   %s\n  log     %s\n", root, why, state, rep.Log)
		return exitOK
	}
	d := rep.Daemon
	build := d.Build
	if !rep.ThisBuild {
		build += " (another build: it does not serve this command)"
	}
	fmt.Fprintf(stdout, "daemon of %s\n", root)
	fmt.Fprintf(stdout, "  pid     %d\n  build   %s\n  uptime  %s\n  memory  %s\n  socket  %s\n  state   %s\n  log     %s\n",
		d.PID, build, uptime(d.Started), mib(d.Memory), d.Socket, state, rep.Log)
	return exitOK
}

// listDaemons shows every daemon of the user.
func listDaemons(ctx context.Context, stdout, stderr io.Writer, asJSON, pretty bool) int {
	ds, err := daemon.List(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "sightline daemon list: %v\n", err)
		return exitUsage
	}
	if ds == nil {
		ds = []daemon.Info{}
	}
	if asJSON {
		if err := writeJSON(stdout, ds, pretty); err != nil {
			fmt.Fprintf(stderr, "sightline daemon list: %v\n", err)
			return exitUsage
		}
		return exitOK
	}
	if len(ds) == 0 {
		fmt.Fprintln(stdout, "no daemon runs")
		return exitOK
	}
	this := daemon.Build()
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PID\tUPTIME\tMEMORY\tBUILD\tROOT")
	for _, d := range ds {
		build := d.Version
		if d.Build != this {
			build += " (another)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", d.PID, uptime(d.Started), mib(d.Memory), build, daemonRoot(d))
	}
	_ = tw.Flush()
	return exitOK
}

// daemonRoot is the workspace root a daemon serves.
func daemonRoot(d daemon.Info) string {
	if len(d.Roots) > 0 {
		return d.Roots[0]
	}
	return "?"
}

// uptime is how long ago an RFC 3339 start was, to the second.
func uptime(started string) string {
	t, err := time.Parse(time.RFC3339, started)
	if err != nil {
		return "?"
	}
	return time.Since(t).Truncate(time.Second).String()
}

// mib is a size in MiB, for people.
func mib(n int64) string {
	if n <= 0 {
		return "?"
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
