//go:build !unix && !windows

package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Without openat and O_NOFOLLOW, folders are opened through the root's
// os.Root: no path leaves the workspace, though a link swapped in inside it
// is followed.

type base struct{}

func openBase(string) (*base, error) { return &base{}, nil }
func (*base) close() error           { return nil }

// dir is an open folder of the workspace.
type dir struct {
	r   *os.Root
	top *os.Root // the workspace root, for a rename from one folder to another
	f   *os.File // the folder itself: fsync after a rename
	rel string
}

func (r *Root) openDir(rel string) (*dir, error) {
	d, err := r.r.OpenRoot(rel)
	if err != nil {
		return nil, err
	}
	f, err := d.Open(".")
	if err != nil {
		d.Close()
		return nil, err
	}
	return &dir{r: d, top: r.r, f: f, rel: rel}, nil
}

func (d *dir) close() error {
	d.f.Close()
	return d.r.Close()
}

func (d *dir) open(name string, flags int, perm fs.FileMode) (*os.File, error) {
	return d.r.OpenFile(name, flags, perm)
}

func (d *dir) statID(name string) (statID, error) {
	fi, err := d.r.Lstat(name)
	if err != nil {
		return statID{}, err
	}
	return statIDOf(fi), nil
}

func (d *dir) same(name string, fi fs.FileInfo) bool {
	now, err := d.r.Lstat(name)
	return err == nil && os.SameFile(fi, now)
}

func (d *dir) exists(name string) (bool, error) {
	_, err := d.r.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func (d *dir) remove(name string) error                  { return d.r.Remove(name) }
func (d *dir) mkdir(name string, perm fs.FileMode) error { return d.r.Mkdir(name, perm) }
func (d *dir) link(old, new string) error                { return d.r.Link(old, new) }

func (d *dir) sub(name string) (*dir, error) {
	s, err := d.r.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	f, err := s.Open(".")
	if err != nil {
		s.Close()
		return nil, err
	}
	return &dir{r: s, top: d.top, f: f, rel: filepath.Join(d.rel, name)}, nil
}

// rename moves old of d to new in to, by their paths under the root.
func (d *dir) rename(old string, to *dir, new string) error {
	return d.top.Rename(filepath.Join(d.rel, old), filepath.Join(to.rel, new))
}

func (d *dir) names() ([]string, error) {
	f, err := d.r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

func swapped(error) bool { return false }

func (d *dir) rmdir(name string) error { return d.r.Remove(name) }

func (r *Root) openFile(rel string, flags int) (*os.File, error) { return r.r.OpenFile(rel, flags, 0) }
