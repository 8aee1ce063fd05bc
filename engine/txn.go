package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// A write of one document (hashline edits, write modes, rollback, an edit
// block checked in a dry run) is planned here: resolve and admit the
// document, lock it, check the preconditions, let the feature plan, guard,
// diff, then a dry run or the write transaction every write goes through
// (writeLocked, in filetxn.go). The plan's next snapshot is the only new
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

// transact runs one write. A refusal comes back as an error with a result
// kind; out holds what was known when it stopped (the document, the
// verdict), for the answer.
func (e *Env) transact(ctx context.Context, req writeReq) (out writeOut, err error) {
	session := req.caller.SessionOr()
	// The admission step, before anything is shown: refused, or sensitive
	// and not approved, the write goes no further.
	d, path, err := e.admitDoc(ctx, req.caller, req.uri, true)
	out.path = path
	if err != nil {
		return out, err
	}
	unlock := e.locks.lock(d.Key)
	defer unlock()
	// Re-read under the lock: a write that finished meanwhile moved the text.
	if d, err = e.get(d.Key); err != nil {
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
	plan, targets, err := req.plan(d)
	if err != nil {
		return out, err
	}
	if err := d.Encodable(plan, d.Rel); err != nil {
		return out, err
	}
	out.plan = plan
	if plan.Identity(base) {
		out.noop, out.next = true, base
		return out, nil
	}
	next, lcs, err := plan.Apply(base)
	if err != nil {
		return out, fmt.Errorf("plan of %s does not apply: %w", d.Rel, err)
	}
	out.next = next
	if req.scratch == nil {
		out.verdict = e.guard(session, req.caller.Agent, d, targets)
		out.warnings = append(out.warnings, out.verdict.Warnings...)
		if out.verdict.Err != nil {
			return out, out.verdict.Err
		}
	}
	out.diff = hashline.UnifiedDiff(d.Rel, base, plan.Splices, 3)
	if req.dryRun {
		return out, nil
	}
	ws := []fileWrite{{op: opModify, key: d.Key, rel: d.Rel, before: d, fresh: true, next: next, plan: &plan, changes: lcs}}
	warn, err := e.writeLocked(ctx, req.caller, ws)
	out.warnings = append(out.warnings, warn...)
	if err != nil {
		return out, err
	}
	out.applied = true
	if out.after = ws[0].after; out.after.Snap == nil {
		out.after = d // the editor has not reported the new text yet
	}
	out.shown = sameLines(out.after.Snap, next, plan)
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
