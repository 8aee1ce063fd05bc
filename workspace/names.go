package workspace

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/sightline-lsp/sightline/confine"
	"github.com/sightline-lsp/sightline/result"
)

// Key identifies a document: a canonical URI string. Clients spell the same
// file differently (VS Code percent-encodes ':' and '@' and lower-cases drive
// letters; Neovim does not), so every URI is normalised to a Key before it is
// compared or stored.
type Key string

// String returns the key's URI text.
func (k Key) String() string { return string(k) }

// IsFile reports whether the key names a file on disk.
func (k Key) IsFile() bool { return strings.HasPrefix(string(k), "file://") }

// Path returns the file system path of a file key.
func (k Key) Path() (string, bool) {
	if !k.IsFile() {
		return "", false
	}
	u, err := url.Parse(string(k))
	if err != nil {
		return "", false
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		p = strings.TrimPrefix(p, "/")
		if len(p) == 2 && p[1] == ':' { // the drive's root: "c:" alone is the drive's current folder
			p += "/"
		}
	}
	return filepath.FromSlash(p), true
}

// Host returns the host of a file key naming another machine
// (file://server/share/...), else "".
func (k Key) Host() string {
	if !k.IsFile() {
		return ""
	}
	u, err := url.Parse(string(k))
	if err != nil || u.Host == "localhost" {
		return ""
	}
	return u.Host
}

// Normalize turns a URI as a client sent it into a Key. File URIs get a decoded,
// cleaned path, re-encoded one canonical way (drive letters lower-cased); other
// schemes (untitled:, git:, vscode-notebook-cell:) keep their text with only
// the scheme lower-cased, since they name buffers, not files.
func Normalize(raw string) (Key, error) {
	if raw == "" {
		return "", fmt.Errorf("empty document URI")
	}
	// A NUL byte can name no file: refuse it as denied (like Resolve) and
	// never echo it raw into a message.
	if strings.ContainsRune(raw, 0) {
		return "", result.Errorf(result.Denied, "Document URI %q holds a NUL byte.", raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("invalid document URI %q: %w", raw, err)
	}
	if u.Scheme == "" {
		return "", fmt.Errorf("document URI %q has no scheme (expected file://...)", raw)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "file" {
		return Key(scheme + raw[len(u.Scheme):]), nil
	}
	if len(u.Host) == 2 && u.Host[1] == ':' && isASCIILetter(u.Host[0]) {
		// file://C:/x: a drive letter where the host goes (some clients
		// write one slash too few); no host is named so.
		u.Path, u.Host = "/"+u.Host+u.Path, ""
	}
	if u.Host != "" && u.Host != "localhost" {
		// UNC paths (file://server/share) keep their host.
		return Key("file://" + strings.ToLower(u.Host) + encodePath(cleanSlash(u.Path))), nil
	}
	if strings.ContainsRune(u.Path, 0) {
		return "", result.Errorf(result.Denied, "Document URI %s names a path holding a NUL byte.", raw) // raw holds it percent-encoded
	}
	return FromPath(filepath.FromSlash(u.Path)), nil
}

// FromPath makes the Key of an absolute file system path. On Windows,
// where names differ by case only in spelling, each name that exists is
// spelled as the disk spells it (see onDisk), so every spelling of a file
// makes one key.
func FromPath(path string) Key {
	p := filepath.ToSlash(filepath.Clean(path))
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' && isASCIILetter(p[1]) { // a URI's /c:/x
		p = p[1:]
	}
	if len(p) >= 2 && p[1] == ':' { // Windows drive without leading slash
		p = "/" + filepath.ToSlash(onDisk(filepath.FromSlash(p)))
	}
	return Key("file://" + encodePath(cleanSlash(p)))
}

// cleanSlash cleans a slash path and lower-cases a Windows drive letter.
func cleanSlash(p string) string {
	if p == "" {
		return "/"
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	// path.Clean semantics without importing path twice.
	p = filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' && isASCIILetter(p[1]) {
		p = "/" + strings.ToLower(p[1:2]) + p[2:]
	}
	return p
}

func isASCIILetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// encodePath percent-encodes everything but unreserved characters, '/', and
// the drive colon, the way VS Code does, so keys are byte-identical whatever
// encoding the client chose.
func encodePath(p string) string {
	var b strings.Builder
	b.Grow(len(p) + 8)
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '/' || c == '-' || c == '.' || c == '_' || c == '~' ||
			('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9'):
			b.WriteByte(c)
		case c == ':' && i == 2 && p[0] == '/' && isASCIILetter(p[1]):
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// NormalizeDoc is Normalize for a document an agent names: a file URI ending in
// a slash names a folder, which no read or write can mean (cleaning the
// path would make a file of the folder's name).
func NormalizeDoc(raw string) (Key, error) {
	k, err := Normalize(raw)
	if err == nil && k.IsFile() && strings.HasSuffix(raw, "/") && !strings.HasSuffix(string(k), ":///") {
		return "", FolderError(raw)
	}
	return k, err
}

// NamesFolder reports whether a path ends in a separator: it names a folder,
// which cleaning the path would hide.
func NamesFolder(path string) bool {
	return len(path) > 1 && os.IsPathSeparator(path[len(path)-1])
}

// FolderError refuses a path or URI that names a folder.
func FolderError(name string) error {
	return result.Errorf(result.InvalidParams, "%s ends in a separator, so it names a folder; sightline reads and writes files: name a file in it.", name)
}

// roots is an immutable set of workspace roots: absolute, cleaned, the
// primary one first, each with its confined handle (nil when it could not be
// opened; its files then cannot be read or written).
type roots struct {
	list []string
	real []string // list with its symbolic links followed, once (inside)
	fs   []*confine.Root
	errs []error
}

// newRoots opens the roots of in, reusing the handles of prev (nil: none)
// for the folders it already holds, so a call under way on a folder that
// stays a root never loses its handle.
func (w *Workspace) newRoots(in []string, prev *roots) *roots {
	r := &roots{list: make([]string, 0, len(in))}
	for _, p := range in {
		abs, err := filepath.Abs(p)
		if err != nil || slices.Contains(r.list, filepath.Clean(abs)) {
			continue
		}
		abs = filepath.Clean(abs)
		var cr *confine.Root
		if prev != nil {
			if i := slices.Index(prev.list, abs); i >= 0 && prev.fs[i] != nil {
				cr = prev.fs[i]
			}
		}
		if cr == nil {
			cr, err = confine.Open(abs, w.checkGate)
		}
		r.list = append(r.list, abs)
		r.real = append(r.real, resolveExisting(abs))
		r.fs = append(r.fs, cr)
		r.errs = append(r.errs, err)
	}
	return r
}

// closeExcept closes the handles of r that keep does not hold.
func (r *roots) closeExcept(keep *roots) {
	for _, cr := range r.fs {
		if cr != nil && (keep == nil || !slices.Contains(keep.fs, cr)) {
			cr.Close()
		}
	}
}

// Place is where a document is, worked out once for a call: its key, the
// name answers give it, and, for a file inside a root, that root's confined
// handle and the file's path relative to it. The admission step judges a
// Place and the load reads through the same one (GetAt): what is read is
// what was judged, and neither asks the workspace again.
type Place struct {
	Key  Key
	Rel  string // the name answers give it (see Rel)
	Path string // the file system path; "" for a buffer without a file
	// Root is the confined root the file lies in and In its path relative
	// to it, as written (links are the root's to follow); Root is nil when
	// Err says why no file can be reached (not a file, another host,
	// outside every root, a root that could not be opened).
	Root *confine.Root
	In   string
	Err  error
	// Escapes: inside a root as written, the path leads out of every root
	// through a symbolic link. Only Place looks (a load reads through Root,
	// which refuses a way out itself).
	Escapes bool
}

// Place places a key (see Place), with the roots of the moment.
func (w *Workspace) Place(k Key) Place {
	rs := w.roots.Load()
	pl := rs.place(k)
	if pl.Root != nil {
		pl.Escapes = !rs.inside(pl.Path)
	}
	return pl
}

// PlaceURI is Place for a URI as a caller sent it. One that names no
// document is refused (a NUL byte as denied, anything else as
// invalid_params); the Place then names it as well as it can: Rel is ""
// when it names nothing, and never holds a NUL byte.
func (w *Workspace) PlaceURI(uri string) (Place, error) {
	k, err := NormalizeDoc(uri)
	if err != nil {
		var pl Place
		if k, err := Normalize(uri); err == nil { // a folder's URI
			pl.Key, pl.Rel = k, w.roots.Load().rel(k)
		}
		if result.KindOf(err) == "" {
			err = result.Wrap(result.InvalidParams, err, err.Error())
		}
		return pl, err
	}
	return w.Place(k), nil
}

// place is Place without the look at links.
func (r *roots) place(k Key) Place {
	path, ok := k.Path()
	if !ok {
		return Place{Key: k, Rel: string(k), Err: result.Errorf(result.NotFound, "%s is not open in the editor and is not a file.", k)}
	}
	i := r.holding(path)
	pl := Place{Key: k, Rel: r.relTo(i, path), Path: path}
	if k.Host() != "" {
		pl.Err = result.Errorf(result.Denied, "%s is on another host; sightline works on local files only.", k)
		return pl
	}
	if strings.ContainsRune(path, 0) {
		pl.Err = result.Errorf(result.Denied, "Path %q contains a NUL byte.", path)
		return pl
	}
	if i >= 0 && r.fs[i] == nil {
		pl.Err = result.Wrap(result.IOError, r.errs[i], fmt.Sprintf("The workspace root %s cannot be opened: %v.", r.list[i], r.errs[i]))
		return pl
	}
	if i >= 0 {
		if in, err := filepath.Rel(r.list[i], path); err == nil {
			pl.Root, pl.In = r.fs[i], in
			return pl
		}
	}
	pl.Err = result.Errorf(result.Denied, "%s is outside the workspace (%s).", path, strings.Join(r.list, ", "))
	return pl
}

// holding is the index of the first root path lies in, as written; -1 for
// none.
func (r *roots) holding(path string) int {
	return slices.IndexFunc(r.list, func(root string) bool { return within(root, path) })
}

// relTo names path for answers: relative to root i, else (-1) absolute.
func (r *roots) relTo(i int, path string) string {
	if i < 0 {
		return path
	}
	rel, _ := filepath.Rel(r.list[i], path)
	return filepath.ToSlash(rel)
}

// Locate returns the confined root a file key lies in and the key's path
// relative to it (see Place). Every disk access to a document goes
// through it or a Place. Keys outside every root, with a NUL byte, or
// naming another host are denied.
func (w *Workspace) Locate(k Key) (*confine.Root, string, error) {
	pl := w.roots.Load().place(k)
	return pl.Root, pl.In, pl.Err
}

func (r *roots) primary() string {
	if len(r.list) == 0 {
		return ""
	}
	return r.list[0]
}

// Roots returns the workspace roots.
func (w *Workspace) Roots() []string { return slices.Clone(w.roots.Load().list) }

// Root returns the primary root.
func (w *Workspace) Root() string { return w.roots.Load().primary() }

// SetRoots replaces the workspace roots (workspace folders changed). A
// folder that stays a root keeps its handle; the handles of folders no
// longer roots are closed: an operation under way on one finishes, a later
// one fails saying the folder is no longer open (confine.Root.Close).
func (w *Workspace) SetRoots(list []string) {
	w.rootsMu.Lock()
	defer w.rootsMu.Unlock()
	old := w.roots.Load()
	next := w.newRoots(list, old)
	w.roots.Store(next)
	old.closeExcept(next)
}

// Close releases the roots' handles (on Windows, an open folder cannot be
// removed or renamed). The workspace reads and writes no file after it.
func (w *Workspace) Close() {
	w.rootsMu.Lock()
	defer w.rootsMu.Unlock()
	w.roots.Load().closeExcept(nil)
}

// SetGate sets the path policy every resolution of a file applies to the
// name it reaches (see confine.Gate); nil removes it.
func (w *Workspace) SetGate(g confine.Gate) { w.gate.Store(&g) }

func (w *Workspace) checkGate(name, rel string, intent confine.Intent) error {
	if g := w.gate.Load(); g != nil && *g != nil {
		return (*g)(name, rel, intent)
	}
	return nil
}

// Resolve turns a path (relative to the primary root, or absolute) into a
// Key, refusing paths outside every root.
func (w *Workspace) Resolve(path string) (Key, error) {
	if strings.ContainsRune(path, 0) {
		return "", result.Errorf(result.Denied, "Path %q contains a NUL byte.", path)
	}
	rs := w.roots.Load()
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(rs.primary(), p)
	}
	p = filepath.Clean(p)
	if !rs.inside(p) {
		return "", result.Errorf(result.Denied, "Path %s is outside the workspace (%s).", path, strings.Join(rs.list, ", "))
	}
	return FromPath(p), nil
}

// KeyOf turns a path (relative to the primary root, or absolute) into a Key
// without judging it: a door names what the caller asked for, and the
// admission step of the call refuses (and audits) a path outside the
// workspace.
func (w *Workspace) KeyOf(path string) Key {
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.roots.Load().primary(), p)
	}
	if NamesFolder(path) {
		// A path ending in a separator names a folder: the URI keeps the
		// slash that cleaning would drop, for the call to refuse (NormalizeDoc).
		return FromPath(p) + "/"
	}
	return FromPath(p)
}

// Inside reports whether an absolute path is inside one of the roots, both as
// written and after following symlinks (a link must not lead out).
func (w *Workspace) Inside(p string) bool { return w.roots.Load().inside(p) }

func (r *roots) inside(p string) bool {
	real := resolveExisting(p)
	for i, root := range r.list {
		if within(root, p) && within(r.real[i], real) {
			return true
		}
	}
	return false
}

// resolveExisting follows symlinks in the longest existing prefix of p.
func resolveExisting(p string) string {
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Rel returns a path relative to the primary root when the key is inside it,
// else the absolute path (or the URI for non-file keys).
func (w *Workspace) Rel(k Key) string { return w.roots.Load().rel(k) }

func (r *roots) rel(k Key) string {
	p, ok := k.Path()
	if !ok {
		return string(k)
	}
	return r.relTo(r.holding(p), p)
}
