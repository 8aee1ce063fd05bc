package confine

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sightline-lsp/sightline/result"
)

// A write of several files is staged, then committed: every new text is
// written to a temp file beside its target first (nothing visible changes),
// and only then moved into place. The steps that move texts into place are
// idempotent and check the file they act on by identity, so a journal of
// them can be replayed after a crash (roll forward) or its temp files
// discarded (roll back). Staged temp files are named .sightline-XXXXXXXX.txn:
// the cleaner of abandoned .tmp files leaves them to the journal's recovery.
// Every step reaches its folder as every operation does, following no link.

const stageSuffix = ".txn"

// FileID is one state of a file: identity, size and times. A file whose ID
// is unchanged has not been replaced or written (as far as its times show).
type FileID struct {
	Dev   uint64 `json:"dev"`
	Ino   uint64 `json:"ino"`
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime"`
	Ctime int64  `json:"ctime"`
}

func idFrom(s statID) FileID {
	return FileID{Dev: s.dev, Ino: s.ino, Size: s.size, Mtime: s.mtime, Ctime: s.ctime}
}

// IDOf is the state a file's information describes.
func IDOf(fi fs.FileInfo) FileID { return idFrom(statIDOf(fi)) }

// Info describes the file at rel (checked), opened following no link: a
// link there, or a folder on the way swapped for one, is an error.
func (r *Root) Info(rel string) (fs.FileInfo, error) {
	f, fi, err := r.Open(rel)
	if err != nil {
		return nil, err
	}
	f.Close()
	return fi, nil
}

// Open is Info that keeps the file open for reading (whatever it is: the
// caller checks fi). A write keeps the file it replaces open through the
// rename: the file's blocks are then freed when the caller closes it, not
// inside the rename.
func (r *Root) Open(rel string) (*os.File, fs.FileInfo, error) {
	f, err := r.openFile(rel, openReadFlags)
	if err != nil {
		return nil, nil, r.fault(err, filepath.ToSlash(rel))
	}
	fi, err := stat(f)
	if err != nil {
		f.Close()
		return nil, nil, r.fault(err, filepath.ToSlash(rel))
	}
	return f, fi, nil
}

// ID returns the state of the entry at rel (a link itself, not its target).
func (r *Root) ID(rel string) (FileID, error) {
	name := filepath.ToSlash(rel)
	f, err := r.folder(filepath.Dir(rel), name)
	if err != nil {
		return FileID{}, err
	}
	defer f.close()
	id, err := f.d.statID(filepath.Base(rel))
	if err != nil {
		return FileID{}, r.fault(err, name)
	}
	return idFrom(id), nil
}

// Exists reports whether there is an entry at rel (a dangling link counts);
// a folder on the way that is missing means no.
func (r *Root) Exists(rel string) (bool, error) {
	name := filepath.ToSlash(rel)
	f, err := r.folder(filepath.Dir(rel), name)
	if result.KindOf(err) == result.NotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.close()
	there, err := f.d.exists(filepath.Base(rel))
	if err != nil {
		return false, r.fault(err, name)
	}
	return there, nil
}

// IsLink reports whether the last component of rel is a symbolic link (the
// folders before it are resolved as Resolve does).
func (r *Root) IsLink(rel string) (bool, error) {
	t, err := r.ResolveEntry(rel, Read)
	if err != nil {
		return false, err
	}
	return t.Exists && t.Info != nil && t.Info.Mode()&fs.ModeSymlink != 0, nil
}

// StageName is a new name for a staged temp file (see Stage).
func StageName() string {
	var b [4]byte
	rand.Read(b[:])
	return tempPrefix + hex.EncodeToString(b[:]) + stageSuffix
}

// Staged is a new text written and synced beside its target, not yet in
// place. Close it when the write is done.
type Staged struct {
	Target Target
	// Temp is the temp file's path relative to the root.
	Temp string
	f    *folder
	// file is the temp file, open (and, unjournaled, locked against the
	// cleaner) until the write is done: once placed, it is the new file,
	// whose state Info gives without looking its name up again.
	file *os.File
	r    *Root
	born int64    // the file system's clock when the temp file was made
	id   statID   // the temp file's state once written
	made []string // the folders made for it, outermost first
	undo func()   // removes them, through the folders held open
}

// Close releases the temp file and the folders the stage holds open.
func (s *Staged) Close() {
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
	if s.f != nil {
		s.f.close()
		s.f = nil
	}
}

// Release closes what the stage holds open before the write is done, so a
// write of many files holds no descriptor per file: only a journaled stage
// (its temp file named by the journal, which the cleaner leaves alone) may
// be released. Discard and Info then go by name, checking what they find.
func (s *Staged) Release() { s.Close() }

// Info is the staged file's state: after Put or Place, the new file's. It
// comes from the temp file's descriptor; a released stage looks the target
// up (following no link) and answers only if it is the staged file still.
func (s *Staged) Info() (fs.FileInfo, error) {
	if s.file != nil {
		fi, err := stat(s.file)
		if err != nil {
			return nil, s.r.fault(err, s.Target.Name)
		}
		return fi, nil
	}
	fi, err := s.r.Info(s.Target.Rel)
	if err != nil {
		return nil, err
	}
	// Identity, size and modification time: placing a file (a link, a
	// rename) changes its change time but none of these.
	if now := statIDOf(fi); !now.ok || !s.id.ok || now.dev != s.id.dev || now.ino != s.id.ino || now.size != s.id.size || now.mtime != s.id.mtime {
		return nil, ErrChanged
	}
	return fi, nil
}

// Recent reports whether old, a state of the file the staged text replaces
// taken after the stage began, is too recent to trust: the file changed in
// the clock tick the stage began, or its times are unknown, so a later
// change might not show in them and only its bytes can tell.
func (s *Staged) Recent(old FileID) bool {
	return old.Ctime == 0 || old.Ctime >= s.born
}

// Stage writes a new text for t (resolved with Write) to a temp file in t's
// folder, synced. temp is the temp file's name when the caller journals it
// first (StageName); "" makes a locked temp file that the cleaner removes
// if its writer dies. like, when t exists, is the file it will replace: the
// temp file gets its owner and mode (refused as read-only, several hard
// links, not a regular file), or mode when that is not 0. A new file (like
// nil) gets mode (0: 0666) less the umask, and its missing folders are
// made.
//
// check (nil: none) is the caller's check that the file being replaced is
// still what it planned against. It runs while the text is written, after
// the temp file exists, so a state of the file it takes can be compared
// with Recent; its error fails the stage, which is then discarded.
func (r *Root) Stage(t Target, temp string, write func(io.Writer) error, like fs.FileInfo, mode fs.FileMode, check func() error) (*Staged, error) {
	dir, base := filepath.Dir(t.Rel), filepath.Base(t.Rel)
	s := &Staged{Target: t, r: r, undo: func() {}}
	var err error
	if like == nil {
		if s.f, s.undo, err = r.mkdirs(dir, t.Name); err == nil {
			s.made = s.f.made
		}
	} else {
		s.f, err = r.folder(dir, t.Name)
	}
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Staged, error) {
		r.Discard(s)
		s.Close()
		return nil, err
	}
	perm := mode
	if like != nil {
		if !like.Mode().IsRegular() {
			return fail(result.Errorf(result.Denied, "%s is not a regular file (%v); sightline writes regular files only.", t.Name, like.Mode().Type()))
		}
		if err := writable(s.f.d, base, like, t.Name); err != nil {
			return fail(err)
		}
		if perm == 0 {
			perm = like.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
		}
	} else if perm == 0 {
		perm = 0o666
	}
	if temp == "" {
		s.file, temp, err = s.f.temp(t.Name, perm)
	} else {
		if s.file, err = s.f.d.open(temp, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm); err != nil {
			err = r.fault(err, t.Name)
		}
	}
	if err != nil {
		return fail(err)
	}
	s.Temp = filepath.Join(dir, temp)
	tf := s.file
	if st, err := stat(tf); err == nil {
		s.born = statIDOf(st).ctime
	}
	checking := make(chan error, 1)
	if check != nil {
		go func() { checking <- check() }()
	} else {
		checking <- nil
	}
	checked := sync.OnceValue(func() error { return <-checking })
	steps := []func() error{}
	if like != nil {
		// Owner first: chown clears the set-id bits, chmod sets them back.
		if err := keepOwner(tf, like); err != nil {
			checked()
			return fail(result.Wrap(result.ReadOnly, err, fmt.Sprintf("%s belongs to another owner (%s), which sightline cannot give the new copy it renames into place (%s); it was not written.", t.Name, ownerOf(like), reason(err))))
		}
		steps = append(steps, func() error { return tf.Chmod(perm) })
	}
	steps = append(steps, func() error { return write(&writeback{f: tf}) }, tf.Sync)
	for _, step := range steps {
		if err := step(); err != nil {
			checked()
			return fail(r.fault(err, t.Name))
		}
	}
	if err := checked(); err != nil {
		return fail(err)
	}
	if st, err := stat(tf); err == nil {
		s.id = statIDOf(st)
	}
	return s, nil
}

// Discard removes a staged temp file and the folders made for it (if
// empty); a released stage's by name.
func (r *Root) Discard(s *Staged) {
	if s.f == nil {
		if s.Temp != "" {
			r.DiscardTemp(s.Temp)
		}
		for i := len(s.made) - 1; i >= 0; i-- {
			r.RemoveDir(s.made[i])
		}
		return
	}
	// Closed first: where a name is removed only when its last handle
	// closes (Windows without POSIX delete semantics), the folders made
	// for the file would not be empty yet.
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
	if s.Temp != "" {
		s.f.d.remove(filepath.Base(s.Temp))
	}
	s.undo()
}

// Put moves the temp file over target (both in one folder), if target is
// still the file old names (ErrChanged if not). Done already (no temp
// file): nil.
func (r *Root) Put(temp, target string, old FileID) error {
	name := filepath.ToSlash(target)
	f, err := r.folder(filepath.Dir(target), name)
	if err != nil {
		return err
	}
	defer f.close()
	tb, base := filepath.Base(temp), filepath.Base(target)
	there, err := f.d.exists(tb)
	if err != nil {
		return r.fault(err, name)
	}
	if !there {
		return nil
	}
	now, err := f.d.statID(base)
	if err != nil {
		return r.fault(err, name)
	}
	if idFrom(now) != old {
		return ErrChanged
	}
	if err := f.d.rename(tb, f.d, base); err != nil {
		return r.fault(err, name)
	}
	f.sync()
	return nil
}

// Place gives the temp file the name target (in its folder), which must
// not exist (exists). Done already (no temp file): nil.
func (r *Root) Place(temp, target string) error {
	name := filepath.ToSlash(target)
	f, err := r.folder(filepath.Dir(target), name)
	if err != nil {
		return err
	}
	defer f.close()
	tb, base := filepath.Base(temp), filepath.Base(target)
	tid, err := f.d.statID(tb)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return r.fault(err, name)
	}
	if err := f.d.link(tb, base); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			return r.fault(err, name)
		}
		// A crash between the link and the removal of the temp name leaves
		// both names on the one file: done but for the removal.
		now, err := f.d.statID(base)
		if err != nil || !tid.ok || now.dev != tid.dev || now.ino != tid.ino {
			return result.Errorf(result.Exists, "%s already exists.", name)
		}
	}
	if err := f.d.remove(tb); err != nil {
		return r.fault(err, name)
	}
	f.sync()
	return nil
}

// RemoveID removes target if it is still the file old names (ErrChanged if
// not). Done already (no file): nil.
func (r *Root) RemoveID(target string, old FileID) error {
	name := filepath.ToSlash(target)
	f, err := r.folder(filepath.Dir(target), name)
	if result.KindOf(err) == result.NotFound {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.close()
	base := filepath.Base(target)
	now, err := f.d.statID(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return r.fault(err, name)
	}
	if idFrom(now) != old {
		return ErrChanged
	}
	if err := f.d.remove(base); err != nil {
		return r.fault(err, name)
	}
	f.sync()
	return nil
}

// DiscardTemp removes a staged temp file by name (a journal's roll back);
// anything but a staged temp file is left alone.
func (r *Root) DiscardTemp(temp string) {
	base := filepath.Base(temp)
	if !strings.HasPrefix(base, tempPrefix) || !strings.HasSuffix(base, stageSuffix) {
		return
	}
	if f, err := r.folder(filepath.Dir(temp), filepath.ToSlash(temp)); err == nil {
		f.d.remove(base)
		f.close()
	}
}

// RemoveDir removes the folder at rel if it is empty (a journal's roll back
// of a folder staging made).
func (r *Root) RemoveDir(rel string) {
	if f, err := r.folder(filepath.Dir(rel), filepath.ToSlash(rel)); err == nil {
		f.d.rmdir(filepath.Base(rel))
		f.close()
	}
}
