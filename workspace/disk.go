package workspace

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/editorconfig/editorconfig-core-go/v2"

	"github.com/sightline-lsp/sightline/charset"
	"github.com/sightline-lsp/sightline/confine"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/textdoc"
)

// SetEncodings sets the encodings a file that is not UTF-8 and declares
// none is tried in, in order (the encodings setting).
func (w *Workspace) SetEncodings(list []charset.Charset) {
	list = append([]charset.Charset(nil), list...)
	w.encodings.Store(&list)
}

func (w *Workspace) fallbacks() []charset.Charset {
	if p := w.encodings.Load(); p != nil {
		return *p
	}
	return nil
}

// storedIn is the encoding a file's bytes show, as a load detects it with
// nothing declared: a UTF-16 byte-order mark, else UTF-8, else the first of
// the encodings setting that decodes them. UTF-8 when the file cannot be
// read (a new file). Without the setting only the mark can tell, so only
// the file's first bytes are read.
func (w *Workspace) storedIn(root *confine.Root, rel string) charset.Charset {
	t, err := root.Resolve(rel, confine.Read)
	if err != nil {
		return charset.UTF8
	}
	t.Name = filepath.ToSlash(rel)
	fb := w.fallbacks()
	if len(fb) == 0 {
		f, _, err := root.OpenRead(t)
		if err != nil {
			return charset.UTF8
		}
		defer f.Close()
		head := make([]byte, 3)
		n, _ := io.ReadFull(f, head)
		if cs, ok := charset.ByBOM(head[:n]); ok {
			return cs
		}
		return charset.UTF8
	}
	data, _, err := root.ReadFile(t, w.opts.MaxFileSize)
	if err != nil {
		return charset.UTF8
	}
	if cs, _, ok := charset.Detect(data, charset.UTF8, fb); ok {
		return cs
	}
	return charset.UTF8
}

// maxEditorconfig bounds an .editorconfig file read: larger ones are not
// configuration.
const maxEditorconfig = 1 << 20

// Declared returns the charset the .editorconfig files of the workspace
// declare for the file rel (slash-separated, relative to root), read as
// editors read them (declared). An .editorconfig that cannot be read or
// parsed, or a charset sightline does not know, declares nothing; note
// says which.
func Declared(root *confine.Root, rel string) (c charset.Charset, from string, note string) {
	v, from := declared(root, rel, func(d *editorconfig.Definition) string { return d.Charset })
	if v == "" {
		return charset.UTF8, "", ""
	}
	cs, err := charset.Lookup(v)
	if err != nil {
		return charset.UTF8, from, fmt.Sprintf("%s declares charset %q, which is not known (%v)", from, v, err)
	}
	return cs, from, ""
}

// DeclaredEOL returns the line break the .editorconfig files of the
// workspace declare for the file rel (end_of_line: "\n", "\r\n" or
// "\r"), read as Declared reads them; "" when they declare none.
func DeclaredEOL(root *confine.Root, rel string) string {
	v, _ := declared(root, rel, func(d *editorconfig.Definition) string { return d.EndOfLine })
	switch v {
	case editorconfig.EndOfLineLf:
		return "\n"
	case editorconfig.EndOfLineCrLf:
		return "\r\n"
	case editorconfig.EndOfLineCr:
		return "\r"
	}
	return ""
}

// declared is the value the .editorconfig files of the workspace give a
// property of the file rel, read as editors read them: from the file's
// folder up, the nearest file that sets it winning, up to one that says
// root = true or the workspace root (nothing outside the workspace is
// read); "" when none sets it. from is the file that set it.
func declared(root *confine.Root, rel string, prop func(*editorconfig.Definition) string) (v, from string) {
	dir := path.Dir(rel)
	for {
		name := path.Join(dir, ".editorconfig")
		if ec := readEditorconfig(root, name); ec != nil {
			within := strings.TrimPrefix(rel, dir+"/")
			if dir == "." {
				within = rel
			}
			if def, err := ec.GetDefinitionForFilename(within); err == nil {
				if v := strings.TrimSpace(prop(def)); v != "" && v != editorconfig.UnsetValue {
					return v, name
				}
			}
			if ec.Root {
				return "", ""
			}
		}
		if dir == "." || dir == "/" {
			return "", ""
		}
		dir = path.Dir(dir)
	}
}

func readEditorconfig(root *confine.Root, name string) *editorconfig.Editorconfig {
	t, err := root.Resolve(name, confine.Read)
	if err != nil || !t.Exists {
		return nil
	}
	data, _, err := root.ReadFile(t, maxEditorconfig)
	if err != nil {
		return nil
	}
	ec, err := editorconfig.Parse(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	return ec
}

// decode finds the encoding of a file's bytes (charset.Detect) from its
// byte-order mark, its .editorconfig charset and the encodings setting,
// or refuses the file as binary saying how to declare its encoding.
func (w *Workspace) decode(name string, data []byte, decl charset.Charset, from, note string) (charset.Charset, string, error) {
	fb := w.fallbacks()
	cs, text, ok := charset.Detect(data, decl, fb)
	if ok {
		return cs, text, nil
	}
	var tried []string
	if !decl.IsUTF8() {
		tried = append(tried, fmt.Sprintf("nor %s as %s declares", decl.Name(), from))
	}
	if len(fb) > 0 {
		names := make([]string, len(fb))
		for i, c := range fb {
			names[i] = c.Name()
		}
		tried = append(tried, "nor any encoding of the encodings setting ("+strings.Join(names, ", ")+")")
	}
	if note != "" {
		tried = append(tried, note)
	}
	extra := ""
	if len(tried) > 0 {
		extra = ", " + strings.Join(tried, ", ")
	}
	return cs, "", result.Errorf(result.Binary,
		"File %s is binary: it is not UTF-8 text (NUL bytes or invalid UTF-8)%s. If it is text in another encoding, declare it: `charset = latin1` (or windows-1252, Shift_JIS, GBK, utf-16le, ...) for it in .editorconfig, or list the encoding in sightline's encodings setting.",
		name, extra)
}

// hashAheadMin is the size from which a file read from disk is hashed on
// another goroutine while it is read (readHashing): nearly every caller of
// a large file needs its hash (answers carry it, the ledger compares it),
// and on a second core it then costs little wall time.
const hashAheadMin = 1 << 20

// readHashing is confine.ReadAll for a large file, with its hash computed
// into hash and its bytes checked for text (IsBinary, part by part:
// textCheck) on another goroutine, each part as soon as it is read: both
// are done about when the bytes are, not a whole pass later. text gets the
// verdict once the hash is done.
func readHashing(f io.Reader, size, limit int64, huge bool, hash *lazyHash) (data []byte, text <-chan bool, err error) {
	parts, isText := make(chan []byte, 16), make(chan bool, 1)
	hash.ahead(func() string {
		d := sha256.New()
		var c textCheck
		for p := range parts {
			d.Write(p)
			c.write(p)
		}
		isText <- c.text()
		return hashline.FileHashOf(d.Sum(nil))
	})
	data, err = confine.ReadAll(hashingReader{f, parts}, size, limit, huge)
	close(parts) // the hash is of the bytes read, even when the read failed
	return data, isText, err
}

// hashingReader hands each part of a file (at most hashPart bytes) to the
// goroutine hashing it as soon as it is read. The parts are the read
// buffer's bytes, which nothing writes any more.
type hashingReader struct {
	r     io.Reader
	parts chan<- []byte
}

const hashPart = 512 << 10

func (h hashingReader) Read(p []byte) (int, error) {
	p = p[:min(len(p), hashPart)]
	n, err := h.r.Read(p)
	if n > 0 {
		h.parts <- p[:n]
	}
	return n, err
}

// links opens a document's file as a read would (confined) and returns the
// hard link count of the opened descriptor: what an editor buffer's file is
// now (0: none, or it cannot be opened: nothing to tell by).
func (w *Workspace) links(pl Place) uint64 {
	if pl.Err != nil {
		return 0
	}
	t, err := pl.Root.Resolve(pl.In, confine.Read)
	if err != nil {
		return 0
	}
	t.Name = pl.Rel
	f, fi, err := pl.Root.OpenRead(t)
	if err != nil {
		return 0
	}
	f.Close()
	return confine.Links(fi)
}

// readError sorts a failed stat or read of a document's file: missing is
// not_found; a permission refusal is denied, with the OS reason, since the
// file is there and telling the agent it is not would send it to create it.
func (w *Workspace) readError(k Key, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return result.Wrap(result.NotFound, err, fmt.Sprintf("File %s does not exist.", w.Rel(k)))
	case errors.Is(err, fs.ErrPermission):
		return result.Wrap(result.Denied, err, fmt.Sprintf("File %s cannot be read: permission denied (%v).", w.Rel(k), unwrapPath(err)))
	}
	return result.Wrap(result.NotFound, err, fmt.Sprintf("File %s cannot be read: %v.", w.Rel(k), unwrapPath(err)))
}

// unwrapPath drops the path an *fs.PathError repeats (the message names the
// file already) and keeps the OS reason.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// textCheck is IsBinary for bytes that come in parts: a character cut
// between two parts is checked whole.
type textCheck struct {
	carry []byte // the start of a character the next part ends
	bad   bool
}

func (c *textCheck) write(p []byte) {
	if c.bad {
		return
	}
	if bytes.IndexByte(p, 0) >= 0 {
		c.bad = true
		return
	}
	if len(c.carry) > 0 {
		for len(p) > 0 && !utf8.FullRune(c.carry) {
			c.carry, p = append(c.carry, p[0]), p[1:]
		}
		if !utf8.FullRune(c.carry) {
			return
		}
		if !utf8.Valid(c.carry) {
			c.bad = true
			return
		}
		c.carry = c.carry[:0]
	}
	cut := len(p)
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				cut = i
			}
			break
		}
	}
	if !utf8.Valid(p[:cut]) {
		c.bad = true
		return
	}
	c.carry = append(c.carry, p[cut:]...)
}

// text reports whether all the parts were text (IsBinary false).
func (c *textCheck) text() bool { return !c.bad && len(c.carry) == 0 }

// stamp is what a file's stat said when its text was read: a file whose stat
// still says the same is not read again. The zero stamp matches no file (not
// seen, or to be checked against the disk).
type stamp struct {
	mod  int64 // modification time, Unix nanoseconds
	size int64
}

func stampOf(fi os.FileInfo) stamp { return stamp{mod: fi.ModTime().UnixNano(), size: fi.Size()} }

func (s stamp) same(fi os.FileInfo) bool { return s != stamp{} && s == stampOf(fi) }

// IsBinary reports whether data is not a text sightline can show an agent: it
// holds a NUL byte or is not valid UTF-8.
func IsBinary(data []byte) bool {
	return bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data)
}

// load reads a document's file from the disk (the disk source of GetAt):
// through the place's root, one handle from the stat compared with what was
// seen to the bytes read, decoded in the file's encoding; a file unchanged
// since it was seen is not read again.
func (w *Workspace) load(pl Place, seen stamp) (Doc, error) {
	k, root, rel := pl.Key, pl.Root, pl.In
	if pl.Err != nil {
		return Doc{}, pl.Err
	}
	// One handle from the check to the read: the file read is the file whose
	// stat was compared, and it is inside the workspace (confine.Root).
	t, err := root.Resolve(rel, confine.Read)
	if err == nil {
		t.Name = pl.Rel
	}
	var f *os.File
	var fi os.FileInfo
	if err == nil {
		f, fi, err = root.OpenRead(t)
	}
	if err != nil {
		if result.KindOf(err) == result.NotFound {
			w.Forget(k)
		}
		if errors.Is(err, fs.ErrPermission) {
			err = w.readError(k, err) // a read refused is denied, not read_only
		}
		return Doc{}, err
	}
	defer f.Close()
	if seen.same(fi) {
		w.mu.Lock()
		cur, still := w.docs[k]
		var d Doc
		if still {
			d = cur.doc
		}
		w.mu.Unlock()
		if still && !d.Open {
			d.Links, d.Real = confine.Links(fi), t.Rel
			return d, nil
		}
		if still {
			return d, nil
		}
	}
	if fi.Size() > w.opts.MaxFileSize {
		return Doc{}, result.Errorf(result.TooLarge, "File %s is %d bytes, over the %d-byte limit.", pl.Rel, fi.Size(), w.opts.MaxFileSize)
	}
	hash := &lazyHash{}
	var data []byte
	var isText <-chan bool
	if fi.Size() >= hashAheadMin {
		data, isText, err = readHashing(f, fi.Size(), w.opts.MaxFileSize, w.opts.HugePages, hash)
	} else {
		data, err = confine.ReadAll(f, fi.Size(), w.opts.MaxFileSize, w.opts.HugePages)
	}
	if err != nil {
		return Doc{}, result.Wrap(result.IOError, err, fmt.Sprintf("File %s cannot be read: %v.", pl.Rel, err))
	}
	if int64(len(data)) > w.opts.MaxFileSize {
		return Doc{}, result.Errorf(result.TooLarge, "File %s is over the %d-byte limit.", pl.Rel, w.opts.MaxFileSize)
	}
	// The file's encoding: UTF-8 unless a UTF-16 byte-order mark, its
	// .editorconfig (a UTF-8 mark overrides it), or (for bytes that are not
	// UTF-8) the encodings setting says otherwise.
	decl, from, note := Declared(root, filepath.ToSlash(rel))
	// Bytes that are not the text as they are: decoded from the encoding
	// they are in (or refused as binary).
	decoded := func() (Doc, error) {
		cs, text, err := w.decode(pl.Rel, data, decl, from, note)
		if err != nil {
			return Doc{}, err
		}
		return w.install(pl, text, cs, textdoc.New(text), hash, fi, t.Rel), nil
	}
	marked, bom := charset.ByBOM(data)
	if bom && !marked.IsUTF8() || !bom && !decl.IsUTF8() {
		if isText != nil {
			<-isText
		}
		return decoded()
	}
	// The buffer is ours and never written again: the text aliases it
	// instead of copying the file once more.
	text := unsafe.String(unsafe.SliceData(data), len(data))
	snap := textdoc.New(text) // outside the lock: O(file)
	var binary bool
	if isText != nil {
		binary = !<-isText
	} else {
		binary = IsBinary(data)
	}
	if binary {
		return decoded()
	}
	return w.install(pl, text, charset.UTF8, snap, hash, fi, t.Rel), nil
}
