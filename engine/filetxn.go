package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/charset"
	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/confine"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/pathlock"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/statedb"
	"github.com/sightline-lsp/sightline/store"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// A write of one document (hashline edits, write modes, rollback, an edit
// block checked in a dry run) is planned here: resolve and admit the
// document, lock it, check the preconditions, let the feature plan, guard,
// diff, then a dry run or the write transaction every write goes through
// (writeLocked, below). The plan's next snapshot is the only new
// text: the disk is written from it, the editor is asked for exactly it (as
// simultaneous LSP edits derived from the plan), and the workspace and
// ledger move to it. A feature supplies only its planner.

// Editor is the editor connection edits to open documents go through.
type Editor interface {
	// ApplyEdit asks the editor to apply changes (positions in Encoding) to
	// the open document uri at version, all or nothing. The changes all refer
	// to the text at version, as the edits of one LSP TextDocumentEdit do.
	// applied=false with a reason is the editor's refusal (the buffer moved
	// on, the user said no).
	ApplyEdit(ctx context.Context, uri string, version int32, changes []textdoc.Change, label string) (applied bool, reason string, err error)
	// ApplyEdits asks the editor to apply the changes of several open
	// documents as one workspace edit (one TextDocumentEdit each), all or
	// nothing as far as the editor makes it so.
	ApplyEdits(ctx context.Context, edits []DocEdit) (applied bool, reason string, err error)
	// Encoding is the negotiated position encoding.
	Encoding() textdoc.Encoding
}

// DocEdit is the edit of one open document inside a workspace edit: changes
// that all refer to the text at Version.
type DocEdit struct {
	URI     string
	Version int32
	Changes []textdoc.Change
}

// editSettle bounds the wait for the editor to report an edit it said it
// applied, within the configured applyTimeoutMs.
const editSettle = 3 * time.Second

// docLocks serialises writes to one document within this process. A
// document's lock lives while a write holds it or waits for it: the map
// holds the documents being written, not every document ever written.
type docLocks struct {
	mu    sync.Mutex
	locks map[workspace.Key]*docLock
}

type docLock struct {
	sync.Mutex
	users int // writes holding or waiting for it; guarded by docLocks.mu
}

func (l *docLocks) lock(k workspace.Key) (unlock func()) {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = make(map[workspace.Key]*docLock)
	}
	m, ok := l.locks[k]
	if !ok {
		m = &docLock{}
		l.locks[k] = m
	}
	m.users++
	l.mu.Unlock()
	m.Lock()
	return func() {
		m.Unlock()
		l.mu.Lock()
		if m.users--; m.users == 0 {
			delete(l.locks, k)
		}
		l.mu.Unlock()
	}
}

// planner is a feature's part of a write: the plan, in the coordinates of d,
// and the lines the guard checks. Its error is the answer (a refusal, or a
// fault).
type planner func(d workspace.Doc) (hashline.Plan, []ledger.Range, error)

// writeReq is one write as the transaction sees it.
type writeReq struct {
	caller Caller
	uri    string
	// args, when not nil, checks the call's own arguments (edits that must
	// decode) once the name is judged, before anyone is asked (transact).
	args   func() error
	dryRun bool
	// wantHash makes the write compare-and-swap: the file hash the caller
	// last saw, or "".
	wantHash string
	plan     planner
	// input is the call's own text for the document (the lines it matches
	// and writes), what names it in a refusal ("The patch"): UTF-8 only,
	// checked before the plan (Doc.Foreign).
	input []string
	what  string
	// scratch, in a dry run, is the text earlier dry-run steps left (edit
	// blocks validated in sequence). The guard is not asked: the ledger
	// never saw that text; the real run asks.
	scratch *textdoc.Snapshot
}

// writeOut is what a transaction did.
type writeOut struct {
	path   string        // the document as answers name it, refused or not
	before workspace.Doc // the document the plan was made against
	after  workspace.Doc // the document now (before, for a dry run or no-op)
	plan   hashline.Plan
	next   *textdoc.Snapshot // the planned text
	diff   string
	// noop: the plan changes nothing; nothing was written.
	noop    bool
	applied bool
	verdict Verdict
	// shown says whether after holds next's lines in the plan's window:
	// false when the editor has not reported the edit back yet.
	shown    bool
	warnings []string
}

// apply records plan and its result on base: noop when it changes nothing,
// else the new text, its diff and the line changes it makes.
func (out *writeOut) apply(rel string, base *textdoc.Snapshot, plan hashline.Plan) ([]textdoc.LineChange, error) {
	out.plan = plan
	if plan.Identity(base) {
		out.noop, out.next = true, base
		return nil, nil
	}
	next, lcs, err := plan.Apply(base)
	if err != nil {
		return nil, fmt.Errorf("plan of %s does not apply: %w", rel, err)
	}
	out.next, out.diff = next, hashline.UnifiedDiff(rel, base, plan.Splices, 3)
	return lcs, nil
}

// transact runs one write. A refusal comes back as an error with a result
// kind; out holds what was known when it stopped (the document, the
// verdict), for the answer.
func (e *Env) transact(ctx context.Context, req writeReq) (out writeOut, err error) {
	session := req.caller.SessionOr()
	// The admission step, before anything is shown: refused, or sensitive
	// and not approved, the write goes no further.
	pl, err := e.WS.PlaceURI(req.uri)
	out.path = pl.Rel
	if err != nil {
		return out, err
	}
	if req.args != nil {
		// The call's own arguments, once the name is judged and before
		// anyone is asked: no user approves a sensitive file for a call that
		// cannot do anything, and a path refused by name is answered as
		// refused all the same (the row an auditor wants).
		if err := req.args(); err != nil {
			if _, denied := e.admit(ctx, req.caller, pl, nameAccess); denied != nil {
				return out, denied
			}
			return out, err
		}
	}
	d, err := e.admit(ctx, req.caller, pl, writeAccess)
	if err != nil {
		return out, err
	}
	unlock := e.locks.lock(d.Key)
	defer unlock()
	// Re-read under the lock: a write that finished meanwhile moved the text.
	if d, err = e.admit(ctx, req.caller, pl, againAccess); err != nil {
		return out, err
	}
	out.before, out.after = d, d
	if err := e.checkInSync(d); err != nil {
		return out, err
	}
	if req.wantHash != "" {
		if now := d.FileHash(); now != req.wantHash {
			return out, result.Errorf(result.FileChanged,
				"%s changed since you read it (fileHash %s, now %s). Read it again before writing.", d.Rel, req.wantHash, now)
		}
	}
	base := d.Snap
	if req.dryRun && req.scratch != nil {
		base = req.scratch
		d.Snap = base
	}
	if err := d.Foreign(req.what, req.input); err != nil {
		return out, err
	}
	plan, targets, err := req.plan(d)
	if err != nil {
		return out, err
	}
	if err := d.Encodable(plan, d.Rel); err != nil {
		return out, err
	}
	lcs, err := out.apply(d.Rel, base, plan)
	if err != nil || out.noop {
		return out, err
	}
	if req.scratch == nil {
		out.verdict = e.guard(session, req.caller.Agent, d, targets)
		out.warnings = append(out.warnings, out.verdict.Warnings...)
		if out.verdict.Err != nil {
			out.diff = "" // its lines may be unread: the refusal hands over what it may show
			return out, out.verdict.Err
		}
	}
	if req.dryRun {
		return out, nil
	}
	ws := []fileWrite{{op: opModify, key: d.Key, rel: d.Rel, before: d, fresh: true, next: out.next, plan: &plan, changes: lcs}}
	warn, err := e.writeLocked(ctx, req.caller, ws)
	out.warnings = append(out.warnings, warn...)
	if err != nil {
		return out, err
	}
	out.applied = true
	if out.after = ws[0].after; out.after.Snap == nil {
		out.after = d // the editor has not reported the new text yet
	}
	out.shown = sameLines(out.after.Snap, out.next, plan)
	return out, nil
}

// sameLines reports whether got holds want's text as far as the plan can
// tell in O(change): the same size and line count, and the lines the plan
// wrote (with their windows) identical.
func sameLines(got, want *textdoc.Snapshot, plan hashline.Plan) bool {
	if got == want {
		return true
	}
	if got.Len() != want.Len() || got.LineCount() != want.LineCount() {
		return false
	}
	for _, r := range plan.Window {
		for i := r.Start; i <= r.End; i++ {
			if got.Line(i-1) != want.Line(i-1) {
				return false
			}
		}
	}
	return true
}

// sameReader reports whether r yields exactly the snapshot's bytes
// (Doc.FileBytes): they are streamed into a writer that reads as much of r
// and compares.
func sameReader(r io.Reader, s io.WriterTo) (bool, error) {
	c := &comparer{r: r}
	if _, err := s.WriteTo(c); err != nil {
		if errors.Is(err, errDiffers) {
			return false, nil
		}
		return false, err
	}
	var one [1]byte
	switch _, err := io.ReadFull(r, one[:]); {
	case err == nil: // longer than the snapshot
		return false, nil
	case errors.Is(err, io.EOF):
		return true, nil
	default:
		return false, err
	}
}

var errDiffers = errors.New("differs")

// comparer is a writer that checks what it is given against the next bytes
// of r, failing with errDiffers at the first difference or when r ends.
type comparer struct {
	r   io.Reader
	got []byte
}

func (c *comparer) Write(p []byte) (int, error) {
	if cap(c.got) < len(p) {
		c.got = make([]byte, len(p))
	}
	got := c.got[:len(p)]
	k, err := io.ReadFull(c.r, got)
	if !bytes.Equal(got[:k], p[:k]) {
		return 0, errDiffers
	}
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return k, errDiffers // shorter than the snapshot
		}
		return k, err
	}
	return len(p), nil
}

// Every write is one transaction, all or none: a hashline edit, a write
// mode, a rollback, a create (one file), edit blocks and patches (many
// files: modifies, creates, deletes, renames, modes; open documents and
// closed files together):
//
//  1. every file is locked (this process's document locks, then the
//     cross-process file locks, each in one order) and checked: it is still
//     the document the write was planned against, a new name is still free;
//  2. every new text is staged: written and synced to a temp file beside its
//     target, while the old file's bytes are compared with the plan's
//     (streamed, nothing copied); nothing visible has changed, and a
//     failure discards them;
//  3. when more than one step must happen on disk, the journal (the state
//     database) records them, as staged (one file's step is one atomic
//     rename, link or removal: it needs none);
//  4. the open documents' edit goes to the editor, one workspace edit; a
//     refusal or a timeout discards the staged texts: nothing was written;
//  5. the files are checked again (identity, size, times; their bytes once
//     more when their times are too recent to trust), the journal is marked
//     committed, and the steps run: renames over the old files, links of new
//     ones, removals. Each step is idempotent and checks the file it acts
//     on, so a crash anywhere is finished (committed) or undone (staged) by
//     the next process that opens the database (recoverWrites).

// txn carries writes out: steps 1 (the files' cross-process locks) to 5
// above, the editor's part, and the workspace, ledger and history brought
// up to what was written; recovery of what a dead process left. It holds
// the parts of the Env a write touches and nothing of the features: what
// to write, and whether the caller may, is decided before it is called
// (Env.writeLocked).
type txn struct {
	WS      *workspace.Workspace
	Ledger  *ledger.Ledger
	Log     *zap.Logger
	db      *statedb.Sync
	editor  Editor
	paths   *pathlock.Locks
	history *historyLog
	follow  *follower
	trees   *treeCache
	config  func() config.Config
}

type fileOp int

const (
	opModify fileOp = iota // a new text (or mode) for an existing file
	opCreate               // a new file
	opDelete               // the file goes
	opRename               // the file moves to another name, with its new text
)

// fileWrite is one file's part of a multi-file write.
type fileWrite struct {
	op   fileOp
	key  workspace.Key // the file (the old name of a rename)
	to   workspace.Key // a rename's new name
	rel  string
	rank int // the caller's index of the file, for its answer
	// before is the document the write was planned against (not for a
	// create); next the new text (not for a delete).
	before workspace.Doc
	next   *textdoc.Snapshot
	// plan makes next from before when one plan does (an open document
	// needs it: the editor gets the plan's changes); nil means the whole text.
	plan *hashline.Plan
	// fresh: before was read under this write's document lock, so it is
	// the document now (reading it again would re-read a file written a
	// moment ago, whose stat cannot be trusted).
	fresh bool
	// changes are the plan's line changes when the caller has them (else
	// they are derived from the plan).
	changes []textdoc.LineChange
	// mode is the file's new permission bits, 0 to keep them (a new file:
	// 0666 less the umask).
	mode fs.FileMode

	// after is the document once written (set by the transaction): for an
	// open document, as the editor reported it, or before's document if it
	// has not reported it yet.
	after workspace.Doc
}

// journalOp is one step of a journal, in the order they run.
type journalOp struct {
	Op   string         `json:"op"`   // put (over old), place (new name), remove (old), dir (made)
	Path string         `json:"path"` // the file's absolute path
	Temp string         `json:"temp,omitempty"`
	Old  confine.FileID `json:"old"`
}

// stagedFile is a file of the transaction on disk, locked and staged.
type stagedFile struct {
	w      *fileWrite
	root   *confine.Root
	from   confine.Target // the existing file (modify, delete, rename)
	to     confine.Target // where the new text goes (modify, create, rename)
	old    confine.FileID
	like   fs.FileInfo // the old file
	temp   string      // the staged temp file's name
	dirs   []string    // folders staging makes (innermost first)
	staged *confine.Staged
	hashed chan string // the new text's file hash, computed while it is written
	// known: the stat cache vouches for the old file's bytes (knownBytes),
	// so they are not read to be compared.
	known bool
	// held is the old file, open from its check until the write is done
	// (a write of one file): the rename or removal that drops its last name
	// then leaves freeing its blocks to the close, behind the answer
	// (release), instead of doing it inside the step (~3 ms for 6 MB). Not
	// on Windows, where an open file may not be replaced.
	held *os.File
}

// letGo closes the old file now, if it is held.
func (f *stagedFile) letGo() {
	if f.held != nil {
		f.held.Close()
		f.held = nil
	}
}

// release closes the old file behind the answer, after the history's and
// the audit's writes queued before it.
func (t *txn) release(f *stagedFile) {
	if held := f.held; held != nil {
		f.held = nil
		t.history.enqueue(func() { held.Close() })
	}
}

// commitWrites runs a write. On error nothing was written, except where the
// error says so (the disk failing between two renames: the journal then
// finishes the write on the next start).
func (e *Env) commitWrites(ctx context.Context, c Caller, ws []fileWrite) (warnings []string, err error) {
	// This process's document locks, in key order.
	var keys []workspace.Key
	for _, w := range ws {
		keys = append(keys, w.key)
		if w.to != "" {
			keys = append(keys, w.to)
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	for _, k := range keys {
		unlock := e.locks.lock(k)
		defer unlock()
	}
	return e.writeLocked(ctx, c, ws)
}

// writeLocked is commitWrites for a caller that holds the document locks of
// every file.
func (e *Env) writeLocked(ctx context.Context, c Caller, ws []fileWrite) (warnings []string, err error) {
	via := e.Config().ApplyVia
	var open, disk []*fileWrite
	for i := range ws {
		w := &ws[i]
		if w.op != opCreate {
			d := w.before
			if !w.fresh {
				var err error
				if d, err = e.admit(ctx, c, e.WS.Place(w.key), reportAccess); err != nil {
					return nil, err
				}
			}
			if (d.Rev != w.before.Rev || d.Snap != w.before.Snap) && d.FileHash() != w.before.FileHash() {
				return nil, result.Errorf(result.FileChanged, "%s changed while the write was being checked; nothing was written. Read it again and retry.", w.rel)
			}
			if err := e.checkInSync(d); err != nil {
				return nil, err
			}
			if d.Open && w.op != opModify {
				return nil, result.Errorf(result.Denied, "%s is open in the editor: close it before it is deleted or renamed; nothing was written.", w.rel)
			}
			w.before = d
			if d.Open && e.tx.editor != nil && via != "disk" {
				open = append(open, w)
				continue
			}
			if via == "client" {
				return nil, result.Errorf(result.Denied, "applyVia is \"client\" but %s is not open in an editor connected to sightline; open it or set applyVia to auto. Nothing was written.", w.rel)
			}
		}
		for _, k := range []workspace.Key{w.key, w.to} {
			if d, known := e.WS.Known(k); k != "" && known && d.Open && (w.op == opCreate || k == w.to) {
				return nil, result.Errorf(result.Exists, "%s is open in the editor; nothing was written.", e.WS.Rel(k))
			}
		}
		disk = append(disk, w)
	}
	return e.tx.run(ctx, c, open, disk)
}

// run writes the files: the disk part (disk) and the editor's (open),
// all or none, the documents' locks held by the caller and each document
// admitted and checked.
func (t *txn) run(ctx context.Context, c Caller, open, disk []*fileWrite) (warnings []string, err error) {
	files, release, err := t.lockFiles(ctx, disk)
	if err != nil {
		return nil, err
	}
	defer release()
	defer func() {
		for _, f := range files {
			if f.staged != nil {
				f.staged.Close()
			}
			f.letGo()
		}
	}()
	for _, f := range files {
		if err := t.checkStaged(ctx, f); err != nil {
			return nil, err
		}
	}
	st, err := t.stageAll(ctx, files)
	if err != nil {
		return nil, err
	}
	defer st.unlock()
	if len(open) > 0 {
		warn, err := t.editWrites(ctx, c.SessionOr(), open)
		if err != nil {
			st.undo(ctx)
			return nil, err
		}
		warnings = append(warnings, warn...)
	}
	// The last check before the point of no return: every old file is still
	// the one checked, every new name still free.
	for _, f := range files {
		if err := t.recheck(f); err != nil {
			st.undo(ctx)
			if len(open) > 0 {
				err = result.Errorf(result.KindOf(err), "%s But the editor had applied the edit of the open documents already: undo it there if it should not stay.", result.Message(err))
			}
			return nil, err
		}
	}
	if err := t.commit(ctx, st); err != nil {
		return warnings, err
	}
	for _, f := range files {
		t.release(f)
		t.afterDisk(ctx, c, f)
	}
	for _, w := range open {
		t.afterEditor(ctx, c, w)
	}
	return warnings, nil
}

// staging is the disk part of a write once staged: its files' new texts
// in temp files, and the journal that names them when more than one step
// must happen.
type staging struct {
	t         *txn
	files     []*stagedFile
	id        string
	ops       []journalOp
	journaled bool
	unlock    func() // the journal's lock
}

// undo discards the staged texts and the journal: nothing was written.
func (s *staging) undo(ctx context.Context) {
	for _, f := range s.files {
		if f.staged != nil {
			f.root.Discard(f.staged)
		}
	}
	s.t.dropJournal(ctx, s.id, s.journaled)
}

// stageAll journals the steps when there are several, then stages every
// new text. The journal names every temp file and folder before any is
// made: a crash while staging leaves nothing the next start does not
// remove. One file's step (a rename over the old file, a link of a new
// one, a removal) is atomic: it needs no journal, and its temp file is a
// locked one the cleaner removes if this process dies.
func (t *txn) stageAll(ctx context.Context, files []*stagedFile) (*staging, error) {
	st := &staging{t: t, files: files, unlock: func() {},
		journaled: len(files) > 1 || len(files) == 1 && files[0].w.op == opRename}
	if len(files) > 1 {
		// A write of many files holds one descriptor per file (its lock),
		// not two.
		for _, f := range files {
			f.letGo()
		}
	}
	if st.journaled {
		st.id, st.ops = t.journalOps(files)
		unlock, err := t.lockJournal(ctx, st.id)
		if err != nil {
			return nil, result.Wrap(result.IOError, err, fmt.Sprintf("the write's journal cannot be locked (%v); nothing was written.", err))
		}
		st.unlock = unlock
		if err := t.putJournal(ctx, st.id, store.JournalStaged, st.ops); err != nil {
			unlock()
			return nil, err
		}
	}
	for _, f := range files {
		if err := t.stage(f, st.journaled); err != nil {
			st.undo(ctx)
			st.unlock()
			return nil, err
		}
	}
	return st, nil
}

// commit passes the point of no return: the journal marked committed,
// then every step run. A step that fails leaves the write to the next
// start's recovery when it is journaled; the one step of a write that is
// not did not happen, and nothing was written.
func (t *txn) commit(ctx context.Context, st *staging) error {
	if !confine.ReplacesOpenFiles {
		for _, f := range st.files {
			f.letGo() // it could not be renamed over while open
		}
	}
	if st.journaled {
		if err := t.putJournal(ctx, st.id, store.JournalCommitted, st.ops); err != nil {
			st.undo(ctx)
			return err
		}
	}
	var failed []string
	for _, f := range st.files {
		err := f.run()
		if err != nil && !st.journaled {
			st.undo(ctx)
			if errors.Is(err, confine.ErrChanged) {
				return changedOnDisk(f.w.rel)
			}
			return result.Errorf(result.KindOf(err), "%s Nothing was written.", result.Message(err))
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s (%s)", f.w.rel, result.Message(err)))
		}
	}
	if len(failed) > 0 {
		// Left to the next start's recovery, which retries what it can.
		return result.Errorf(result.IOError, "The write was decided but these files could not be moved into place: %s. The other files are written; sightline retries the rest when it next starts. Read the files before writing again.", strings.Join(failed, "; "))
	}
	t.dropJournal(ctx, st.id, st.journaled)
	return nil
}

// lockWait bounds the wait for another process's write of the same file.
const lockWait = 10 * time.Second

// lockFiles resolves every file of the disk part and takes their
// cross-process locks, in the order of their real paths.
func (t *txn) lockFiles(ctx context.Context, disk []*fileWrite) ([]*stagedFile, func(), error) {
	var files []*stagedFile
	var reals []string
	for _, w := range disk {
		root, rel, err := t.WS.Locate(w.key)
		if err != nil {
			return nil, nil, err
		}
		f := &stagedFile{w: w, root: root}
		target, err := root.Resolve(rel, confine.Write)
		if err != nil {
			return nil, nil, err
		}
		target.Name = w.rel
		switch w.op {
		case opCreate:
			f.to = target
		case opModify:
			f.from, f.to = target, target
		case opDelete:
			f.from = target
		case opRename:
			f.from = target
			_, trel, err := t.WS.Locate(w.to)
			if err != nil {
				return nil, nil, err
			}
			troot, _, _ := t.WS.Locate(w.to)
			if troot != root {
				return nil, nil, result.Errorf(result.Denied, "%s and %s are in different workspace folders; sightline renames within one. Nothing was written.", w.rel, t.WS.Rel(w.to))
			}
			if f.to, err = root.Resolve(trel, confine.Write); err != nil {
				return nil, nil, err
			}
			f.to.Name = t.WS.Rel(w.to)
		}
		for _, target := range []confine.Target{f.from, f.to} {
			if target.Real != "" {
				reals = append(reals, target.Real)
			}
		}
		files = append(files, f)
	}
	slices.Sort(reals)
	reals = slices.Compact(reals)
	var releases []func()
	release := func() {
		for i := len(releases) - 1; i >= 0; i-- {
			releases[i]()
		}
	}
	for _, real := range reals {
		unlock, err := t.paths.Lock(ctx, real, lockWait)
		switch {
		case err == nil:
			releases = append(releases, unlock)
			continue
		case errors.Is(err, pathlock.ErrTimeout):
			err = result.Wrap(result.Timeout, err, fmt.Sprintf("Another sightline process has been writing %s for %v; nothing was written. Retry in a moment (lock file %s).", real, lockWait, t.paths.File(real)))
		case ctx.Err() == nil:
			err = result.Wrap(result.IOError, err, fmt.Sprintf("%s cannot be locked for writing: %v; nothing was written.", real, err))
		}
		release()
		return nil, nil, err
	}
	return files, release, nil
}

// checkStaged checks a file under its lock: an old file is still a regular
// file (its state kept for the checks that follow), a new name is free. A
// file that goes (delete) has its bytes compared here; one that gets a new
// text has them compared while the text is staged. It names the temp file
// and the folders staging will make.
func (t *txn) checkStaged(ctx context.Context, f *stagedFile) error {
	w := f.w
	if w.op != opCreate {
		held, fi, err := f.root.Open(f.from.Rel)
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			held.Close()
			return result.Errorf(result.Denied, "%s is not a regular file (%v); nothing was written.", w.rel, fi.Mode().Type())
		}
		f.held, f.old, f.like = held, confine.IDOf(fi), fi
		f.known = t.knownBytes(ctx, w, fi)
	}
	if w.op == opDelete && !f.known {
		return f.sameBytes()
	}
	if w.op == opCreate {
		d, err := newFileDoc(f.root, f.to.Rel, w.key, w.rel, "The text", w.next)
		if err != nil {
			return err
		}
		w.before = d
	}
	f.temp = confine.StageName()
	if w.op == opCreate || w.op == opRename {
		if f.to.Exists {
			return result.Errorf(result.Exists, "%s already exists; nothing was written.", f.to.Name)
		}
		for dir := filepath.Dir(f.to.Rel); dir != "." && dir != string(filepath.Separator); dir = filepath.Dir(dir) {
			if there, err := f.root.Exists(dir); err != nil || there {
				break
			}
			f.dirs = append(f.dirs, dir)
		}
	}
	return nil
}

// knownBytes reports whether the stat cache vouches for the old file (fi,
// its state under the lock) holding the text the write was planned
// against: fi is the stat a read hashed the file's bytes under (the cache
// keeps only stats older than the file system's clock resolution, so a
// change since would show in it), and that hash is the planned text's. A
// read trusts the same row for the file's hash and line hashes.
func (t *txn) knownBytes(ctx context.Context, w *fileWrite, fi fs.FileInfo) bool {
	want := w.before.FileHashIfKnown()
	if t.db == nil || want == "" {
		return false
	}
	st, ok := fileStat(string(w.key), fi)
	if !ok {
		return false
	}
	cached, hit, err := t.db.FileStat(ctx, w.key)
	return err == nil && hit && cached.Same(st) && cached.FileHash == want
}

// sameBytes checks that the old file is still the one checked and holds
// the text the write was planned against: read through one descriptor
// (the one held since the check, else one opened by name), compared as it
// streams, neither copied. Its name still leading to it is checked before
// each step (recheck, and the step itself).
func (f *stagedFile) sameBytes() error {
	w := f.w
	var r io.Reader
	var fi fs.FileInfo
	var err error
	if f.held != nil {
		if fi, err = confine.Stat(f.held); err != nil {
			return result.Wrap(result.IOError, err, fmt.Sprintf("%s cannot be read: %v; nothing was written.", w.rel, err))
		}
		r = io.NewSectionReader(f.held, 0, math.MaxInt64)
	} else {
		var rf *os.File
		if rf, fi, err = f.root.OpenRead(f.from); err != nil {
			return err
		}
		defer rf.Close()
		r = rf
	}
	if confine.IDOf(fi) != f.old {
		return changedOnDisk(w.rel)
	}
	same, err := sameReader(r, w.before.FileBytes(w.before.Snap))
	if err != nil {
		return result.Wrap(result.IOError, err, fmt.Sprintf("%s cannot be read: %v; nothing was written.", w.rel, err))
	}
	if !same {
		if w.before.Open {
			return result.Errorf(result.FileChanged, "%s has unsaved changes in the editor; sightline never writes the disk under an unsaved buffer. Save it; nothing was written.", w.rel)
		}
		return changedOnDisk(w.rel)
	}
	return nil
}

// stage writes a checked file's new text beside it, comparing the old
// file's bytes meanwhile, and computes the new text's file hash (for the
// answer) on another goroutine: on a second core neither costs wall time.
// journaled: the temp file has the name the journal gave it.
func (t *txn) stage(f *stagedFile, journaled bool) error {
	w := f.w
	if w.op == opDelete {
		return nil
	}
	f.hashed = make(chan string, 1)
	go func() { f.hashed <- workspace.Doc{Snap: w.next, Charset: w.before.Charset}.FileHash() }()
	temp := ""
	if journaled {
		temp = f.temp
	}
	var err error
	switch w.op {
	case opCreate:
		f.staged, err = f.root.Stage(f.to, temp, snapWriter(w.before.FileBytes(w.next)), nil, w.mode, nil)
	case opRename:
		mode := w.mode
		if mode == 0 {
			mode = f.like.Mode().Perm()
		}
		f.staged, err = f.root.Stage(f.to, temp, snapWriter(w.before.FileBytes(w.next)), nil, mode, f.check())
	default:
		f.staged, err = f.root.Stage(f.to, temp, snapWriter(w.before.FileBytes(w.next)), f.like, w.mode, f.check())
	}
	if err == nil && journaled {
		// A write of many files holds one descriptor per file (its lock),
		// not three.
		f.staged.Release()
	}
	return err
}

// check is the comparison of the old file staging makes: none when the
// stat cache vouches for its bytes (its state is checked again before each
// step: recheck, and the step itself).
func (f *stagedFile) check() func() error {
	if f.known {
		return nil
	}
	return f.sameBytes
}

func snapWriter(s io.WriterTo) func(io.Writer) error {
	return func(w io.Writer) error { _, err := s.WriteTo(w); return err }
}

// recheck is the check just before the point of no return: an old file is
// still the one checked (its bytes read once more if its times are too
// recent to show a change since), a new name is still free.
func (t *txn) recheck(f *stagedFile) error {
	if f.w.op != opCreate {
		if now, err := f.root.ID(f.from.Rel); err != nil || now != f.old {
			return changedOnDisk(f.w.rel)
		}
		if f.staged != nil && f.staged.Recent(f.old) {
			if err := f.sameBytes(); err != nil {
				return err
			}
		}
	}
	if f.w.op == opCreate || f.w.op == opRename {
		if there, err := f.root.Exists(f.to.Rel); err != nil || there {
			return result.Errorf(result.Exists, "%s was created by another program while the write was being prepared; nothing was written.", f.to.Name)
		}
	}
	return nil
}

// run moves a staged file into place (the steps of journalOps).
func (f *stagedFile) run() error {
	switch f.w.op {
	case opModify:
		return f.root.Put(f.staged.Temp, f.to.Rel, f.old)
	case opCreate:
		return f.root.Place(f.staged.Temp, f.to.Rel)
	case opDelete:
		return f.root.RemoveID(f.from.Rel, f.old)
	case opRename:
		if err := f.root.Place(f.staged.Temp, f.to.Rel); err != nil {
			return err
		}
		return f.root.RemoveID(f.from.Rel, f.old)
	}
	return nil
}

// journalOps lists the steps of run for the journal, with a new id.
func (t *txn) journalOps(files []*stagedFile) (string, []journalOp) {
	var b [8]byte
	rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	var ops []journalOp
	abs := func(f *stagedFile, rel string) string { return filepath.Join(f.root.Dir(), rel) }
	for _, f := range files {
		temp := f.temp
		// A "dir" step names a folder staging makes: removed (if empty)
		// when the write is undone.
		for _, d := range f.dirs {
			ops = append(ops, journalOp{Op: "dir", Path: abs(f, d)})
		}
		switch f.w.op {
		case opModify:
			ops = append(ops, journalOp{Op: "put", Path: abs(f, f.to.Rel), Temp: temp, Old: f.old})
		case opCreate:
			ops = append(ops, journalOp{Op: "place", Path: abs(f, f.to.Rel), Temp: temp})
		case opDelete:
			ops = append(ops, journalOp{Op: "remove", Path: abs(f, f.from.Rel), Old: f.old})
		case opRename:
			ops = append(ops, journalOp{Op: "place", Path: abs(f, f.to.Rel), Temp: temp},
				journalOp{Op: "remove", Path: abs(f, f.from.Rel), Old: f.old})
		}
	}
	return id, ops
}

func (t *txn) putJournal(ctx context.Context, id, state string, ops []journalOp) error {
	if t.db == nil {
		return nil // no database: the write is still all or none, but a crash is not recovered
	}
	data, err := json.Marshal(ops)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := t.db.DB().PutJournal(context.WithoutCancel(ctx), store.Journal{ID: id, State: state, Ops: data, Created: time.Now()}); err != nil {
		return result.Wrap(result.IOError, err, fmt.Sprintf("The write's journal cannot be saved (%v); nothing was written.", err))
	}
	return nil
}

func (t *txn) dropJournal(ctx context.Context, id string, kept bool) {
	if t.db == nil || !kept {
		return
	}
	if err := t.db.DB().DropJournal(context.WithoutCancel(ctx), id); err != nil {
		t.Log.Warn("dropping a finished write's journal", zap.String("id", id), zap.Error(err))
	}
}

// editWrites asks the editor to apply the open documents' changes as one
// workspace edit. Every wait on the editor is bounded: a timeout is
// `timeout` (the expectation stays: an edit the editor applies late is
// still the session's), a refusal `version_conflict`. An edit the editor
// said it applied but has not reported back is applied, with a warning.
func (t *txn) editWrites(ctx context.Context, session string, open []*fileWrite) ([]string, error) {
	limit := time.Duration(t.config().ApplyTimeoutMs) * time.Millisecond
	deadline := time.Now().Add(limit)
	edits := make([]DocEdit, len(open))
	names := make([]string, len(open))
	for i, w := range open {
		if w.plan == nil {
			p := wholePlan(w.before.Snap, w.next)
			w.plan = &p
		}
		regions := w.plan.Regions()
		spans := make([][2]int, len(regions))
		for j, r := range regions {
			spans[j] = [2]int{r.Start - 1, r.End}
		}
		t.WS.ExpectEdit(w.before.Key, w.before.Version, w.next, spans, session)
		edits[i] = DocEdit{URI: w.before.URI, Version: w.before.Version, Changes: w.plan.Changes(w.before.Snap, t.editor.Encoding())}
		names[i] = w.rel
	}
	what := strings.Join(names, ", ")
	cctx, cancel := context.WithDeadline(ctx, deadline)
	var applied bool
	var reason string
	var err error
	if len(edits) == 1 {
		applied, reason, err = t.editor.ApplyEdit(cctx, edits[0].URI, edits[0].Version, edits[0].Changes, "sightline: agent edit")
	} else {
		applied, reason, err = t.editor.ApplyEdits(cctx, edits)
	}
	cancel()
	if err != nil && time.Now().After(deadline) && ctx.Err() == nil {
		return nil, result.Errorf(result.Timeout,
			"The editor did not answer the edit of %s within %v; nothing is known to be applied and no file on disk was written. Read the lines again before retrying (if the editor applies it late, the lines count as yours).", what, limit)
	}
	if err != nil || !applied {
		for _, w := range open {
			t.WS.CancelExpect(w.before.Key)
		}
		if err != nil {
			return nil, result.Wrap(result.VersionConflict, err, fmt.Sprintf("The editor did not apply the edit of %s (%v); nothing changed. Read them again and retry.", what, err))
		}
		if reason == "" {
			reason = "no reason given"
		}
		return nil, result.Errorf(result.VersionConflict, "The editor refused the edit of %s (%s): the buffer probably changed. Nothing was applied; read the lines again and retry.", what, reason)
	}
	var warnings []string
	for _, w := range open {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), max(min(editSettle, time.Until(deadline)), 0))
		after, err := t.WS.WaitVersion(wctx, w.before.Key, w.before.Version)
		cancel()
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			warnings = append(warnings, fmt.Sprintf("The editor said it applied the edit to %s but has not reported the new text; read the lines before the next edit.", w.rel))
		case err != nil:
			return warnings, err
		}
		w.after = after
	}
	t.follow.settle() // the editor's echo of the edit: the session's own lines
	return warnings, nil
}

// wholePlan replaces all of before's lines by next's.
func wholePlan(before, next *textdoc.Snapshot) hashline.Plan {
	n := before.LineCount()
	nl := make([]lines.Line, next.LineCount())
	for i := range nl {
		nl[i] = next.Line(i)
	}
	return hashline.NewPlan(n, []hashline.Splice{{Start: 0, Old: n, New: nl}}, nil)
}

// afterDisk brings the workspace, the ledger and the history up to a file
// the transaction wrote. The new file's state comes from the staged file's
// descriptor: no name is looked up again.
func (t *txn) afterDisk(ctx context.Context, c Caller, f *stagedFile) {
	w := f.w
	session := c.SessionOr()
	t.follow.settle() // the ledger at the revision written over
	defer t.follow.settle()
	for _, k := range []workspace.Key{w.key, w.to} {
		if p, ok := k.Path(); ok && k != "" {
			t.trees.changed(p, w.op != opModify)
		}
	}
	var fi fs.FileInfo
	if f.staged != nil {
		var err error
		if fi, err = f.staged.Info(); err != nil {
			t.WS.Forget(w.key)
			return
		}
	}
	switch w.op {
	case opModify:
		plan := w.plan
		if plan == nil {
			p := wholePlan(w.before.Snap, w.next)
			plan = &p
		}
		lcs := w.changes
		if lcs == nil {
			if _, got, err := plan.Apply(w.before.Snap); err == nil {
				lcs = got
			}
		}
		w.after = t.WS.CommitDisk(w.key, w.before, w.next, lcs, session, fi)
		t.follow.settle()
		w.after.KnowFileHash(<-f.hashed)
		t.record(ctx, c, w.before.Rel, written{before: w.before, after: w.after, plan: plan})
	case opCreate:
		w.after = t.created(ctx, c, w.key, w.next, w.before.Charset, fi, f.to.Rel, <-f.hashed)
	case opDelete:
		t.WS.Forget(w.key)
		t.Ledger.Forget(ledger.DocKey(w.key))
	case opRename:
		t.WS.Forget(w.key)
		t.Ledger.Forget(ledger.DocKey(w.key))
		w.after = t.created(ctx, c, w.to, w.next, w.before.Charset, fi, f.to.Rel, <-f.hashed)
	}
}

// created records a file the session wrote new (fi: its state, real: its
// name as resolved): its lines are its own.
func (t *txn) created(ctx context.Context, c Caller, k workspace.Key, text *textdoc.Snapshot, cs charset.Charset, fi fs.FileInfo, real, hash string) workspace.Doc {
	d := t.WS.Created(k, text, cs, fi, real)
	t.follow.settle()
	d.KnowFileHash(hash)
	t.record(ctx, c, d.Rel, written{after: d})
	doc := ledger.DocKey(k)
	t.Ledger.MarkCreated(c.SessionOr(), doc)
	if n := d.Snap.LineCount(); n > 0 {
		t.Ledger.RecordShown(ledger.KindAuthored, c.SessionOr(), c.Agent, doc, d.Rev, ledger.Range{Start: 1, End: n}, sumOf(d.Snap))
		t.WS.Pin(d.Key, d.Rev)
	}
	return d
}

// afterEditor records an open document's write in the history: the text
// as the editor reported it when it holds the plan's lines (its hash was
// computed during the round trip), else the planned text.
func (t *txn) afterEditor(ctx context.Context, c Caller, w *fileWrite) {
	now := w.after
	if now.Snap == nil || !sameLines(now.Snap, w.next, *w.plan) {
		now = workspace.Doc{Snap: w.next, Charset: w.before.Charset}
	}
	t.record(ctx, c, w.before.Rel, written{before: w.before, after: now, plan: w.plan})
}

// recoverWrites finishes or undoes the multi-file writes a process left
// behind when it died: a committed journal is run to its end (every step
// checks the file it acts on), a staged one has its temp files removed. A
// journal whose writer is alive (it holds the journal's lock) is left alone.
func (t *txn) recoverWrites(ctx context.Context) {
	if t.db == nil {
		return
	}
	js, err := t.db.DB().Journals(ctx)
	if err != nil {
		t.Log.Warn("listing unfinished writes", zap.Error(err))
		return
	}
	for _, j := range js {
		release, err := t.lockJournal(ctx, j.ID)
		if err != nil {
			continue // its writer is still at it
		}
		// Read again under the lock: a writer that finished meanwhile
		// dropped its journal before it let the lock go.
		if now, err := t.db.DB().Journals(ctx); err == nil && slices.ContainsFunc(now, func(x store.Journal) bool { return x.ID == j.ID && x.State == j.State }) {
			t.recoverOne(ctx, j)
		}
		release()
	}
}

// lockJournal takes the lock a journal's writer holds while it lives; the
// lock file goes with the lock (each journal has its own: nobody waits on
// it, a recovery only tries it once).
func (t *txn) lockJournal(ctx context.Context, id string) (func(), error) {
	key := "journal:" + id
	release, err := t.paths.Lock(ctx, key, 0)
	if err != nil {
		return nil, err
	}
	return func() {
		os.Remove(t.paths.File(key))
		release()
	}, nil
}

func (t *txn) recoverOne(ctx context.Context, j store.Journal) {
	var ops []journalOp
	if err := json.Unmarshal(j.Ops, &ops); err != nil {
		t.Log.Error("an unfinished write's journal is unreadable; dropped", zap.String("id", j.ID), zap.Error(err))
		t.dropJournal(ctx, j.ID, true)
		return
	}
	// The files' own locks: no other sightline write runs on them meanwhile.
	var reals []string
	type step struct {
		op   journalOp
		root *confine.Root
		rel  string
	}
	var steps []step
	for _, op := range ops {
		k, err := t.WS.Resolve(op.Path)
		if err != nil {
			continue
		}
		root, rel, err := t.WS.Locate(k)
		if err != nil {
			continue
		}
		if target, err := root.Resolve(rel, confine.Write); err == nil {
			reals = append(reals, target.Real)
		}
		steps = append(steps, step{op, root, rel})
	}
	slices.Sort(reals)
	reals = slices.Compact(reals)
	for _, real := range reals {
		unlock, err := t.paths.Lock(ctx, real, lockWait)
		if err != nil {
			t.Log.Warn("an unfinished write's file is locked; retried at the next start", zap.String("path", real), zap.Error(err))
			return
		}
		defer unlock()
	}
	if j.State != store.JournalCommitted {
		// Undone: the temp files, then the folders made for them.
		for _, s := range steps {
			if s.op.Temp != "" {
				s.root.DiscardTemp(filepath.Join(filepath.Dir(s.rel), s.op.Temp))
			}
		}
		for _, s := range steps {
			if s.op.Op == "dir" {
				s.root.RemoveDir(s.rel)
			}
		}
		t.dropJournal(ctx, j.ID, true)
		return
	}
	for _, s := range steps {
		temp := ""
		if s.op.Temp != "" {
			temp = filepath.Join(filepath.Dir(s.rel), s.op.Temp)
		}
		var err error
		switch s.op.Op {
		case "put":
			err = s.root.Put(temp, s.rel, s.op.Old)
		case "place":
			err = s.root.Place(temp, s.rel)
		case "remove":
			err = s.root.RemoveID(s.rel, s.op.Old)
		}
		if err != nil {
			t.Log.Error("finishing an unfinished write", zap.String("path", s.op.Path), zap.Error(err))
			if temp != "" {
				s.root.DiscardTemp(temp)
			}
		}
		if k, err := t.WS.Resolve(s.op.Path); err == nil {
			t.WS.Forget(k)
		}
	}
	t.dropJournal(ctx, j.ID, true)
}

// changedOnDisk refuses a write whose file another process changed after
// the write was planned.
func changedOnDisk(rel string) error {
	return result.Errorf(result.FileChanged, "%s changed on disk while the write was being prepared; nothing was written. Read it again and retry.", rel)
}
