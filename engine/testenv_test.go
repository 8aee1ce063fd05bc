package engine

import (
	"context"
	"testing"

	"github.com/sightline-lsp/sightline/workspace"
)

// SetupTest is Setup for a test: the Env is closed when the test ends (its
// state database and root folders released) before its temp folders are
// removed, as Windows cannot remove a file or folder a handle holds open. A
// test may close it earlier itself, where a process would end.
func SetupTest(t testing.TB, o Options) *Env {
	env := Setup(context.Background(), o)
	t.Cleanup(func() { _ = env.Close(context.Background()) })
	return env
}

// ReleaseRoots closes a workspace when the test ends.
func ReleaseRoots(t testing.TB, ws *workspace.Workspace) { t.Cleanup(ws.Close) }
