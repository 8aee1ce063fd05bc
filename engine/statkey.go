package engine

import (
	"io/fs"

	"github.com/sightline-lsp/sightline/confine"
)

// statOf returns what identifies a file's bytes: size, modification and
// change times, file identity; ok is false where the platform does not
// give them all (see confine.Identity), and ReadDisk then falls back to
// Read. fi is the stat of an opened file (confine's OpenRead or Stat).
func statOf(fi fs.FileInfo) (size, mtimeNs int64, ino uint64, ctimeNs int64, ok bool) {
	id, ok := confine.Identity(fi)
	if !ok {
		return 0, 0, 0, 0, false
	}
	return id.Size, id.Mtime, id.Ino, id.Ctime, true
}
