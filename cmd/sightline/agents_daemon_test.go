//go:build unix

package main

import (
	"testing"

	"github.com/sightline-lsp/sightline/bridge"
)

// TestAgentsThroughTheDaemon: the real agents' hooks, as on Linux by
// default, with the daemon on: the first hook event runs in its own process
// and starts it, the next ones (and the test's ledger and audit) go to it,
// and the outcomes are the same as in process.
func TestAgentsThroughTheDaemon(t *testing.T) {
	for name, run := range map[string]func(*testing.T, *cli){"claude": claudeEndToEnd, "codex": codexEndToEnd} {
		t.Run(name, func(t *testing.T) {
			c, sockDir := daemonCLI(t, agentFiles)
			run(t, c)
			daemons := 0
			for _, p := range bridge.Sockets(sockDir) {
				if bridge.IsDaemon(p) {
					daemons++
				}
			}
			if daemons != 1 {
				t.Fatalf("daemons listening after the agent's run: %d, want the one its first hook started", daemons)
			}
		})
	}
}
