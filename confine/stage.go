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

	"github.com/sightline-lsp/sightline/result"
)

// A write of several files is staged, then committed: every new text is
// written to a temp file beside its target first (nothing visible changes),
// and only then moved into place. The steps that move texts into place are
// idempotent and check the file they act on by identity, so a journal of
// them can be replayed after a crash (roll forward) or its temp files
// discarded (roll back). Staged temp files are named .sightline-XXXXXXXX.txn:
// the cleaner of abandoned .tmp files leaves them to the journal's recovery.

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

// IDOf is the state a file's information describes.
func IDOf(fi fs.FileInfo) FileID {
	s := statIDOf(fi)
	return FileID{Dev: s.dev, Ino: s.ino, Size: s.size, Mtime: s.mtime, Ctime: s.ctime}
}

// Lstat describes the file at rel (not following a link there).
func (r *Root) Lstat(rel string) (fs.FileInfo, error) {
	fi, err := r.r.Lstat(rel)
	if err != nil {
		return nil, r.fault(err, filepath.ToSlash(rel))
	}
	return fi, nil
}

// ID returns the state of the file at rel (not following a link there).
func (r *Root) ID(rel string) (FileID, error) {
	fi, err := r.Lstat(rel)
	if err != nil {
		return FileID{}, err
	}
	return IDOf(fi), nil
}

// IsLink reports whether the last component of rel is a symbolic link
// (the folders before it are followed, inside the root).
func (r *Root) IsLink(rel string) (bool, error) {
	fi, err := r.r.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, r.fault(err, filepath.ToSlash(rel))
	}
	return fi.Mode()&fs.ModeSymlink != 0, nil
}

// Staged is a new text written and synced beside its target, not yet in
// place.
type Staged struct {
	Target Target
	// Temp is the temp file's path relative to the root; Made the folders
	// made for it (outermost first), removed again if it is discarded.
	Temp string
	Made []string
}

// StageName is a new name for a staged temp file (see Stage).
func StageName() string {
	var b [4]byte
	rand.Read(b[:])
	return tempPrefix + hex.EncodeToString(b[:]) + stageSuffix
}

// Stage writes a new text for t (resolved with Write) to a new temp file
// named temp (StageName: the caller journals the name first) in t's
// folder, making missing folders. like, when t exists, is the file it will
// replace: the temp file gets its owner and mode (refused as Replace
// refuses: read-only, several hard links, not a regular file). mode, when
// not 0, is the mode the new text gets instead.
func (r *Root) Stage(t Target, temp string, write func(io.Writer) error, like fs.FileInfo, mode fs.FileMode) (*Staged, error) {
	dir, base := filepath.Dir(t.Rel), filepath.Base(t.Rel)
	var made []string
	if like == nil {
		var err error
		if made, err = r.mkdirs(dir, t.Name); err != nil {
			return nil, err
		}
	}
	s := &Staged{Target: t, Made: made}
	fail := func(err error) (*Staged, error) {
		r.Discard(s)
		return nil, err
	}
	f, err := r.folder(dir)
	if err != nil {
		return fail(err)
	}
	defer f.close()
	if like != nil {
		if !like.Mode().IsRegular() {
			return fail(result.Errorf(result.Denied, "%s is not a regular file (%v); sightline writes regular files only.", t.Name, like.Mode().Type()))
		}
		if err := writable(f.d, base, like, t.Name); err != nil {
			return fail(err)
		}
	}
	tf, err := f.d.OpenFile(temp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fail(r.fault(err, t.Name))
	}
	tn := temp
	s.Temp = filepath.Join(dir, tn)
	defer tf.Close()
	if like != nil {
		if err := keepOwner(tf, like); err != nil {
			return fail(result.Wrap(result.ReadOnly, err, fmt.Sprintf("%s belongs to another owner (%s), which sightline cannot give the new copy it renames into place (%s); it was not written.", t.Name, ownerOf(like), reason(err))))
		}
	}
	perm := mode
	if perm == 0 && like != nil {
		perm = like.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	}
	if perm == 0 {
		perm = 0o644
	}
	for _, step := range []func() error{
		func() error { return tf.Chmod(perm) },
		func() error { return write(tf) },
		tf.Sync,
	} {
		if err := step(); err != nil {
			return fail(r.fault(err, t.Name))
		}
	}
	return s, nil
}

// Discard removes a staged temp file and the folders made for it (those
// still empty).
func (r *Root) Discard(s *Staged) {
	if s.Temp != "" {
		r.r.Remove(s.Temp)
	}
	for i := len(s.Made) - 1; i >= 0; i-- {
		r.r.Remove(s.Made[i])
	}
}

// Put moves the temp file over target, if target is still the file old
// names (ErrChanged if not). Done already (no temp file): nil.
func (r *Root) Put(temp, target string, old FileID) error {
	if _, err := r.r.Lstat(temp); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	now, err := r.ID(target)
	if err != nil {
		return err
	}
	if now != old {
		return ErrChanged
	}
	if err := r.r.Rename(temp, target); err != nil {
		return r.fault(err, filepath.ToSlash(target))
	}
	r.syncDir(filepath.Dir(target))
	return nil
}

// Place moves the temp file to target, which must not exist (exists).
// Done already (no temp file, or target is it): nil.
func (r *Root) Place(temp, target string) error {
	tfi, err := r.r.Lstat(temp)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return r.fault(err, filepath.ToSlash(temp))
	}
	if fi, err := r.r.Lstat(target); err == nil && !os.SameFile(fi, tfi) {
		return result.Errorf(result.Exists, "%s already exists.", filepath.ToSlash(target))
	}
	if err := r.r.Link(temp, target); err != nil && !errors.Is(err, fs.ErrExist) {
		return r.fault(err, filepath.ToSlash(target))
	}
	if fi, err := r.r.Lstat(target); err != nil || !os.SameFile(fi, tfi) {
		return result.Errorf(result.Exists, "%s already exists.", filepath.ToSlash(target))
	}
	if err := r.r.Remove(temp); err != nil {
		return r.fault(err, filepath.ToSlash(target))
	}
	r.syncDir(filepath.Dir(target))
	return nil
}

// RemoveID removes target if it is still the file old names (ErrChanged if
// not). Done already (no file): nil.
func (r *Root) RemoveID(target string, old FileID) error {
	now, err := r.ID(target)
	if result.KindOf(err) == result.NotFound {
		return nil
	}
	if err != nil {
		return err
	}
	if now != old {
		return ErrChanged
	}
	if err := r.r.Remove(target); err != nil {
		return r.fault(err, filepath.ToSlash(target))
	}
	r.syncDir(filepath.Dir(target))
	return nil
}

// DiscardTemp removes a staged temp file by name (a journal's roll back);
// anything but a staged temp file is left alone.
func (r *Root) DiscardTemp(temp string) {
	if base := filepath.Base(temp); strings.HasPrefix(base, tempPrefix) && strings.HasSuffix(base, stageSuffix) {
		r.r.Remove(temp)
	}
}

func (r *Root) syncDir(rel string) {
	if d, err := r.r.Open(rel); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// RemoveDir removes the folder at rel if it is an empty folder (a journal's
// roll back of a folder staging made).
func (r *Root) RemoveDir(rel string) {
	if fi, err := r.r.Lstat(rel); err == nil && fi.IsDir() {
		r.r.Remove(rel)
	}
}
