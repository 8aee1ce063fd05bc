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

// ReleaseRoots closes a workspace's root folders when the test ends. It
// stands in for closing the workspace, which holds them until then.
func ReleaseRoots(t testing.TB, ws *workspace.Workspace) {
	t.Cleanup(func() {
		for _, root := range ws.Roots() {
			if r, _, err := ws.Locate(workspace.FromPath(root)); err == nil {
				r.Close()
			}
		}
	})
}
