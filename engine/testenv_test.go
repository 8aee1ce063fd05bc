package engine

import (
	"context"
	"testing"

	"github.com/sightline-lsp/sightline/workspace"
)

// SetupTest is Setup for a test: the workspace's root folders are released
// when the test ends, before its temp folders are removed (Windows cannot
// remove a folder a handle holds open). A test closes the Env itself where
// a process would end.
func SetupTest(t testing.TB, o Options) *Env {
	env := Setup(context.Background(), o)
	ReleaseRoots(t, env.WS)
	return env
}

// ReleaseRoots closes a workspace when the test ends.
func ReleaseRoots(t testing.TB, ws *workspace.Workspace) { t.Cleanup(ws.Close) }
