package confine

import (
	"io/fs"
	"os"
)

// Links is the number of hard links of the file fi describes (the stat of an
// opened descriptor, for it to be the file read); 1 where the system does
// not say. A file with several cannot be known by its name alone.
func Links(fi fs.FileInfo) uint64 { return links(fi) }

// Stat describes the open file f as this package's own calls do: on
// Windows read from its handle, with the identity and change time that
// os's FileInfo leaves out there.
func Stat(f *os.File) (fs.FileInfo, error) { return stat(f) }

// Identity is the state fi describes (from Stat, OpenRead or Info), and
// whether the platform gives all of it: the file's identity and change
// time (Linux; Windows from a handle). Where it does not, a file's bytes
// cannot be known unchanged by their stat.
func Identity(fi fs.FileInfo) (FileID, bool) {
	s := statIDOf(fi)
	return idFrom(s), s.ok
}
