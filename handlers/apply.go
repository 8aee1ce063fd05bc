package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// Editor is the editor connection edits to open documents go through.
type Editor interface {
	// ApplyEdit asks the editor to apply changes (positions in Encoding) to
	// the open document uri at version, all or nothing. applied=false with a
	// reason is the editor's refusal (the buffer moved on, the user said no).
	ApplyEdit(ctx context.Context, uri string, version int32, changes []textdoc.Change, label string) (applied bool, reason string, err error)
	// Encoding is the negotiated position encoding.
	Encoding() textdoc.Encoding
}

// editSettle bounds the wait for the editor to report an applied edit.
const editSettle = 3 * time.Second

// lockDoc serialises edits to one document.
func (e *Env) lockDoc(k workspace.Key) func() {
	e.editMu.Lock()
	if e.editLocks == nil {
		e.editLocks = make(map[workspace.Key]*sync.Mutex)
	}
	m, ok := e.editLocks[k]
	if !ok {
		m = &sync.Mutex{}
		e.editLocks[k] = m
	}
	e.editMu.Unlock()
	m.Lock()
	return m.Unlock
}

// apply writes a planned edit: through the editor for an open document (a
// versioned workspace edit the editor refuses if the buffer moved on), or
// atomically to disk for a closed one. Nothing is half-applied either way.
func (e *Env) apply(ctx context.Context, session string, d workspace.Doc, plan hashline.Plan) (workspace.Doc, error) {
	via := e.Config().ApplyVia
	if d.Open && e.Editor != nil && via != "disk" {
		return e.applyViaEditor(ctx, session, d, plan)
	}
	if via == "client" {
		return workspace.Doc{}, result.Errorf(result.Denied, "applyVia is \"client\" but %s is not open in an editor connected to sightline; open it or set applyVia to auto.", e.WS.Rel(d.Key))
	}
	if d.Open {
		// No editor to ask (or applyVia=disk): the disk may be written only if
		// the buffer holds no unsaved changes, which the disk write would hide.
		disk, err := os.ReadFile(d.Path)
		if err != nil || !bytes.Equal(disk, []byte(d.Snap.Text())) {
			return workspace.Doc{}, result.Errorf(result.FileChanged, "%s has unsaved changes in the editor; sightline never writes the disk under an unsaved buffer. Save it, or let the editor apply the edit.", e.WS.Rel(d.Key))
		}
	}
	return e.applyToDisk(session, d, plan)
}

func (e *Env) applyViaEditor(ctx context.Context, session string, d workspace.Doc, plan hashline.Plan) (workspace.Doc, error) {
	enc := e.Editor.Encoding()
	changes := plan.Changes(d.Snap, enc)
	want, _, err := d.Snap.Apply(changes, enc)
	if err != nil {
		return workspace.Doc{}, fmt.Errorf("plan edit of %s: %w", e.WS.Rel(d.Key), err)
	}
	e.WS.ExpectEdit(d.Key, d.Version, want, writtenRegions(plan.Splices), session)
	applied, reason, err := e.Editor.ApplyEdit(ctx, d.URI, d.Version, changes, "sightline: agent edit")
	if err != nil || !applied {
		e.WS.CancelExpect(d.Key)
		if err != nil {
			return workspace.Doc{}, result.Wrap(result.VersionConflict, err,
				fmt.Sprintf("The editor did not apply the edit to %s (%v); nothing changed. Read the lines again and retry.", e.WS.Rel(d.Key), err))
		}
		if reason == "" {
			reason = "no reason given"
		}
		return workspace.Doc{}, result.Errorf(result.VersionConflict,
			"The editor refused the edit to %s (%s): the buffer probably changed since version %d. Nothing was applied; read the lines again and retry.", e.WS.Rel(d.Key), reason, d.Version)
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), editSettle)
	defer cancel()
	after, err := e.WS.WaitVersion(wctx, d.Key, d.Version)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return workspace.Doc{}, err
	}
	return after, nil
}

// applyToDisk writes the new text atomically: a temp file in the same folder,
// fsync, rename over the original, the file mode kept. The disk must still
// hold what the edit was planned against; a vanished file is not recreated.
func (e *Env) applyToDisk(session string, d workspace.Doc, plan hashline.Plan) (workspace.Doc, error) {
	rel := e.WS.Rel(d.Key)
	if d.Path == "" {
		return workspace.Doc{}, result.Errorf(result.NotFound, "%s is not a file and no editor holds it.", rel)
	}
	target, err := filepath.EvalSymlinks(d.Path) // write the file a link points to; keep the link
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return workspace.Doc{}, result.Wrap(result.NotFound, err, fmt.Sprintf("%s no longer exists; it was not recreated.", rel))
		}
		return workspace.Doc{}, fmt.Errorf("resolve %s: %w", rel, err)
	}
	cur, err := os.ReadFile(target)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return workspace.Doc{}, result.Wrap(result.NotFound, err, fmt.Sprintf("%s no longer exists; it was not recreated.", rel))
		}
		return workspace.Doc{}, fmt.Errorf("read %s: %w", rel, err)
	}
	if hashline.FileHash(cur) != d.FileHash() {
		return workspace.Doc{}, result.Errorf(result.FileChanged, "%s changed on disk while the edit was being prepared; nothing was written. Read it again and retry.", rel)
	}
	text := hashline.Render(d.Snap, "", plan.Splices)
	fi, err := writeAtomic(target, []byte(text))
	if err != nil {
		return workspace.Doc{}, fmt.Errorf("write %s: %w", rel, err)
	}
	return e.WS.CommitDisk(d.Key, d, plan.Changes(d.Snap, textdoc.UTF8), textdoc.UTF8, session, fi)
}

// writeAtomic replaces path with data so that a reader sees the old file or
// the new one, never a part: temp file beside it, fsync, rename, fsync of the
// folder. The original's permission bits are kept.
func writeAtomic(path string, data []byte) (os.FileInfo, error) {
	orig, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".sightline-*")
	if err != nil {
		return nil, err
	}
	cleanup := func() { tmp.Close(); os.Remove(tmp.Name()) }
	if _, err := tmp.Write(data); err != nil {
		cleanup()
		return nil, err
	}
	if err := tmp.Chmod(orig.Mode().Perm()); err != nil {
		cleanup()
		return nil, err
	}
	if err := tmp.Sync(); err != nil {
		cleanup()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return nil, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return nil, err
	}
	if df, err := os.Open(dir); err == nil {
		_ = df.Sync() // the rename itself durable; best effort on file systems that refuse
		df.Close()
	}
	return os.Stat(path)
}

// writtenRegions are the 0-based [from, to) line ranges of the new text that
// splices (in old coordinates, ascending) wrote.
func writtenRegions(splices []hashline.Splice) [][2]int {
	out := make([][2]int, 0, len(splices))
	delta := 0
	for _, sp := range splices {
		from := sp.Start + delta
		out = append(out, [2]int{from, from + len(sp.New)})
		delta += len(sp.New) - sp.Old
	}
	return out
}
