package engine

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
// computed when asked for, and remembered by size, modification and change
// times and inode, so a second listing hashes only what changed. What the
// policy hides stays hidden: a link is listed only as the file inside the
// workspace it names, a denied file (or a link to one) not at all, and a
// sensitive file without its hash (a hash lets a short secret be guessed).

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
	size, mtime, ctime int64
	ino                uint64
	hash               string
}

type walked struct {
	rel  string
	info os.FileInfo
	link bool // a symbolic link: listed as the file it names, if any
}

// Files lists the workspace's files.
func (e *Env) Files(ctx context.Context, p FilesParams) (res FilesResult, err error) {
	defer func() { res.audit(auditRow{caller: p.Caller, path: strings.Join(p.Globs, " ")}) }()
	var filter *policy.Policy
	if len(p.Globs) > 0 {
		if filter, err = policy.Compile(policy.Rules{Allow: p.Globs}, policy.Rules{}); err != nil {
			return res, result.Wrap(result.InvalidParams, err, err.Error())
		}
	}
	pol := e.Policy()
	if why := pol.Closed(); why != "" {
		res = FilesResult{Outcome: Refusal(closedErr("No file was listed", why)), Files: []FileEntry{}}
		return res, nil
	}
	session := p.SessionOr()
	res = FilesResult{Outcome: Outcome{OK: true}, Files: []FileEntry{}}
	unhashed := 0
	var todo []toHash
	for _, root := range e.WS.Roots() {
		listed, cached := e.trees.get(root, pol)
		if !cached {
			cr, _, err := e.WS.Locate(workspace.FromPath(root))
			if err != nil {
				return res, err
			}
			files, err := walkTree(ctx, cr)
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
			switch hash, ok := e.knownHash(l.abs, l.info); {
			case ent.Sensitive:
				unhashed++
			case ok:
				ent.FileHash = hash
			case p.Hash:
				todo = append(todo, toHash{len(res.Files), l.abs, l.link})
			}
			res.Files = append(res.Files, ent)
		}
	}
	if err := e.hashFiles(ctx, todo, res.Files); err != nil {
		return res, err
	}
	if unhashed > 0 && p.Hash {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d sensitive file(s) are listed without their hash: a hash lets a short secret be guessed. Read one (with the user's approval) to see its hash.", unhashed))
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
// sensitive ones marked, paths named as answers name them. A link is
// resolved through the confined root (as a read would: links outside the
// workspace, dangling ones and those to a denied file are left out) and
// shown as the regular file it names, as sensitive as that file.
func (e *Env) describe(root string, files []walked, pol *policy.Policy) []listed {
	out := make([]listed, 0, len(files))
	for _, f := range files {
		v := pol.Check(f.rel)
		if v.Kind == policy.Denied {
			continue // a denied file is not shown at all
		}
		abs := filepath.Join(root, filepath.FromSlash(f.rel))
		k := workspace.FromPath(abs)
		if f.link {
			cr, rel, err := e.WS.Locate(k)
			if err != nil {
				continue
			}
			t, err := cr.Resolve(rel, confine.Read)
			if err != nil || !t.Exists || !t.Info.Mode().IsRegular() {
				continue
			}
			if v = policy.Worse(v, pol.Check(filepath.ToSlash(t.Rel))); v.Kind == policy.Denied {
				continue
			}
			f.info = t.Info
		}
		out = append(out, listed{walked: f, abs: abs, key: k, entry: FileEntry{
			Path: e.WS.Rel(k), Size: f.info.Size(), Mtime: f.info.ModTime(),
			Tags: tagsOf(f.rel), Sensitive: v.Kind == policy.Sensitive,
		}})
	}
	return out
}

// knownHash returns the remembered hash of a file whose size, modification
// and change times and inode are unchanged.
func (e *Env) knownHash(abs string, fi os.FileInfo) (string, bool) {
	c := hashKey(fi)
	e.hashes.mu.Lock()
	got, ok := e.hashes.m[abs]
	e.hashes.mu.Unlock()
	if ok && c.size >= 0 && got.size == c.size && got.mtime == c.mtime && got.ctime == c.ctime && got.ino == c.ino {
		return got.hash, true
	}
	return "", false
}

// toHash is a listed file whose hash is to be computed: its index in the
// answer and its path.
type toHash struct {
	i    int
	abs  string
	link bool // listed as the file a link names
}

// progressEvery is how often a long call reports its progress.
const progressEvery = 100 * time.Millisecond

// hashFiles computes the hashes of the files todo names into files, on as
// many goroutines as there are cores (the disk and the cores, not one
// file after another, bound a large tree), telling the call's progress.
func (e *Env) hashFiles(ctx context.Context, todo []toHash, files []FileEntry) error {
	if len(todo) == 0 {
		return nil
	}
	report := ProgressOf(ctx)
	var done atomic.Int64
	var wg sync.WaitGroup
	var next atomic.Int64
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Go(func() {
			buf := make([]byte, 256<<10)
			for {
				k := int(next.Add(1)) - 1
				if k >= len(todo) || ctx.Err() != nil {
					return
				}
				files[todo[k].i].FileHash = e.computeHash(todo[k].abs, todo[k].link, buf)
				done.Add(1)
			}
		})
	}
	if report != nil {
		finished := make(chan struct{})
		go func() { wg.Wait(); close(finished) }()
		tick := time.NewTicker(progressEvery)
		for waiting := true; waiting; {
			select {
			case <-finished:
				waiting = false
			case <-tick.C:
				report(int(done.Load()), len(todo))
			}
		}
		tick.Stop()
		report(int(done.Load()), len(todo))
	}
	wg.Wait()
	return ctx.Err()
}

// computeHash computes the hash of a file (link: listed as the file a link
// names), reading it through buf, and
// remembers it. A hash is remembered only when the file's stat held while
// it was read and its last change is older than the clock's resolution
// (racyAge): a change within the same tick would leave the stat as it was.
// "" when the file cannot be read whole as one state.
func (e *Env) computeHash(abs string, link bool, buf []byte) string {
	// Through the confined root: a file swapped for a link to outside the
	// workspace since the walk is not followed.
	k := workspace.FromPath(abs)
	root, rel, err := e.WS.Locate(k)
	if err != nil {
		return ""
	}
	// A file the walk found is opened as it was found, following no link
	// (OpenRead refuses one that became a link since): resolving it name
	// by name, as a path from outside is, cost more than hashing it.
	t := confine.Target{Name: filepath.ToSlash(rel), Rel: rel, Exists: true}
	if link {
		if t, err = root.Resolve(rel, confine.Read); err != nil {
			return ""
		}
	}
	f, before, err := root.OpenRead(t)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	// Read by hand: io.Copy would take the file's WriteTo and a fresh
	// buffer per file.
	for {
		n, err := f.Read(buf)
		h.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return ""
		}
	}
	hash := hashline.FileHashOf(h.Sum(nil))
	after, err := confine.Stat(f)
	if err != nil {
		return ""
	}
	c := hashKey(before)
	if c.size < 0 {
		// No change time or identity here (see statOf): the hash is given,
		// not remembered, if size and modification time held.
		if after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
			return ""
		}
		return hash
	}
	if c != hashKey(after) {
		return "" // changed while it was read: the bytes hashed are no one state's
	}
	if changed := time.Unix(0, max(c.ctime, c.mtime)); time.Since(changed) <= racyAge {
		return hash // not remembered: a change within this tick would not show
	}
	c.hash = hash
	e.hashes.mu.Lock()
	if e.hashes.m == nil {
		e.hashes.m = map[string]cachedHash{}
	}
	e.hashes.m[abs] = c
	e.hashes.mu.Unlock()
	return c.hash
}

// walkTree lists the regular files and symbolic links under the confined
// root that git would not ignore, sorted by path. Folders are read in
// parallel, each through a descriptor reached without following any link
// (confine.Root.ReadDir), so a folder swapped for a link lists nothing
// behind it; links are never followed here (describe resolves them).
func walkTree(ctx context.Context, root *confine.Root) ([]walked, error) {
	base := readIgnore(root, ".git/info/exclude", nil)
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
		rel := path.Join(append([]string{"."}, dir...)...)
		ents, err := root.ReadDir(filepath.FromSlash(rel))
		if err != nil {
			<-sem
			if len(dir) == 0 {
				mu.Lock()
				first = err
				mu.Unlock()
			}
			return
		}
		for _, fi := range ents {
			if fi.Name() == ".gitignore" {
				patterns = readIgnore(root, path.Join(rel, ".gitignore"), dir, patterns...)
				break
			}
		}
		m := gitignore.NewMatcher(patterns)
		var local []walked
		var subdirs [][]string
		for _, fi := range ents {
			name := fi.Name()
			segs := append(slices.Clip(dir), name)
			isDir := fi.IsDir()
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
			link := fi.Mode()&os.ModeSymlink != 0
			if !link && !fi.Mode().IsRegular() {
				continue
			}
			local = append(local, walked{rel: strings.Join(segs, "/"), info: fi, link: link})
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

// readIgnore appends the patterns of an ignore file (rel, read through the
// confined root; for the folder domain) to inherited ones, in order: a
// later pattern wins, as in git.
func readIgnore(root *confine.Root, rel string, domain []string, inherited ...gitignore.Pattern) []gitignore.Pattern {
	t, err := root.Resolve(filepath.FromSlash(rel), confine.Read)
	if err != nil {
		return inherited
	}
	data, _, err := root.ReadFile(t, maxIgnoreFile)
	if err != nil {
		return inherited
	}
	out := slices.Clone(inherited)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		l := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, gitignore.ParsePattern(l, slices.Clone(domain)))
	}
	return out
}

// maxIgnoreFile bounds an ignore file read (git's own are far smaller).
const maxIgnoreFile = 4 << 20

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

// hashKey is what a remembered hash is keyed by (size -1: the platform
// gives no change time, so nothing is remembered).
func hashKey(fi os.FileInfo) cachedHash {
	st, ok := fileStat("", fi)
	if !ok {
		return cachedHash{size: -1}
	}
	return cachedHash{size: st.Size, mtime: st.MtimeNs, ctime: st.CtimeNs, ino: st.Ino}
}
