package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/store"
)

// Info is a running daemon as `sightline daemon status` and `list` show
// it: its status answer and the socket it answered on.
type Info struct {
	bridge.Status
	Socket string `json:"socket"`
}

// queryWait bounds a daemon's status answer: a live one answers at once.
const queryWait = 2 * time.Second

// Running lists the daemons listening in the socket folder of the state
// folder state. A socket nobody listens on is a killed daemon's, removed
// by the dial (bridge.Dial); one that does not answer is listed with its
// pid and socket only.
func Running(ctx context.Context, state string) ([]Info, error) {
	dir, err := bridge.Dir(state)
	if err != nil {
		return nil, fmt.Errorf("daemon: %w", err)
	}
	var out []Info
	for _, p := range bridge.Sockets(dir) {
		if !bridge.IsDaemon(p) {
			continue
		}
		c, err := bridge.Dial(ctx, p, queryWait)
		if err != nil {
			continue // gone
		}
		in := Info{Socket: p, Status: bridge.Status{PID: c.PID, Daemon: true, StateDir: state}}
		qctx, cancel := context.WithTimeout(ctx, queryWait)
		raw, err := c.Query(qctx, bridge.MethodStatus, nil)
		cancel()
		_ = c.Close()
		if err == nil {
			_ = json.Unmarshal(raw, &in.Status)
		}
		out = append(out, in)
	}
	return out, nil
}

// List lists the user's running daemons: those of every state folder under
// the state home (store.States).
func List(ctx context.Context) ([]Info, error) {
	states, err := store.States(ctx)
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, s := range states {
		ds, err := Running(ctx, s.Dir)
		if err != nil {
			continue // a state folder whose socket folder cannot be made has no daemon
		}
		out = append(out, ds...)
	}
	return out, nil
}
