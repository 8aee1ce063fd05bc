package workspace

import (
	"os"
	"path/filepath"

	"github.com/sightline-lsp/sightline/config"
)

// FindRoot is the workspace root of a command run in wd: the nearest
// folder at or above wd holding .git or the workspace configuration
// (.sightline.json), which marks a project's root where there is no
// repository. marked is false when no folder above holds either: the root
// is then wd itself, and the answers say so (RootNotice), since a command
// run in a subfolder would take another workspace.
func FindRoot(wd string) (root string, marked bool) {
	for dir := wd; ; {
		if hasMarker(dir) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wd, false
		}
		dir = parent
	}
}

// hasMarker reports whether dir holds a root marker.
func hasMarker(dir string) bool {
	for _, m := range []string{".git", config.FileName} {
		if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
			return true
		}
	}
	return false
}

// RootNotice is the warning the answers of a workspace found by FindRoot
// carry when no marker decided its root ("" when one did): which folder was
// taken, why, and how to mark the right one.
func RootNotice(root string) string {
	if _, marked := FindRoot(root); marked {
		return ""
	}
	return "No .git or " + config.FileName + " in " + root + " or above: the workspace is that folder itself, " +
		"and a command run in another folder has a workspace and a ledger of its own. Create " +
		config.FileName + " (holding {}) at the project's root to mark it."
}
