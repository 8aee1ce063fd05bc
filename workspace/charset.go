package workspace

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"

	"github.com/editorconfig/editorconfig-core-go/v2"

	"github.com/sightline-lsp/sightline/charset"
	"github.com/sightline-lsp/sightline/confine"
	"github.com/sightline-lsp/sightline/result"
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
// editors read them: from the file's folder up, nearer files winning, up
// to one that says root = true or the workspace root (nothing outside the
// workspace is read). An .editorconfig that cannot be read or parsed, or a
// charset sightline does not know, declares nothing; note says which.
func Declared(root *confine.Root, rel string) (c charset.Charset, from string, note string) {
	dir := path.Dir(rel)
	for {
		name := path.Join(dir, ".editorconfig")
		if ec := readEditorconfig(root, name); ec != nil {
			within := strings.TrimPrefix(rel, dir+"/")
			if dir == "." {
				within = rel
			}
			if def, err := ec.GetDefinitionForFilename(within); err == nil {
				if v := strings.TrimSpace(def.Charset); v != "" && v != editorconfig.UnsetValue {
					cs, err := charset.Lookup(v)
					if err != nil {
						return charset.UTF8, name, fmt.Sprintf("%s declares charset %q, which is not known (%v)", name, v, err)
					}
					return cs, name, ""
				}
			}
			if ec.Root {
				return charset.UTF8, "", ""
			}
		}
		if dir == "." || dir == "/" {
			return charset.UTF8, "", ""
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
