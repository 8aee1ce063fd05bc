//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestCreateKeepsTheUmask: a file sightline creates gets the mode any new
// file would (0666 less the umask), and so do the folders it makes.
func TestCreateKeepsTheUmask(t *testing.T) {
	c := newCLI(t, nil)
	for _, umask := range []int{0o077, 0o022} {
		old := syscall.Umask(umask)
		name := filepath.Join("sub", "deep", "new.txt")
		if umask == 0o022 {
			name = filepath.Join("other", "new.txt")
		}
		_, errs, code := c.run("hello\n", "write", name, "--mode", "create")
		syscall.Umask(old)
		if code != 0 {
			t.Fatalf("create under umask %03o: %d %s", umask, code, errs)
		}
		want := os.FileMode(0o666 &^ umask)
		if fi, err := os.Stat(filepath.Join(c.dir, name)); err != nil || fi.Mode().Perm() != want {
			t.Errorf("umask %03o: %s is %v, want %v", umask, name, fi.Mode().Perm(), want)
		}
		if fi, err := os.Stat(filepath.Join(c.dir, filepath.Dir(name))); err != nil || fi.Mode().Perm() != 0o777&^os.FileMode(umask) {
			t.Errorf("umask %03o: folder %s is %v", umask, filepath.Dir(name), fi.Mode().Perm())
		}
	}
}
