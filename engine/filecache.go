package engine

import (
	"github.com/sightline-lsp/sightline/policy"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// treeCache keeps the last walk of each root while the editor watches the
// workspace's files for sightline (workspace/didChangeWatchedFiles): with
// every change reported, a listing need not walk the tree again. A change
// of a listed file updates its entry; a file created or deleted drops the
// walk of its root. Without watchers (the CLI) nothing is kept.
type treeCache struct {
	mu       sync.Mutex
	watching bool
	walks    map[string]cachedWalk // by root
}

// cachedWalk is a root's listing under one policy, sorted by rel.
type cachedWalk struct {
	pol   *policy.Policy
	files []listed
}

func (c *treeCache) get(root string, pol *policy.Policy) ([]listed, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w, ok := c.walks[root]
	return w.files, ok && c.watching && w.pol == pol
}

func (c *treeCache) put(root string, pol *policy.Policy, files []listed) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.watching {
		return
	}
	if c.walks == nil {
		c.walks = map[string]cachedWalk{}
	}
	c.walks[root] = cachedWalk{pol, files}
}

// changed updates or drops what the cache holds of the file at abs: created
// tells that the file may be new (or gone), which changes the listing.
func (c *treeCache) changed(abs string, created bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for root, w := range c.walks {
		files := w.files
		rel, err := filepath.Rel(root, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		rel = filepath.ToSlash(rel)
		i, found := slices.BinarySearchFunc(files, rel, func(l listed, r string) int { return strings.Compare(l.rel, r) })
		fi, err := os.Lstat(abs)
		if created || !found || err != nil || !fi.Mode().IsRegular() {
			delete(c.walks, root) // the set of files changed (or .gitignore did): walk again
			continue
		}
		if filepath.Base(rel) == ".gitignore" {
			delete(c.walks, root)
			continue
		}
		// Copy on write: a listing under way holds the old slice.
		files = slices.Clone(files)
		files[i].info = fi
		files[i].entry.Size, files[i].entry.Mtime = fi.Size(), fi.ModTime()
		c.walks[root] = cachedWalk{w.pol, files}
	}
}

// WatchingFiles says whether the editor reports every file change
// (workspace/didChangeWatchedFiles registered): only then are walks kept.
func (e *Env) WatchingFiles(on bool) {
	e.trees.mu.Lock()
	e.trees.watching = on
	if !on {
		e.trees.walks = nil
	}
	e.trees.mu.Unlock()
}

// FileChanged tells the registry that the file at path changed on disk
// (created: it may be new or gone).
func (e *Env) FileChanged(path string, created bool) { e.trees.changed(path, created) }
