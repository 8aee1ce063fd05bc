package confine

import (
	"io/fs"
	"syscall"
)

func statIDOf(fi fs.FileInfo) statID {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	}
	return statID{dev: st.Dev, ino: st.Ino, size: fi.Size(), mtime: fi.ModTime().UnixNano(), ctime: st.Ctim.Nano(), ok: true}
}
