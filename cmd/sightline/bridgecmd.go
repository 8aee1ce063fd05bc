package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/store"
)

// bridgeReport is what `sightline bridge` prints: where the workspace's
// sockets live and the servers listening there.
type bridgeReport struct {
	Root    string          `json:"root"`
	Dir     string          `json:"dir"`
	Warning string          `json:"warning,omitempty"`
	Servers []bridgeServer  `json:"servers"`
	Silent  []bridgeSilence `json:"silent"`
}

type bridgeServer struct {
	Socket string `json:"socket"`
	bridge.Status
}

type bridgeSilence struct {
	Socket string `json:"socket"`
	Error  string `json:"error"`
}

// runBridge reports the bridge of the workspace: what an editor's health
// check and a puzzled user need to see whether the CLI reaches the editor.
func runBridge(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bridge", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) != 0 {
		fmt.Fprintln(stderr, "usage: sightline bridge [--json]")
		return exitUsage
	}
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "sightline bridge: working directory: %v\n", err)
		return exitUsage
	}
	rep := bridgeReport{Root: workspaceRoot(wd), Servers: []bridgeServer{}, Silent: []bridgeSilence{}}
	state := os.Getenv("SIGHTLINE_STATE_DIR")
	if state == "" {
		if state, err = store.Dir(rep.Root); err != nil {
			fmt.Fprintf(stderr, "sightline bridge: %v\n", err)
			return exitUsage
		}
	}
	if rep.Dir, err = bridge.Dir(state); err != nil {
		rep.Warning = err.Error() + ": no server can be reached; fix the folder's owner or permissions"
	}
	for _, p := range bridge.Sockets(rep.Dir) {
		c, err := bridge.Dial(ctx, p, 0)
		if err != nil {
			rep.Silent = append(rep.Silent, bridgeSilence{p, err.Error()})
			continue
		}
		s := bridgeServer{Socket: p}
		a, err := c.Call(ctx, bridge.MethodStatus, nil)
		_ = c.Close()
		if err == nil {
			err = json.Unmarshal(a.Result, &s.Status)
		}
		if err != nil {
			rep.Silent = append(rep.Silent, bridgeSilence{p, err.Error()})
			continue
		}
		rep.Servers = append(rep.Servers, s)
	}
	if *asJSON {
		if err := writeJSON(stdout, rep, isTerminal(stdout)); err != nil {
			return exitUsage
		}
		return exitOK
	}
	fmt.Fprintf(stdout, "workspace %s\nsocket folder %s\n", rep.Root, rep.Dir)
	if rep.Warning != "" {
		fmt.Fprintf(stdout, "warning: %s\n", rep.Warning)
	}
	for _, s := range rep.Servers {
		if s.Daemon {
			fmt.Fprintf(stdout, "daemon pid %d (sightline %s) on %s\n", s.PID, s.Version, s.Socket)
			continue
		}
		fmt.Fprintf(stdout, "server pid %d (sightline %s) on %s, %d open documents\n", s.PID, s.Version, s.Socket, len(s.Open))
	}
	for _, s := range rep.Silent {
		fmt.Fprintf(stdout, "no answer on %s: %s\n", s.Socket, s.Error)
	}
	if len(rep.Servers) == 0 && len(rep.Silent) == 0 {
		fmt.Fprintln(stdout, "no server listens: the CLI and sightline mcp work on the files on disk")
	}
	return exitOK
}
