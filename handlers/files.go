package handlers

import (
	"bufio"
	"context"
	"crypto/sha256"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/sightline-lsp/sightline/confine"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/policy"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// The registry lists the workspace's files as git would track them (every
// .gitignore on the way down, .git/info/exclude, and never .git itself),
// with what an agent needs to choose what to read: size, modification time,
// tags, sensitivity and the session's ledger state. File hashes are lazy:
// computed when asked for, and remembered by size, modification time and
// inode, so a second listing hashes only what changed.

// FilesParams are the params of sightline/files.
type FilesParams struct {
	Caller
	// Globs narrow the listing (as policy globs: without a slash, a name at
	// any depth); none lists everything.
	Globs []string `json:"globs,omitempty"`
	// Hash asks for every file's hash (else only the remembered ones).
	Hash bool `json:"hash,omitempty"`
}

// FileEntry is one file of the registry.
type FileEntry struct {
	Path      string    `json:"path"`
	Size      int64     `json:"size"`
	FileHash  string    `json:"fileHash,omitempty"`
	Mtime     time.Time `json:"mtime"`
	Tags      []string  `json:"tags"`
	Sensitive bool      `json:"sensitive,omitempty"`
	State     string    `json:"state"`
}

// FilesResult is the answer of sightline/files.
type FilesResult struct {
	Outcome
	Files []FileEntry `json:"files"`
}

// hashCache remembers file hashes by identity and metadata.
type hashCache struct {
	mu sync.Mutex
	m  map[string]cachedHash
}

type cachedHash struct {
	size, mtime int64
	ino         uint64
	hash        string
}

type walked struct {
	rel  string
	info os.FileInfo
}

// Files lists the workspace's files.
func (e *Env) Files(ctx context.Context, p FilesParams) (res FilesResult, err error) {
	start := time.Now()
	defer func() {
		if err == nil {
			e.audit(ctx, "sightline/files", p.Caller, strings.Join(p.Globs, " "), res.Outcome, "", "", "", time.Since(start), nil)
		}
	}()
	var filter *policy.Policy
	if len(p.Globs) > 0 {
		if filter, err = policy.Compile(policy.Rules{Allow: p.Globs}, policy.Rules{}); err != nil {
			return res, result.Wrap(result.InvalidParams, err, err.Error())
		}
	}
	pol := e.Policy()
	session := p.SessionOr()
	res = FilesResult{Outcome: Outcome{OK: true}, Files: []FileEntry{}}
	for _, root := range e.WS.Roots() {
		listed, cached := e.trees.get(root, pol)
		if !cached {
			files, err := walkTree(ctx, root)
			if err != nil {
				return res, err
			}
			listed = e.describe(root, files, pol)
			e.trees.put(root, pol, listed)
		}
		for _, l := range listed {
			if filter != nil && filter.Check(l.rel).Kind == policy.Denied {
				continue
			}
			ent := l.entry
			ent.Tags = slices.Clone(l.entry.Tags)
			ent.State = string(e.Ledger.Summarize(session, ledger.DocKey(l.key)).State)
			ent.FileHash = e.fileHash(l.abs, l.info, p.Hash)
			res.Files = append(res.Files, ent)
		}
	}
	return res, nil
}

// listed is a walked file as the registry shows it, without what changes
// between calls (the session's ledger state, a hash computed on request).
type listed struct {
	walked
	abs   string
	key   workspace.Key
	entry FileEntry
}

// describe turns a walk into the listing under pol: denied files left out,
// sensitive ones marked, paths named as answers name them.
func (e *Env) describe(root string, files []walked, pol *policy.Policy) []listed {
	out := make([]listed, 0, len(files))
	for _, f := range files {
		v := pol.Check(f.rel)
		if v.Kind == policy.Denied {
			continue // a denied file is not shown at all
		}
		abs := filepath.Join(root, filepath.FromSlash(f.rel))
		k := workspace.FromPath(abs)
		out = append(out, listed{walked: f, abs: abs, key: k, entry: FileEntry{
			Path: e.WS.Rel(k), Size: f.info.Size(), Mtime: f.info.ModTime(),
			Tags: tagsOf(f.rel), Sensitive: v.Kind == policy.Sensitive,
		}})
	}
	return out
}

// fileHash returns the remembered hash of a file whose size, modification
// time and inode are unchanged, or computes it when compute is set.
func (e *Env) fileHash(abs string, fi os.FileInfo, compute bool) string {
	c := cachedHash{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	c.ino = inode(fi)
	e.hashes.mu.Lock()
	got, ok := e.hashes.m[abs]
	e.hashes.mu.Unlock()
	if ok && got.size == c.size && got.mtime == c.mtime && got.ino == c.ino {
		return got.hash
	}
	if !compute {
		return ""
	}
	// Through the confined root: a file swapped for a link to outside the
	// workspace since the walk is not followed.
	k := workspace.FromPath(abs)
	root, rel, err := e.WS.Locate(k)
	if err != nil {
		return ""
	}
	t, err := root.Resolve(rel, confine.Read)
	if err != nil {
		return ""
	}
	f, _, err := root.OpenRead(t)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	c.hash = hashline.FileHashOf(h.Sum(nil))
	e.hashes.mu.Lock()
	if e.hashes.m == nil {
		e.hashes.m = map[string]cachedHash{}
	}
	e.hashes.m[abs] = c
	e.hashes.mu.Unlock()
	return c.hash
}

// walkTree lists the regular files under root that git would not ignore,
// sorted by path. Folders are read in parallel; symbolic links are listed
// only when they name a regular file inside the tree's reach (their target
// is checked when read, through the confined root), never followed into
// folders.
func walkTree(ctx context.Context, root string) ([]walked, error) {
	base := readIgnore(filepath.Join(root, ".git", "info", "exclude"), nil)
	var (
		mu    sync.Mutex
		out   []walked
		wg    sync.WaitGroup
		sem   = make(chan struct{}, 16)
		first error
	)
	var visit func(dir []string, patterns []gitignore.Pattern)
	visit = func(dir []string, patterns []gitignore.Pattern) {
		defer wg.Done()
		if ctx.Err() != nil {
			return
		}
		sem <- struct{}{}
		abs := filepath.Join(append([]string{root}, dir...)...)
		ents, err := os.ReadDir(abs)
		if err != nil {
			<-sem
			if len(dir) == 0 {
				mu.Lock()
				first = err
				mu.Unlock()
			}
			return
		}
		for _, de := range ents {
			if de.Name() == ".gitignore" {
				patterns = readIgnore(filepath.Join(abs, ".gitignore"), dir, patterns...)
				break
			}
		}
		m := gitignore.NewMatcher(patterns)
		var local []walked
		var subdirs [][]string
		for _, de := range ents {
			name := de.Name()
			segs := append(slices.Clip(dir), name)
			isDir := de.IsDir()
			if isDir && (name == ".git" || name == ".hg" || name == ".svn") {
				continue
			}
			if m.Match(segs, isDir) {
				continue
			}
			if isDir {
				subdirs = append(subdirs, segs)
				continue
			}
			fi, err := de.Info()
			if err != nil {
				continue // vanished meanwhile
			}
			if fi.Mode()&os.ModeSymlink != 0 {
				st, err := os.Stat(filepath.Join(abs, name))
				if err != nil || !st.Mode().IsRegular() {
					continue
				}
				fi = st
			} else if !fi.Mode().IsRegular() {
				continue
			}
			local = append(local, walked{rel: strings.Join(segs, "/"), info: fi})
		}
		<-sem
		mu.Lock()
		out = append(out, local...)
		mu.Unlock()
		for _, sd := range subdirs {
			wg.Add(1)
			go visit(sd, patterns)
		}
	}
	wg.Add(1)
	visit(nil, base)
	wg.Wait()
	if first != nil {
		return nil, result.Wrap(result.IOError, first, "The workspace root cannot be listed: "+first.Error())
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b walked) int { return strings.Compare(a.rel, b.rel) })
	return out, nil
}

// readIgnore appends the patterns of an ignore file (for the folder domain)
// to inherited ones, in order: a later pattern wins, as in git.
func readIgnore(file string, domain []string, inherited ...gitignore.Pattern) []gitignore.Pattern {
	f, err := os.Open(file)
	if err != nil {
		return inherited
	}
	defer f.Close()
	out := slices.Clone(inherited)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, gitignore.ParsePattern(l, slices.Clone(domain)))
	}
	return out
}

var codeExt = map[string]bool{
	".go": true, ".py": true, ".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".tsx": true, ".jsx": true,
	".rs": true, ".java": true, ".kt": true, ".c": true, ".h": true, ".cc": true, ".cpp": true, ".hpp": true,
	".cs": true, ".rb": true, ".php": true, ".swift": true, ".scala": true, ".lua": true, ".sh": true,
	".bash": true, ".zsh": true, ".sql": true, ".m": true, ".mm": true, ".ex": true, ".exs": true, ".erl": true,
	".hs": true, ".ml": true, ".clj": true, ".dart": true, ".vue": true, ".svelte": true, ".r": true, ".pl": true,
}

var docExt = map[string]bool{".md": true, ".markdown": true, ".rst": true, ".txt": true, ".adoc": true, ".org": true}

var configExt = map[string]bool{".json": true, ".yaml": true, ".yml": true, ".toml": true, ".ini": true, ".cfg": true,
	".conf": true, ".properties": true, ".xml": true, ".plist": true, ".env": true}

// tagsOf classifies a path by its name: code, test, doc, config, generated.
func tagsOf(rel string) []string {
	name := path.Base(rel)
	lower := strings.ToLower(name)
	ext := path.Ext(lower)
	var tags []string
	switch {
	case codeExt[ext]:
		tags = append(tags, "code")
	case docExt[ext] || strings.HasPrefix(lower, "readme") || strings.HasPrefix(lower, "license") ||
		strings.HasPrefix(lower, "changelog") || strings.HasPrefix(rel, "docs/"):
		tags = append(tags, "doc")
	}
	if configExt[ext] || strings.HasPrefix(lower, ".") && ext == "" || strings.HasPrefix(lower, ".env") ||
		lower == "makefile" || lower == "dockerfile" || lower == "go.mod" || strings.HasSuffix(lower, "rc") && strings.HasPrefix(lower, ".") {
		if !slices.Contains(tags, "config") {
			tags = append(tags, "config")
		}
	}
	segs := strings.Split(rel, "/")
	isTest := strings.HasSuffix(lower, "_test.go") || strings.HasPrefix(lower, "test_") && ext == ".py" ||
		strings.HasSuffix(lower, "_test.py") || strings.Contains(lower, ".test.") || strings.Contains(lower, ".spec.") ||
		strings.HasSuffix(lower, "_spec.rb") || strings.HasSuffix(lower, "test.java")
	for _, s := range segs[:len(segs)-1] {
		switch s {
		case "test", "tests", "__tests__", "testdata", "spec":
			isTest = true
		}
	}
	if isTest {
		tags = append(tags, "test")
	}
	if strings.HasSuffix(lower, ".pb.go") || strings.HasSuffix(lower, "_gen.go") || strings.Contains(lower, ".gen.") ||
		strings.HasPrefix(lower, "zz_generated") || strings.Contains(lower, ".min.") || lower == "go.sum" ||
		strings.HasSuffix(lower, ".lock") || lower == "package-lock.json" || strings.HasSuffix(lower, "_pb2.py") {
		tags = append(tags, "generated")
	}
	if tags == nil {
		tags = []string{}
	}
	return tags
}
