// Package confine is sightline's only way to the files of a workspace: a
// path is checked once (Resolve: links inside the workspace resolved, any
// way out refused), and every open, stat, create, mkdir and rename after
// walks the checked path from the root's descriptor following no link, so
// no spelling of a path, no symlink and no swap between a check and a use
// reaches a file other than the one checked. It also says what sightline
// never touches inside (version control folders), and replaces files
// atomically keeping their owner and mode.
package confine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/sightline-lsp/sightline/internal/hugepage"
	"github.com/sightline-lsp/sightline/result"
)

// Limits of the file systems sightline writes to (Linux: NAME_MAX,
// PATH_MAX less the terminating NUL).
const (
	MaxName = 255
	MaxPath = 4095
)

// maxHops bounds symlinks followed in one path, as the kernel does (ELOOP).
const maxHops = 40

// Root is a workspace root opened for confined access. It is safe for
// concurrent use.
type Root struct {
	dir  string   // as given: absolute, clean
	real string   // dir with symlinks resolved: real paths (lock keys) start here
	r    *os.Root // Resolve's walk, which follows links inside
	base *base    // every operation's walk, which follows none (walk_*.go)
	gate Gate
	// swept holds the folders (relative to the root) whose abandoned temp
	// files this root has removed: once per folder is enough, since a
	// writer's own temp files are never abandoned while it lives, and
	// listing the folder on every write made a write of many files to one
	// folder quadratic.
	swept sync.Map
}

// Gate is the caller's path policy (deny rules), applied by Resolve to the
// name it reaches (rel: relative to the root; name: as the caller named
// it), in the resolution the operation then uses: a link swapped in after
// a policy check elsewhere cannot lead the operation to a denied file.
type Gate func(name, rel string, intent Intent) error

// Open opens the root folder dir (an absolute path); gate (nil: none)
// refuses what the policy denies.
func Open(dir string, gate Gate) (*Root, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace root: %w", err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("open workspace root: %w", err)
	}
	b, err := openBase(dir)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("open workspace root: %w", err)
	}
	return &Root{dir: filepath.Clean(dir), real: real, r: r, base: b, gate: gate}, nil
}

// Dir is the root's path as given.
func (r *Root) Dir() string { return r.dir }

// Close releases the root's handles. Operations under way finish first
// (each holds the handle it walks from); later ones fail with an io_error
// saying the folder is no longer open, and reach nothing.
func (r *Root) Close() error {
	r.base.close()
	return r.r.Close()
}

// Intent is what a caller means to do with a path: policy differs.
type Intent int

const (
	Read Intent = iota
	Write
)

// Target is a path inside the root with every symlink resolved (inside the
// root), as it was when resolved. Every operation on it (OpenRead, Stage,
// Put, Place, RemoveID) reaches Rel from the root following no link: if a
// folder on the way, or the file, has become a link since, the operation
// is refused (file_changed) and nothing is read or written through it.
type Target struct {
	Name   string // the path as the caller named it, for messages
	Rel    string // relative to the root, no symlinks, cleaned; "." is the root
	Real   string // the absolute real path: what a per-file lock is keyed by
	Exists bool
	Info   fs.FileInfo // Lstat of Rel when Exists
}

// Resolve follows rel (relative to the root) through symlinks inside the
// root, refusing any way out (denied), version control folders (denied, see
// Allowed), dangling links (denied) and over-long names (io_error). The
// result names what was checked; every later operation walks that name
// following no link, so what it reaches is what was checked or nothing.
func (r *Root) Resolve(rel string, intent Intent) (Target, error) {
	return r.resolve(rel, intent, true)
}

// ResolveEntry is Resolve for an operation on a name itself (remove,
// rename): the folders on the way are resolved through links as Resolve
// does, but a symbolic link in the last place is the target, not followed
// (Info says it is a link). Remove and Rename then act on the link, never
// on the file it points to.
func (r *Root) ResolveEntry(rel string, intent Intent) (Target, error) {
	return r.resolve(rel, intent, false)
}

func (r *Root) resolve(rel string, intent Intent, followLast bool) (Target, error) {
	name := filepath.ToSlash(rel)
	t := Target{Name: name}
	if strings.IndexByte(rel, 0) >= 0 {
		return t, result.Errorf(result.Denied, "Path %q contains a NUL byte.", rel)
	}
	if err := checkLength(r.dir, rel, name); err != nil {
		return t, err
	}
	if filepath.IsAbs(rel) {
		return t, result.Errorf(result.Denied, "%s is outside the workspace (%s).", name, r.dir)
	}
	parts := split(filepath.Clean(rel))
	if runtime.GOOS == "windows" { // before IsLocal, which says only "not local" of these
		for _, p := range parts {
			if why := windowsNameProblem(p); why != "" && p != "." && p != ".." {
				return t, result.Errorf(result.InvalidParams, "%s cannot be a file on Windows: %s. Choose another name.", name, why)
			}
		}
	}
	if !filepath.IsLocal(filepath.Clean(rel)) && filepath.Clean(rel) != "." {
		return t, result.Errorf(result.Denied, "%s is outside the workspace (%s).", name, r.dir)
	}
	if err := allowed(rel, intent, name); err != nil {
		return t, err
	}
	orig := len(parts) // parts of the caller's path still to walk (the tail of parts)
	var done []string
	hops := 0
	var last fs.FileInfo
	for len(parts) > 0 {
		p := parts[0]
		fromLink := len(parts) > orig
		parts = parts[1:]
		if !fromLink {
			orig--
		}
		switch p {
		case ".", "":
			continue
		case "..":
			if len(done) == 0 {
				return t, result.Errorf(result.Denied, "%s leads outside the workspace (%s) through a symbolic link.", name, r.dir)
			}
			done = done[:len(done)-1]
			continue
		}
		cur := filepath.Join(append(done, p)...)
		fi, err := r.r.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			if fromLink {
				return t, dangling(name)
			}
			for _, q := range parts {
				if q == ".." {
					return t, result.Wrap(result.NotFound, err, fmt.Sprintf("%s does not exist.", name))
				}
			}
			t.Rel = filepath.Join(append(append(done, p), parts...)...)
			t.Real = filepath.Join(r.real, t.Rel)
			return t, r.allowed(t.Rel, intent, name)
		}
		if err != nil {
			return t, r.fault(err, name)
		}
		if fi.Mode()&fs.ModeSymlink != 0 && (followLast || fromLink || len(parts) > 0) {
			if hops++; hops > maxHops {
				return t, result.Errorf(result.IOError, "%s: too many levels of symbolic links.", name)
			}
			dest, err := r.r.Readlink(cur)
			if err != nil {
				return t, r.fault(err, name)
			}
			if filepath.IsAbs(dest) {
				in, ok := r.inside(dest)
				if !ok {
					return t, result.Errorf(result.Denied, "%s is a symbolic link to %s, outside the workspace (%s).", name, dest, r.dir)
				}
				done = nil
				dest = in
			}
			parts = append(split(dest), parts...)
			continue
		}
		if len(parts) > 0 && !fi.IsDir() {
			return t, result.Errorf(result.IOError, "%s: not a directory (%s is a file).", name, filepath.ToSlash(cur))
		}
		done = append(done, p)
		last = fi
	}
	t.Rel = filepath.Join(done...)
	if t.Rel == "" {
		t.Rel = "."
	}
	t.Real = filepath.Join(r.real, t.Rel)
	t.Exists, t.Info = true, last
	return t, r.allowed(t.Rel, intent, name)
}

// inside returns abs relative to the root, if it names a place inside it
// (by the root's path as given or its real path).
func (r *Root) inside(abs string) (string, bool) {
	abs = filepath.Clean(abs)
	for _, base := range []string{r.dir, r.real} {
		if rel, err := filepath.Rel(base, abs); err == nil && (rel == "." || filepath.IsLocal(rel)) {
			return rel, true
		}
	}
	return "", false
}

func split(p string) []string {
	return strings.FieldsFunc(p, func(c rune) bool { return c == filepath.Separator || c == '/' })
}

// checkLength refuses paths no file system here can hold, before anything
// is created: a component over MaxName bytes, or a path over MaxPath.
func checkLength(root, rel, name string) error {
	full := filepath.Join(root, rel)
	if len(full) > MaxPath {
		return result.Errorf(result.IOError, "The path %.60s… is %d bytes, over the %d-byte limit (file name too long); nothing was created.", name, len(full), MaxPath)
	}
	for _, p := range split(rel) {
		if len(p) > MaxName {
			return result.Errorf(result.IOError, "The name %.40s… is %d bytes, over the %d-byte limit (file name too long); nothing was created.", p, len(p), MaxName)
		}
	}
	return nil
}

// allowed applies the version control rules, then the gate, to the
// resolved name.
func (r *Root) allowed(rel string, intent Intent, name string) error {
	if err := allowed(rel, intent, name); err != nil {
		return err
	}
	if r.gate != nil {
		return r.gate(name, filepath.ToSlash(rel), intent)
	}
	return nil
}

// vcsFolders are never written by agent calls: a write there can run code
// (hooks, config's core.hooksPath, aliases) or corrupt history.
var vcsFolders = []string{".git", ".hg", ".svn"}

// allowed applies the path policy: nothing under a version control folder is
// written; .git's config and hooks are not read either (they are code, and
// config may hold credentials). Names compare case-insensitively, as on the
// file systems that fold case.
func allowed(rel string, intent Intent, name string) error {
	parts := split(filepath.Clean(rel))
	for i, p := range parts {
		for _, v := range vcsFolders {
			if !strings.EqualFold(p, v) {
				continue
			}
			if intent == Write {
				return result.Errorf(result.Denied, "%s is inside %s/: sightline never writes version control folders. Change the repository with its own tools.", name, v)
			}
			if v == ".git" && i+1 < len(parts) && (strings.EqualFold(parts[i+1], "hooks") || strings.EqualFold(parts[i+1], "config") && i+2 == len(parts)) {
				return result.Errorf(result.Denied, "%s is .git's config or a hook: sightline does not read them (they run code and may hold credentials).", name)
			}
		}
	}
	return nil
}

func dangling(name string) error {
	return result.Errorf(result.Denied, "%s is a dangling symbolic link (its target does not exist); sightline neither reads nor writes through it. Remove the link, or create its target.", name)
}

// fault sorts an error of the root: a way out is denied, a missing file is
// not_found, a permission problem is read_only, the rest is io_error with
// the OS's reason (never a temp file's name).
func (r *Root) fault(err error, name string) error {
	var re *result.Error
	switch {
	case errors.As(err, &re):
		return err
	case errors.Is(err, fs.ErrNotExist):
		return result.Wrap(result.NotFound, err, fmt.Sprintf("%s does not exist.", name))
	case escapes(err):
		return result.Wrap(result.Denied, err, fmt.Sprintf("%s leads outside the workspace (%s).", name, r.dir))
	case errors.Is(err, errRootClosed), errors.Is(err, os.ErrClosed):
		return result.Wrap(result.IOError, err, fmt.Sprintf("%s: the workspace folder %s was closed (it is no longer one of the workspace's folders); nothing was read or written there. Retry if it is still part of the workspace.", name, r.dir))
	case errors.Is(err, errOpenElsewhere):
		return result.Wrap(result.IOError, err, fmt.Sprintf("%s is open in another program, which keeps it from being replaced (%s); nothing was written. Close it there, then retry.", name, reason(err)))
	case swapped(err):
		return result.Wrap(result.FileChanged, err, fmt.Sprintf("%s changed after it was checked: a folder on its path, or the file itself, is now a symbolic link or a file (%s). sightline follows no link it did not check, so nothing was read or written there. Look at what changed it, then retry.", name, reason(err)))
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return result.Wrap(result.ReadOnly, err, fmt.Sprintf("%s cannot be written: %s.", name, reason(err)))
	}
	return result.Wrap(result.IOError, err, fmt.Sprintf("%s: %s.", name, reason(err)))
}

// errRootClosed: the root was closed (Close) before the operation began.
var errRootClosed = errors.New("workspace folder closed")

// errOpenElsewhere: the file system cannot replace a file that is open
// (Windows without POSIX rename semantics).
var errOpenElsewhere = errors.New("a file open elsewhere cannot be replaced on this file system, or its program does not share it for deletion")

// escapes reports os.Root's refusal of a path leading out of it.
func escapes(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// reason is the OS's reason for err, without the paths (temp names) the
// error carries.
func reason(err error) string {
	var pe *fs.PathError
	var le *os.LinkError
	var se *os.SyscallError
	switch {
	case errors.As(err, &pe):
		return pe.Err.Error()
	case errors.As(err, &le):
		return le.Err.Error()
	case errors.As(err, &se):
		return se.Err.Error()
	}
	return err.Error()
}

// OpenRead opens t (resolved with Read) for reading: a regular file only,
// opened without blocking on a FIFO a link swap put there.
func (r *Root) OpenRead(t Target) (*os.File, fs.FileInfo, error) {
	if !t.Exists {
		return nil, nil, result.Errorf(result.NotFound, "File %s does not exist.", t.Name)
	}
	f, err := r.openFile(t.Rel, openReadFlags)
	if err != nil {
		return nil, nil, r.fault(err, t.Name)
	}
	fi, err := stat(f)
	if err != nil {
		f.Close()
		return nil, nil, r.fault(err, t.Name)
	}
	if fi.IsDir() {
		f.Close()
		return nil, nil, result.Errorf(result.NotFound, "%s is a directory, not a file.", t.Name)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, result.Errorf(result.Denied, "%s is not a regular file (%v); sightline reads and writes regular files only.", t.Name, fi.Mode().Type())
	}
	return f, fi, nil
}

// ReadDir lists the folder rel (as Resolve names it: no links) with each
// entry's own state (a link's, not its target's), reaching the folder
// without following any link and taking every state relative to its
// descriptor: a folder swapped for a link lists nothing behind the link.
func (r *Root) ReadDir(rel string) ([]fs.FileInfo, error) {
	d, err := r.openDir(rel)
	if err != nil {
		return nil, r.fault(err, filepath.ToSlash(rel))
	}
	defer d.close()
	infos, err := d.f.Readdir(-1) // fstatat on the folder's descriptor, where the platform has it
	if err != nil {
		return nil, r.fault(err, filepath.ToSlash(rel))
	}
	return infos, nil
}

// ReadFile returns t's bytes, refusing files over max bytes (too_large).
func (r *Root) ReadFile(t Target, max int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := r.OpenRead(t)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, nil, result.Errorf(result.TooLarge, "File %s is %d bytes, over the %d-byte limit.", t.Name, fi.Size(), max)
	}
	data, err := ReadAll(f, fi.Size(), max, false)
	if err != nil {
		return nil, nil, r.fault(err, t.Name)
	}
	if int64(len(data)) > max {
		return nil, nil, result.Errorf(result.TooLarge, "File %s is over the %d-byte limit.", t.Name, max)
	}
	return data, fi, nil
}

// ReadAll reads f to its end, up to limit+1 bytes, into a buffer sized from
// its stat (size): io.ReadAll's doubling copied a 6 MB file about ten times.
// A file that grew meanwhile is still read whole (up to limit+1). With
// huge (a process that lives for one call), a large buffer is in huge pages
// (package hugepage).
func ReadAll(f io.Reader, size, limit int64, huge bool) ([]byte, error) {
	data := hugepage.Bytes(int(max(0, min(size, limit)))+512, huge)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):int(min(int64(cap(data)), limit+1))])
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) || int64(len(data)) > limit {
			return data, nil
		}
		if err != nil {
			return data, err
		}
	}
}
