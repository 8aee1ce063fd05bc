//go:build windows

package confine

import (
	"errors"
	"io/fs"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// ReplacesOpenFiles: a file open here cannot be renamed over where the file
// system lacks POSIX rename semantics (FAT, older systems).
const ReplacesOpenFiles = false

const (
	openReadFlags       = os.O_RDONLY
	openWriteProbeFlags = os.O_WRONLY
)

func isReadOnlyFS(err error) bool { return errors.Is(err, windows.ERROR_WRITE_PROTECT) }

// fileInfo is a file's state as this package reads it from a handle:
// what os gives, with the identity (volume, file index), change time and
// link count that Windows' FileInfo leaves out.
type fileInfo struct {
	fs.FileInfo
	id    statID
	nlink uint32
}

// stat is f's state, read from its handle.
func stat(f *os.File) (fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var bi windows.ByHandleFileInformation
	ctime, err := handleInfo(windows.Handle(f.Fd()), &bi)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: f.Name(), Err: err}
	}
	return &fileInfo{FileInfo: fi, id: idOf(&bi, ctime), nlink: bi.NumberOfLinks}, nil
}

// handleInfo fills bi for h and returns its change time (ns since 1970).
func handleInfo(h windows.Handle, bi *windows.ByHandleFileInformation) (int64, error) {
	if err := windows.GetFileInformationByHandle(h, bi); err != nil {
		return 0, err
	}
	var basic struct {
		creation, access, write, change int64 // 100 ns since 1601
		attrs                           uint32
		_                               uint32
	}
	if err := windows.GetFileInformationByHandleEx(h, windows.FileBasicInfo, (*byte)(unsafe.Pointer(&basic)), uint32(unsafe.Sizeof(basic))); err != nil {
		return 0, err
	}
	return (&windows.Filetime{LowDateTime: uint32(basic.change), HighDateTime: uint32(basic.change >> 32)}).Nanoseconds(), nil
}

func idOf(bi *windows.ByHandleFileInformation, ctime int64) statID {
	return statID{
		dev:   uint64(bi.VolumeSerialNumber),
		ino:   uint64(bi.FileIndexHigh)<<32 | uint64(bi.FileIndexLow),
		size:  int64(bi.FileSizeHigh)<<32 | int64(bi.FileSizeLow),
		mtime: bi.LastWriteTime.Nanoseconds(),
		ctime: ctime,
		ok:    true,
	}
}

// statIDOf is the state fi describes: whole when this package read it from
// a handle, else size and modification time only.
func statIDOf(fi fs.FileInfo) statID {
	if w, ok := fi.(*fileInfo); ok {
		return w.id
	}
	return statID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

func links(fi fs.FileInfo) uint64 {
	if w, ok := fi.(*fileInfo); ok {
		return uint64(w.nlink)
	}
	return 1
}

// A new file takes its creator's ownership (or the folder's inherited
// access list); there is no owner to carry over by hand.
func ownerOf(fs.FileInfo) string            { return "unknown" }
func keepOwner(*os.File, fs.FileInfo) error { return nil }

func startWriteback(*os.File, int64, int64) {}

// A temp file's writer holds it open from the moment it is made (creating
// a file opens it), so the open handle is the mark of a live writer, and
// no lock is needed to close a gap between making and marking it.
func lockTemp(*os.File) error               { return nil }
func lockFolder(*os.File, bool) func()      { return func() {} }
func tryLockFolder(*os.File) (func(), bool) { return func() {}, true }

// removeAbandoned removes the temp file name if nobody holds it open: it
// is opened for deletion sharing nothing, which fails while any handle is
// open (a live writer), and deleted through that very handle.
func removeAbandoned(d *dir, name string) {
	h, err := ntCreateShare(d.h(), name, windows.DELETE, 0, windows.FILE_OPEN, windows.FILE_OPEN_REPARSE_POINT|windows.FILE_NON_DIRECTORY_FILE, 0)
	if err != nil {
		return
	}
	_ = deleteHandle(h)
	windows.CloseHandle(h)
}
