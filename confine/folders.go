package confine

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sightline-lsp/sightline/result"
)

// Temp files are named .sightline-XXXXXXXX.tmp (short: a 255-byte file name
// still has a temp name) and locked (flock) by their writer from creation to
// rename, so a writer that is gone is recognisable: its temp file is
// unlocked.
const (
	tempPrefix = ".sightline-"
	tempSuffix = ".tmp"
)

func isTemp(name string) bool {
	mid, ok := strings.CutPrefix(name, tempPrefix)
	if !ok {
		return false
	}
	mid, ok = strings.CutSuffix(mid, tempSuffix)
	if !ok || len(mid) != 8 {
		return false
	}
	for _, c := range mid {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// folder is an open folder of the workspace: every operation on its files
// goes through a handle on it, so the folder cannot be swapped for another
// between a check and the rename.
type folder struct {
	r       *Root
	rel     string   // the folder, relative to the root
	made    []string // the folders mkdirs made for it, outermost first
	d       *dir
	parents []*dir // kept open by mkdirs, so undo reaches the folders it made
}

// folder opens the folder rel (as checked) for the target name.
func (r *Root) folder(rel, name string) (*folder, error) {
	d, err := r.openDir(rel)
	if err != nil {
		return nil, r.fault(err, name)
	}
	return &folder{r: r, rel: rel, d: d}, nil
}

func (f *folder) close() {
	f.d.close()
	for _, p := range f.parents {
		p.close()
	}
}

// temp makes a new locked temp file in the folder, removing first (once per
// folder and root) the temp files of writers that are gone. The folder's shared lock spans creating
// and locking the file, so the cleaner (which takes it exclusively) never
// takes a fresh, not yet locked temp file for an abandoned one.
func (f *folder) temp(name string, perm fs.FileMode) (*os.File, string, error) {
	if _, done := f.r.swept.LoadOrStore(filepath.Clean(f.rel), true); !done {
		f.clean()
	}
	release := lockFolder(f.d.f, false)
	defer release()
	for range 8 {
		var b [4]byte
		rand.Read(b[:])
		tn := tempPrefix + hex.EncodeToString(b[:]) + tempSuffix
		tf, err := f.d.open(tn, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", f.r.fault(err, name)
		}
		if err := lockTemp(tf); err != nil {
			tf.Close()
			f.d.remove(tn)
			return nil, "", f.r.fault(err, name)
		}
		return tf, tn, nil
	}
	return nil, "", result.Errorf(result.IOError, "%s: no free temp file name in its folder.", name)
}

// clean removes the temp files of writers that are gone (unlocked), and
// only sightline's own.
func (f *folder) clean() {
	release, ok := tryLockFolder(f.d.f)
	if !ok {
		return // another writer is making a temp file; the next write cleans
	}
	defer release()
	names, _ := f.d.names()
	for _, n := range names {
		if isTemp(n) {
			removeAbandoned(f.d, n)
		}
	}
}

func (f *folder) sync() {
	_ = f.d.f.Sync() // the rename itself durable; best effort where folders refuse fsync
}

// ErrChanged is the answer when a file is not the one the caller planned
// against, or changed while its new copy was written.
var ErrChanged = errors.New("the file changed")

// writeback writes to f and has the disk start on each writebackPart as
// soon as it is written, so the fsync after the last byte waits for the
// last part, not for the whole file.
type writeback struct {
	f            *os.File
	off, started int64
}

const writebackPart = 1 << 20

func (w *writeback) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.off += int64(n)
	if w.off-w.started >= writebackPart {
		startWriteback(w.f, w.started, w.off-w.started)
		w.started = w.off
	}
	return n, err
}

// statID is what tells one state of a file from another without reading it.
type statID struct {
	dev, ino           uint64
	size, mtime, ctime int64
	ok                 bool // the platform gives all of it
}

// writable refuses a file the caller may not write: no write bit at all
// (read-only by intent, even for root), or one the OS will not open for
// writing. A file with several hard links is refused too: replacing it by a
// rename would leave the other names with the old text.
func writable(d *dir, base string, fi fs.FileInfo, name string) error {
	if fi.Mode().Perm()&0o222 == 0 {
		return result.Errorf(result.ReadOnly, "%s is read-only (mode %v); sightline does not write it. Make it writable first if it should change.", name, fi.Mode().Perm())
	}
	if n := links(fi); n > 1 {
		return result.Errorf(result.Denied, "%s has %d hard links; sightline replaces a file by renaming a new copy over it, which would leave the other links with the old text, so it does not write it. Break the link (cp, then mv) or edit it with another tool.", name, n)
	}
	w, err := d.open(base, openWriteProbeFlags, 0)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) || isReadOnlyFS(err) {
			return result.Wrap(result.ReadOnly, err, fmt.Sprintf("%s is read-only for this user (%s); sightline does not write it.", name, reason(err)))
		}
		return result.Wrap(result.IOError, err, fmt.Sprintf("%s: %s.", name, reason(err)))
	}
	w.Close()
	return nil
}

// mkdirs opens the folder rel, making those of its folders that are
// missing, one at a time from the last one opened (never through a link).
// undo removes the folders it made, innermost first; f.close releases
// them all.
func (r *Root) mkdirs(rel, name string) (f *folder, undo func(), err error) {
	cur, err := r.openDir(".")
	if err != nil {
		return nil, nil, r.fault(err, name)
	}
	f = &folder{r: r, rel: rel, d: cur}
	type made struct {
		parent, self *dir
		name         string
	}
	var mades []made
	undo = func() {
		for i := len(mades) - 1; i >= 0; i-- {
			// The folder's own handle closed first, for the same reason
			// Discard closes the temp file first; f.close closes it again,
			// harmlessly.
			if m := mades[i]; m.self != nil {
				m.self.close()
			}
			mades[i].parent.rmdir(mades[i].name)
		}
		mades = nil
	}
	at := ""
	for _, p := range split(rel) {
		if p == "." {
			continue
		}
		at = filepath.Join(at, p)
		err := cur.mkdir(p, 0o777)
		if err == nil {
			mades = append(mades, made{parent: cur, name: p})
			f.made = append(f.made, at)
		}
		var next *dir
		if err == nil || errors.Is(err, fs.ErrExist) {
			next, err = cur.sub(p)
		}
		if err == nil && len(mades) > 0 && mades[len(mades)-1].parent == cur {
			mades[len(mades)-1].self = next
		}
		if err != nil {
			undo()
			f.close()
			return nil, nil, r.fault(err, name)
		}
		f.parents = append(f.parents, cur)
		f.d, cur = next, next
	}
	return f, undo, nil
}
