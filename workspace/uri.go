package workspace

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/sightline-lsp/sightline/result"
)

// Key identifies a document: a canonical URI string. Clients spell the same
// file differently (VS Code percent-encodes ':' and '@' and lower-cases drive
// letters; Neovim does not), so every URI is normalised to a Key before it is
// compared or stored.
type Key string

// String returns the key's URI text.
func (k Key) String() string { return string(k) }

// IsFile reports whether the key names a file on disk.
func (k Key) IsFile() bool { return strings.HasPrefix(string(k), "file://") }

// Path returns the file system path of a file key.
func (k Key) Path() (string, bool) {
	if !k.IsFile() {
		return "", false
	}
	u, err := url.Parse(string(k))
	if err != nil {
		return "", false
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		p = strings.TrimPrefix(p, "/")
		if len(p) == 2 && p[1] == ':' { // the drive's root: "c:" alone is the drive's current folder
			p += "/"
		}
	}
	return filepath.FromSlash(p), true
}

// Host returns the host of a file key naming another machine
// (file://server/share/...), else "".
func (k Key) Host() string {
	if !k.IsFile() {
		return ""
	}
	u, err := url.Parse(string(k))
	if err != nil || u.Host == "localhost" {
		return ""
	}
	return u.Host
}

// Normalize turns a URI as a client sent it into a Key. File URIs get a decoded,
// cleaned path, re-encoded one canonical way (drive letters lower-cased); other
// schemes (untitled:, git:, vscode-notebook-cell:) keep their text with only
// the scheme lower-cased, since they name buffers, not files.
func Normalize(raw string) (Key, error) {
	if raw == "" {
		return "", fmt.Errorf("empty document URI")
	}
	// A NUL byte can name no file: refuse it as denied (like Resolve) and
	// never echo it raw into a message.
	if strings.ContainsRune(raw, 0) {
		return "", result.Errorf(result.Denied, "Document URI %q holds a NUL byte.", raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("invalid document URI %q: %w", raw, err)
	}
	if u.Scheme == "" {
		return "", fmt.Errorf("document URI %q has no scheme (expected file://...)", raw)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "file" {
		return Key(scheme + raw[len(u.Scheme):]), nil
	}
	if len(u.Host) == 2 && u.Host[1] == ':' && isASCIILetter(u.Host[0]) {
		// file://C:/x: a drive letter where the host goes (some clients
		// write one slash too few); no host is named so.
		u.Path, u.Host = "/"+u.Host+u.Path, ""
	}
	if u.Host != "" && u.Host != "localhost" {
		// UNC paths (file://server/share) keep their host.
		return Key("file://" + strings.ToLower(u.Host) + encodePath(cleanSlash(u.Path))), nil
	}
	if strings.ContainsRune(u.Path, 0) {
		return "", result.Errorf(result.Denied, "Document URI %s names a path holding a NUL byte.", raw) // raw holds it percent-encoded
	}
	return FromPath(filepath.FromSlash(u.Path)), nil
}

// FromPath makes the Key of an absolute file system path. On Windows,
// where names differ by case only in spelling, each name that exists is
// spelled as the disk spells it (see onDisk), so every spelling of a file
// makes one key.
func FromPath(path string) Key {
	p := filepath.ToSlash(filepath.Clean(path))
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' && isASCIILetter(p[1]) { // a URI's /c:/x
		p = p[1:]
	}
	if len(p) >= 2 && p[1] == ':' { // Windows drive without leading slash
		p = "/" + filepath.ToSlash(onDisk(filepath.FromSlash(p)))
	}
	return Key("file://" + encodePath(cleanSlash(p)))
}

// cleanSlash cleans a slash path and lower-cases a Windows drive letter.
func cleanSlash(p string) string {
	if p == "" {
		return "/"
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	// path.Clean semantics without importing path twice.
	p = filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' && isASCIILetter(p[1]) {
		p = "/" + strings.ToLower(p[1:2]) + p[2:]
	}
	return p
}

func isASCIILetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// encodePath percent-encodes everything but unreserved characters, '/', and
// the drive colon, the way VS Code does, so keys are byte-identical whatever
// encoding the client chose.
func encodePath(p string) string {
	var b strings.Builder
	b.Grow(len(p) + 8)
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '/' || c == '-' || c == '.' || c == '_' || c == '~' ||
			('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9'):
			b.WriteByte(c)
		case c == ':' && i == 2 && p[0] == '/' && isASCIILetter(p[1]):
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// NormalizeDoc is Normalize for a document an agent names: a file URI ending in
// a slash names a folder, which no read or write can mean (cleaning the
// path would make a file of the folder's name).
func NormalizeDoc(raw string) (Key, error) {
	k, err := Normalize(raw)
	if err == nil && k.IsFile() && strings.HasSuffix(raw, "/") && !strings.HasSuffix(string(k), ":///") {
		return "", FolderError(raw)
	}
	return k, err
}

// NamesFolder reports whether a path ends in a separator: it names a folder,
// which cleaning the path would hide.
func NamesFolder(path string) bool {
	return len(path) > 1 && os.IsPathSeparator(path[len(path)-1])
}

// FolderError refuses a path or URI that names a folder.
func FolderError(name string) error {
	return result.Errorf(result.InvalidParams, "%s ends in a separator, so it names a folder; sightline reads and writes files: name a file in it.", name)
}
