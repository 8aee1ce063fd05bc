package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/store"
)

// stateEntry is a state folder as `sightline state list --json` shows it.
type stateEntry struct {
	store.State
	// InUse: a server (a daemon, an editor's) listens for the workspace.
	InUse bool `json:"inUse"`
}

// pruneEntry is a state folder `sightline state prune` removed (or would).
type pruneEntry struct {
	Dir     string `json:"dir"`
	Root    string `json:"root"`
	Size    int64  `json:"size"`
	Removed bool   `json:"removed"`
	Error   string `json:"error,omitempty"`
}

// runState lists the user's state folders, or removes those of workspaces
// that are gone.
func runState(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("state", flag.ContinueOnError)
	jsonOut := fs.Bool("json", false, "print JSON")
	dry := fs.Bool("dry-run", false, "prune: say what would be removed, remove nothing")
	pretty := prettyFlag(fs)
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) != 1 || (pos[0] != "list" && pos[0] != "prune") || (*dry && pos[0] != "prune") {
		fmt.Fprintln(stderr, "usage: sightline state list [--json] | state prune [--dry-run] [--json]")
		return exitUsage
	}
	states, err := store.States(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "sightline state: %v\n", err)
		return exitUsage
	}
	if pos[0] == "prune" {
		return pruneStates(states, *dry, stdout, stderr, *jsonOut, *pretty)
	}
	out := make([]stateEntry, 0, len(states))
	for _, s := range states {
		out = append(out, stateEntry{State: s, InUse: inUse(s.Dir)})
	}
	if *jsonOut {
		if err := writeJSON(stdout, out, *pretty); err != nil {
			fmt.Fprintf(stderr, "sightline state list: %v\n", err)
			return exitUsage
		}
		return exitOK
	}
	if len(out) == 0 {
		fmt.Fprintln(stdout, "no state folders")
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SIZE\tLAST USED\tROOT\tSTATE FOLDER")
	for _, s := range out {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", size(s.Size), s.LastUsed.Local().Format(time.DateTime), rootLabel(s), s.Dir)
	}
	_ = tw.Flush()
	return exitOK
}

// rootLabel is a state folder's root with what is known of it.
func rootLabel(s stateEntry) string {
	switch {
	case s.Root == "":
		return "(unknown)"
	case !s.RootExists:
		return s.Root + " (gone)"
	case s.InUse:
		return s.Root + " (in use)"
	}
	return s.Root
}

// pruneStates removes the state folders whose workspace root is gone,
// unless a server still listens for them (a daemon that has not noticed
// yet, an editor): what it holds would be written back. A folder whose
// root is unknown is kept: nothing says its workspace is gone.
func pruneStates(states []store.State, dry bool, stdout, stderr io.Writer, asJSON, pretty bool) int {
	out := []pruneEntry{}
	code := exitOK
	for _, s := range states {
		if s.Root == "" || s.RootExists || inUse(s.Dir) {
			continue
		}
		e := pruneEntry{Dir: s.Dir, Root: s.Root, Size: s.Size}
		if !dry {
			if err := removeState(s.Dir); err != nil {
				e.Error = err.Error()
				code = exitUsage
			} else {
				e.Removed = true
			}
		}
		out = append(out, e)
	}
	if asJSON {
		if err := writeJSON(stdout, out, pretty); err != nil {
			fmt.Fprintf(stderr, "sightline state prune: %v\n", err)
			return exitUsage
		}
		return code
	}
	verb := "removed"
	if dry {
		verb = "would remove"
	}
	var total int64
	for _, e := range out {
		if e.Error != "" {
			fmt.Fprintf(stderr, "sightline state prune: %s: %s\n", e.Dir, e.Error)
			continue
		}
		total += e.Size
		fmt.Fprintf(stdout, "%s %s (%s, the state of %s, which is gone)\n", verb, e.Dir, size(e.Size), e.Root)
	}
	if len(out) == 0 {
		fmt.Fprintln(stdout, "nothing to prune: every state folder's workspace exists, or is in use")
	} else {
		fmt.Fprintf(stdout, "%s %s in all\n", verb, size(total))
	}
	return code
}

// inUse reports whether a server listens in the state folder's socket
// folder: a daemon or an editor's language server.
func inUse(state string) bool {
	dir, err := bridge.Dir(state)
	if err != nil {
		return false
	}
	for _, p := range bridge.Sockets(dir) {
		if c, err := bridge.Dial(context.Background(), p, 0); err == nil {
			_ = c.Close()
			return true
		}
	}
	return false
}

// removeState removes a state folder and its socket folder when that lies
// elsewhere (a short one, see bridge.Dir).
func removeState(state string) error {
	if dir, err := bridge.Dir(state); err == nil && !strings.HasPrefix(dir, state+string(os.PathSeparator)) {
		_ = os.RemoveAll(dir)
	}
	if err := os.RemoveAll(state); err != nil {
		return fmt.Errorf("remove %s: %w", state, err)
	}
	return nil
}

// size is a byte count for people.
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
