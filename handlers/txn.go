package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/sightline-lsp/sightline/confine"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/pathlock"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// Every write (hashline edits, write modes, edit blocks) is one transaction
// with one implementation: resolve the document, lock it, check the
// preconditions, let the feature plan, guard, diff, then a dry run or the
// commit. The plan's next snapshot is the only new text: the disk is written
// from it, the editor is asked for exactly it (as simultaneous LSP edits
// derived from the plan), and the workspace and ledger move to it. A feature
// supplies only its planner.

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

// docLocks serialises writes to one document within this process.
type docLocks struct {
	mu    sync.Mutex
	locks map[workspace.Key]*sync.Mutex
}

func (l *docLocks) lock(k workspace.Key) func() {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = make(map[workspace.Key]*sync.Mutex)
	}
	m, ok := l.locks[k]
	if !ok {
		m = &sync.Mutex{}
		l.locks[k] = m
	}
	l.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// planner is a feature's part of a write: the plan, in the coordinates of d,
// and the lines the guard checks. Its error is the answer (a refusal, or a
// fault).
type planner func(d workspace.Doc) (hashline.Plan, []ledger.Range, error)

// writeReq is one write as the transaction sees it.
type writeReq struct {
	caller Caller
	method string // for the history: the call that writes
	uri    string
	dryRun bool
	// wantHash makes the write compare-and-swap: the file hash the caller
	// last saw, or "".
	wantHash string
	plan     planner
	// scratch, in a dry run, is the text earlier dry-run steps left (edit
	// blocks validated in sequence). The guard is not asked: the ledger
	// never saw that text; the real run asks.
	scratch *textdoc.Snapshot
}

// writeOut is what a transaction did.
type writeOut struct {
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

// transact runs one write. A refusal comes back as an error with a result
// kind; out holds what was known when it stopped (the document, the
// verdict), for the answer.
func (e *Env) transact(ctx context.Context, req writeReq) (out writeOut, err error) {
	session := req.caller.SessionOr()
	// The admission step, before anything is shown: refused, or sensitive
	// and not approved, the write goes no further.
	d, err := e.admitDoc(ctx, req.caller, req.uri, true)
	if err != nil {
		return out, err
	}
	unlock := e.locks.lock(d.Key)
	defer unlock()
	// Re-read under the lock: a write that finished meanwhile moved the text.
	if d, err = e.document(req.uri); err != nil {
		return out, err
	}
	out.before, out.after = d, d
	if err := e.checkInSync(d); err != nil {
		return out, err
	}
	if req.wantHash != "" {
		if now := d.FileHash(); now != req.wantHash {
			return out, result.Errorf(result.FileChanged,
				"%s changed since you read it (fileHash %s, now %s). Read it again before writing.", e.WS.Rel(d.Key), req.wantHash, now)
		}
	}
	base := d.Snap
	if req.dryRun && req.scratch != nil {
		base = req.scratch
		d.Snap = base
	}
	plan, targets, err := req.plan(d)
	if err != nil {
		return out, err
	}
	out.plan = plan
	if plan.Identity(base) {
		out.noop, out.next = true, base
		return out, nil
	}
	next, lcs, err := plan.Apply(base)
	if err != nil {
		return out, fmt.Errorf("plan of %s does not apply: %w", e.WS.Rel(d.Key), err)
	}
	out.next = next
	if req.scratch == nil {
		out.verdict = e.guard(session, req.caller.Agent, d, targets)
		out.warnings = append(out.warnings, out.verdict.Warnings...)
		if out.verdict.Err != nil {
			return out, out.verdict.Err
		}
	}
	out.diff = hashline.UnifiedDiff(e.WS.Rel(d.Key), base, plan.Splices, 3)
	if req.dryRun {
		return out, nil
	}
	after, warn, err := e.commit(ctx, session, d, plan, next, lcs)
	if err != nil {
		return out, err
	}
	out.after, out.applied = after, true
	out.warnings = append(out.warnings, warn...)
	out.shown = sameLines(after.Snap, next, plan)
	now := after // the planned text, as the editor reported it (its hash computed during the round trip)
	if !out.shown {
		now = workspace.Doc{Snap: next} // the editor's text moved on: keep what was written
	}
	e.record(ctx, req.method, req.caller, d.Key, written{before: d, after: now, plan: &plan})
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

// commit makes next the document's text: through the editor for an open
// document (a versioned workspace edit the editor refuses if the buffer moved
// on), or atomically to disk for a closed one. Nothing is half-applied either
// way.
func (e *Env) commit(ctx context.Context, session string, d workspace.Doc, plan hashline.Plan, next *textdoc.Snapshot, lcs []textdoc.LineChange) (workspace.Doc, []string, error) {
	via := e.Config().ApplyVia
	if d.Open && e.editor != nil && via != "disk" {
		return e.commitEditor(ctx, session, d, plan, next)
	}
	if via == "client" {
		return workspace.Doc{}, nil, result.Errorf(result.Denied, "applyVia is \"client\" but %s is not open in an editor connected to sightline; open it or set applyVia to auto.", e.WS.Rel(d.Key))
	}
	// An open buffer without an editor to ask (or applyVia=disk): commitDisk
	// writes only if the disk holds the buffer's text, that is, the buffer
	// has no unsaved changes a disk write would hide.
	after, err := e.commitDisk(ctx, session, d, next, lcs)
	return after, nil, err
}

func (e *Env) commitEditor(ctx context.Context, session string, d workspace.Doc, plan hashline.Plan, next *textdoc.Snapshot) (workspace.Doc, []string, error) {
	rel := e.WS.Rel(d.Key)
	regions := plan.Regions()
	spans := make([][2]int, len(regions))
	for i, r := range regions {
		spans[i] = [2]int{r.Start - 1, r.End}
	}
	// Every wait on the editor is bounded. The expectation outlives a timeout
	// on purpose: an edit the editor applies late is still the session's.
	limit := time.Duration(e.Config().ApplyTimeoutMs) * time.Millisecond
	deadline := time.Now().Add(limit)
	e.WS.ExpectEdit(d.Key, d.Version, next, spans, session)
	cctx, cancel := context.WithDeadline(ctx, deadline)
	applied, reason, err := e.editor.ApplyEdit(cctx, d.URI, d.Version, plan.Changes(d.Snap, e.editor.Encoding()), "sightline: agent edit")
	cancel()
	if err != nil && time.Now().After(deadline) && ctx.Err() == nil {
		return workspace.Doc{}, nil, result.Errorf(result.Timeout,
			"The editor did not answer the edit of %s within %v; nothing is known to be applied. Read the lines again before retrying (if the editor applies it late, the lines count as yours).", rel, limit)
	}
	if err != nil || !applied {
		e.WS.CancelExpect(d.Key)
		if err != nil {
			return workspace.Doc{}, nil, result.Wrap(result.VersionConflict, err,
				fmt.Sprintf("The editor did not apply the edit to %s (%v); nothing changed. Read the lines again and retry.", rel, err))
		}
		if reason == "" {
			reason = "no reason given"
		}
		return workspace.Doc{}, nil, result.Errorf(result.VersionConflict,
			"The editor refused the edit to %s (%s): the buffer probably changed since version %d. Nothing was applied; read the lines again and retry.", rel, reason, d.Version)
	}
	settle := min(editSettle, time.Until(deadline))
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), max(settle, 0))
	defer cancel()
	after, err := e.WS.WaitVersion(wctx, d.Key, d.Version)
	if errors.Is(err, context.DeadlineExceeded) {
		return after, []string{fmt.Sprintf("The editor said it applied the edit to %s but has not reported the new text; read the lines before the next edit.", rel)}, nil
	}
	if err != nil {
		return workspace.Doc{}, nil, err
	}
	return after, nil, nil
}

// lockWait bounds the wait for another process's write of the same file.
const lockWait = 10 * time.Second

// commitDisk writes next to disk. From the check of the file's bytes to the
// rename it holds the file's cross-process lock (pathlock), so no other
// sightline process (CLI, server) writes in between: a write answered
// applied is on disk, and one made against bytes that changed meanwhile is
// refused (file_changed). Every file operation goes through the workspace's
// confined root (confine): nothing outside the workspace is read or written,
// whatever links are swapped meanwhile. A vanished file is not recreated.
func (e *Env) commitDisk(ctx context.Context, session string, d workspace.Doc, next *textdoc.Snapshot, lcs []textdoc.LineChange) (workspace.Doc, error) {
	rel := e.WS.Rel(d.Key)
	if d.Path == "" {
		return workspace.Doc{}, result.Errorf(result.NotFound, "%s is not a file and no editor holds it.", rel)
	}
	root, t, unlock, err := e.lockTarget(ctx, d.Key)
	if err != nil {
		return workspace.Doc{}, err
	}
	defer unlock()
	// The answer's new file hash is computed from the snapshot on another
	// goroutine while the same (immutable) snapshot is written: on a second
	// core it costs no wall time. The file is checked against the snapshot
	// meanwhile too (Replace).
	hashed := make(chan string, 1)
	go func() { hashed <- workspace.Doc{Snap: next}.FileHash() }()
	fi, err := root.Replace(t, func(w io.Writer) error { _, err := next.WriteTo(w); return err }, func(r io.Reader) error {
		same, err := sameReader(r, d.Snap)
		if err != nil {
			return result.Wrap(result.IOError, err, fmt.Sprintf("%s cannot be read: %v; nothing was written.", rel, err))
		}
		if !same {
			return confine.ErrChanged
		}
		return nil
	})
	h := <-hashed
	switch {
	case errors.Is(err, confine.ErrChanged) && d.Open:
		return workspace.Doc{}, result.Errorf(result.FileChanged, "%s has unsaved changes in the editor; sightline never writes the disk under an unsaved buffer. Save it, or let the editor apply the edit.", rel)
	case errors.Is(err, confine.ErrChanged):
		return workspace.Doc{}, result.Errorf(result.FileChanged, "%s changed on disk while the edit was being prepared; nothing was written. Read it again and retry.", rel)
	case result.KindOf(err) == result.NotFound:
		return workspace.Doc{}, result.Wrap(result.NotFound, err, fmt.Sprintf("%s no longer exists; it was not recreated.", rel))
	case err != nil:
		return workspace.Doc{}, err
	}
	after := e.WS.CommitDisk(d.Key, d, next, lcs, session, fi)
	e.trees.changed(d.Path, false)
	after.KnowFileHash(h)
	return after, nil
}

// lockTarget resolves a document's file for writing (through links inside
// the workspace; the link itself is kept) and takes its cross-process lock,
// keyed by the real path, so every spelling of one file shares one lock.
func (e *Env) lockTarget(ctx context.Context, k workspace.Key) (*confine.Root, confine.Target, func(), error) {
	root, rel, err := e.WS.Locate(k)
	if err != nil {
		return nil, confine.Target{}, nil, err
	}
	t, err := root.Resolve(rel, confine.Write)
	if err != nil {
		return nil, t, nil, err
	}
	t.Name = e.WS.Rel(k)
	unlock, err := e.paths.Lock(ctx, t.Real, lockWait)
	if err != nil {
		if errors.Is(err, pathlock.ErrTimeout) {
			return nil, t, nil, result.Wrap(result.Timeout, err, fmt.Sprintf("Another sightline process has been writing %s for %v; nothing was written. Retry in a moment (lock file %s).", t.Name, lockWait, e.paths.File(t.Real)))
		}
		if ctx.Err() != nil {
			return nil, t, nil, err
		}
		return nil, t, nil, result.Wrap(result.IOError, err, fmt.Sprintf("%s cannot be locked for writing: %v; nothing was written.", t.Name, err))
	}
	return root, t, unlock, nil
}

// sameReader reports whether r yields exactly the snapshot's bytes: the
// snapshot is streamed into a writer that reads as much of r and compares.
func sameReader(r io.Reader, s *textdoc.Snapshot) (bool, error) {
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
