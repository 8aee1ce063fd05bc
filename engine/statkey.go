package engine

import (
	"io/fs"

	"github.com/sightline-lsp/sightline/confine"
	"github.com/sightline-lsp/sightline/store"
)

// fileStat is what identifies the bytes of document doc's file: size,
// modification and change times, file identity; ok is false where the
// platform does not give them all (see confine.Identity), and ReadDisk then
// falls back to Read. fi is the stat of an opened file (confine's OpenRead
// or Stat).
func fileStat(doc string, fi fs.FileInfo) (store.FileStat, bool) {
	id, ok := confine.Identity(fi)
	if !ok {
		return store.FileStat{}, false
	}
	return store.FileStat{Doc: doc, Size: id.Size, MtimeNs: id.Mtime, Ino: id.Ino, CtimeNs: id.Ctime}, true
}
