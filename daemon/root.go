package daemon

import "github.com/sightline-lsp/sightline/workspace"

// rootNotices are the warnings the daemon's answers carry about its root,
// as a command's in its own process would (workspace.RootNotice).
func rootNotices(root string) []string {
	if n := workspace.RootNotice(root); n != "" {
		return []string{n}
	}
	return nil
}
