// Package workspace holds the documents sightline knows: open buffers
// (didOpen/didChange) and files on disk, each as an immutable textdoc snapshot
// with a revision that grows with every content change. It queues every
// change as line-level changes, numbered in order (ChangesSince), for its
// follower to shift the ledger's ranges with; it calls no one back.
package workspace

import (
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/sightline-lsp/sightline/charset"
	"github.com/sightline-lsp/sightline/confine"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/textdoc"
)

// DefaultMaxFileSize bounds what is loaded from disk: larger files are refused
// as too_large rather than read into memory.
const DefaultMaxFileSize = 64 << 20

// Doc is a consistent view of one document at one revision. It is a value:
// later changes never alter it.
type Doc struct {
	Key  Key
	URI  string // as the client spelled it (what goes back in notifications)
	Path string // file system path, "" for non-file schemes
	// Rel names the document in answers: relative to the workspace root
	// it lies in, else absolute (Workspace.Rel, when the document was
	// made), so features name it without asking the workspace again.
	Rel     string
	Open    bool   // an editor buffer (true) or the disk (false)
	Version int32  // the client's version when Open
	Lang    string // LSP languageId, when known
	Rev     int64  // sightline's revision, unique across documents and restarts
	Snap    *textdoc.Snapshot
	// Desync, when not "", says why this open buffer may differ from the
	// editor's: a didChange could not be applied exactly (bad positions, a
	// version that is not an int32), so it was not applied at all. Writes
	// are refused until the editor sends the whole text again (didOpen, or
	// a full-text change).
	Desync string
	// Links is the hard link count of the file this text was read from, by
	// the descriptor it was read through (Get); for an editor buffer, of the
	// file under its name when Get returned it (0: none yet). A file with
	// several links is not known by its name alone.
	Links uint64
	// Real is the file the text was read from, relative to its root with
	// every link resolved, as the read resolved it (Get); "" for an editor
	// buffer. Admission judges it: a folder swapped for a link after the
	// name was judged cannot lead the read to a file the name was not.
	Real string
	// Charset is how the file stores the text: the zero value is UTF-8 (the
	// file's bytes are the text's); another encoding was detected when the
	// file was read (Get), and every write encodes the text back in it.
	Charset charset.Charset
	hash    *lazyHash
}

// FileBytes is s (a text of this document) as the file's bytes: in the
// document's encoding. Every write of the document's file, and every
// comparison of the file with a text, goes through it.
func (d Doc) FileBytes(s *textdoc.Snapshot) io.WriterTo { return d.Charset.Bytes(s) }

// Foreign refuses a call's own text for the document (what names it: "The
// patch") unless it is UTF-8: sightline shows every file as UTF-8 text and
// encodes what it writes in the file's encoding, so text made of a legacy
// file's raw bytes matches nothing and would write bytes its encoding does
// not read back (into a UTF-8 file, bytes that make it binary). In a file
// whose encoding has no U+FFFD, that character stands for such bytes as
// well: a tool (or a JSON message on the way) replaced them.
func (d Doc) Foreign(what string, text []string) error {
	if len(text) == 0 {
		return nil
	}
	lacksFFFD := false
	if !d.Charset.IsUTF8() {
		_, _, lacksFFFD = d.Charset.Unrepresentable("\uFFFD")
	}
	foreign := func(s string) bool {
		return !utf8.ValidString(s) || lacksFFFD && strings.ContainsRune(s, utf8.RuneError)
	}
	for _, t := range text {
		if !foreign(t) {
			continue
		}
		for line := range strings.SplitSeq(t, "\n") {
			if !foreign(line) {
				continue
			}
			why := "holds U+FFFD (\uFFFD), which stands in for bytes that were not UTF-8"
			if !utf8.ValidString(line) {
				why = "holds bytes that are not UTF-8"
				if s, ok := d.Charset.Decode([]byte(line)); ok && !d.Charset.IsUTF8() {
					why += fmt.Sprintf(" (in %s, %q)", d.Charset.Name(), s)
				}
			}
			if d.Charset.IsUTF8() {
				return result.Errorf(result.InvalidEdit, "%s is not UTF-8: its line %q %s. sightline takes text in UTF-8 only, and %s is UTF-8: send the text in UTF-8. Nothing was written.",
					what, line, why, d.Rel)
			}
			return result.Errorf(result.InvalidEdit,
				"%s is not UTF-8: its line %q %s. %s is in %s: sightline shows it as UTF-8 text and writes it back in %s, so send the text in UTF-8, as sightline shows it, not the file's raw bytes. Nothing was written.",
				what, line, why, d.Rel, d.Charset.Name(), d.Charset.Name())
		}
	}
	return nil
}

// Encodable checks that the lines a plan writes can be written in the
// document's encoding, before anything is: the first character that
// cannot is refused as unrepresentable, naming it and its line (1-based,
// in the new text).
func (d Doc) Encodable(p hashline.Plan, rel string) error {
	if d.Charset.IsUTF8() {
		return nil
	}
	shift := 0
	for _, sp := range p.Splices {
		for j, l := range sp.New {
			if r, _, bad := d.Charset.Unrepresentable(l.Content); bad {
				return result.Errorf(result.Unrepresentable,
					"Line %d of %s would hold %q (U+%04X), which the file's encoding %s cannot represent; nothing was written. Write it with characters %s has (or an escape the file's language understands).",
					sp.Start+shift+j+1, rel, r, r, d.Charset.Name(), d.Charset.Name())
			}
		}
		shift += len(sp.New) - sp.Old
	}
	return nil
}

// FileHash is "sha256:" + hex SHA-256 of the document's exact bytes; ""
// for no document (a load that failed).
func (d Doc) FileHash() string {
	if d.Snap == nil {
		return ""
	}
	if d.hash == nil {
		return hashText(d.Charset, d.Snap)
	}
	return d.hash.get(d.Charset, d.Snap)
}

type lazyHash struct {
	mu   sync.Mutex
	done bool
	v    string
	// pending, when not nil, is closed once a hash started ahead has set v.
	pending chan struct{}
}

func (h *lazyHash) get(cs charset.Charset, s *textdoc.Snapshot) string {
	h.mu.Lock()
	p := h.pending
	h.mu.Unlock()
	if p != nil {
		<-p
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.done {
		h.v, h.done = hashText(cs, s), true
	}
	return h.v
}

// ahead starts computing the hash with fn on another goroutine.
func (h *lazyHash) ahead(fn func() string) {
	p := make(chan struct{})
	h.pending = p
	go func() {
		v := fn()
		h.mu.Lock()
		if !h.done {
			h.v, h.done = v, true
		}
		h.mu.Unlock()
		close(p)
	}()
}

// KnowFileHash records the document's file hash when its writer computed it
// from the exact bytes it wrote (no second pass over the text).
func (d Doc) KnowFileHash(h string) {
	if d.hash == nil {
		return
	}
	d.hash.mu.Lock()
	defer d.hash.mu.Unlock()
	if !d.hash.done {
		d.hash.v, d.hash.done = h, true
	}
}

// cached returns the hash if it was computed already, else "".
func (h *lazyHash) cached() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.v
}

// FileHashIfKnown returns the file hash when it was already computed, else
// "" (for records that must not pay for hashing a large document).
func (d Doc) FileHashIfKnown() string {
	if d.hash == nil {
		return ""
	}
	return d.hash.cached()
}

// hashText streams a text's file bytes (in cs: Doc.FileBytes) through
// SHA-256, so a large document is hashed without materialising its whole
// text. An editor buffer may hold a character its file's encoding lacks
// (the user typed it): such a text has no file bytes yet and is hashed as
// its UTF-8 text, never as the part before that character.
func hashText(cs charset.Charset, s *textdoc.Snapshot) string {
	h := sha256.New()
	if _, err := cs.Bytes(s).WriteTo(h); err != nil { // a hash.Hash never fails a write
		h.Reset()
		s.WriteTo(h)
	}
	return hashline.FileHashOf(h.Sum(nil))
}

// ChangeEvent reports that a document's content moved from one revision to
// the next. Changes are 0-based line changes in order (each relative to the
// text after the previous one); Replaced means the old text is unknown and the
// whole document must be treated as new.
type ChangeEvent struct {
	Key      Key
	FromRev  int64
	ToRev    int64
	Changes  []textdoc.LineChange
	Replaced bool
	NewTotal int
	Author   string // session that made the change, "" for the user or the disk
	Doc      Doc    // the document after the change
	// First says the document was seen for the first time (loaded or
	// opened): there was no earlier text, and persisted reads of it may be
	// restored onto this one.
	First bool
	// Seq numbers the workspace's changes in the order they happened, from 1.
	Seq int64
}

// Options configure a Workspace.
type Options struct {
	MaxFileSize int64
	// HugePages: the process lives for one call, so the large buffers a
	// load fills are asked in huge pages (package hugepage).
	HugePages bool
}

// Workspace is safe for concurrent use.
type Workspace struct {
	// roots is swapped whole by SetRoots and never modified in place, so a
	// call reads it once and sees one consistent set without taking mu.
	roots atomic.Pointer[roots]
	// rootsMu serialises the writers of roots (SetRoots, Close), which
	// hand handles from one set to the next.
	rootsMu sync.Mutex
	gate    atomic.Pointer[confine.Gate]
	// encodings is the encodings setting (SetEncodings), swapped whole.
	encodings atomic.Pointer[[]charset.Charset]
	opts      Options

	loads loading // the disk loads under way, with a lock of their own

	mu      sync.Mutex
	docs    map[Key]*entry
	expects map[Key]expectation
	moved   chan struct{} // closed and replaced on every change: a broadcast
	// changes are the content changes and first sights not yet
	// acknowledged, in the order they happened (seq numbers the last): the
	// workspace calls no one back; whoever follows its documents (the
	// ledger) applies them (ChangesSince, Acknowledge).
	changes []ChangeEvent
	seq     int64
	rev     atomic.Int64
}

// maxPendingChanges bounds the changes kept for a follower that never
// acknowledges them (a workspace used only to resolve paths loads nothing;
// one that loads documents without a follower would otherwise grow without
// end, each change holding its document's text). Past it the oldest are dropped; a follower that falls that far
// behind sees the next change of a document from a revision it does not
// know and starts that document over, the safe answer.
const maxPendingChanges = 1 << 12

// ChangesSince returns the changes numbered after seq that are still kept,
// in the order they happened. Several callers may ask concurrently; the
// follower applies each change once, in order, by its number.
func (w *Workspace) ChangesSince(seq int64) []ChangeEvent {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.changes[w.after(seq):])
}

// Acknowledge drops the changes numbered up to seq: they were applied.
func (w *Workspace) Acknowledge(seq int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.changes = slices.Delete(w.changes, 0, w.after(seq))
}

// after is the index of the first kept change numbered after seq; call
// with w.mu held.
func (w *Workspace) after(seq int64) int {
	i, _ := slices.BinarySearchFunc(w.changes, seq+1, func(ev ChangeEvent, s int64) int { return cmp.Compare(ev.Seq, s) })
	return i
}

// loading serialises the disk loads of each document: concurrent Gets of a
// file that must be read wait for the one reading it, then find its result,
// instead of each reading it (a storm of reads of a large file would
// otherwise hold one copy per request). Its lock is its own: a Get waiting
// for a load holds no lock of the documents.
type loading struct {
	mu sync.Mutex
	m  map[Key]chan struct{}
}

// begin waits until no load of k is under way and starts one; the caller
// calls end when its load is done.
func (l *loading) begin(k Key) (end func()) {
	l.mu.Lock()
	for {
		wait, busy := l.m[k]
		if !busy {
			break
		}
		l.mu.Unlock()
		<-wait
		l.mu.Lock()
	}
	if l.m == nil {
		l.m = make(map[Key]chan struct{})
	}
	done := make(chan struct{})
	l.m[k] = done
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		delete(l.m, k)
		l.mu.Unlock()
		close(done)
	}
}

// expectation is an edit sightline asked the editor to apply: the didChange
// that brings exactly this text after this version is the session's own.
type expectation struct {
	base    int32
	want    *textdoc.Snapshot
	regions [][2]int // 0-based [from, to) line ranges of want that the edit wrote
	author  string
	// hash is want's file hash, computed while the editor applies the edit:
	// the document the editor reports, when it matches, has the same bytes.
	hash *lazyHash
}

// matches reports whether snap is the expected result: same size and line
// count, and the written regions identical. The rest cannot differ: the
// editor applied the edit to the expected base version in one step.
func (x expectation) matches(snap *textdoc.Snapshot) bool {
	if snap.Len() != x.want.Len() || snap.LineCount() != x.want.LineCount() {
		return false
	}
	for _, r := range x.regions {
		for i := r[0]; i < r[1] && i < snap.LineCount(); i++ {
			if snap.Line(i) != x.want.Line(i) {
				return false
			}
		}
	}
	return true
}

type entry struct {
	doc  Doc
	seen stamp // the file the snapshot came from (closed documents)
	// past holds recent earlier revisions (snapshots share structure, so
	// each costs only what changed): ref resolution asks what a line held
	// when the agent was shown it.
	past []revSnap
	// pinned holds the revisions an agent was shown (see Pin), kept beyond
	// the recent ones: a ref is checked against the text its view held.
	pinned []revSnap
}

type revSnap struct {
	rev     int64
	snap    *textdoc.Snapshot
	version int32 // the editor's version, when the revision was an open buffer
	open    bool
}

// maxPast bounds the recent revisions kept per document, maxPinned the
// revisions kept because an agent was shown them. Refs are checked against
// pinned revisions only; the recent ones cover the moment between showing
// a revision and pinning it (a change can land in between), so a few do:
// a user typing or an editor syncing full text makes hundreds, and each
// costs what it changed.
const (
	maxPast   = 16
	maxPinned = 512
)

// minKeptBytes is the memory the kept revisions of one document may always
// use; a larger document may keep twice its size. Counts alone do not bound
// memory: a revision that rewrote the whole document costs the whole text.
const minKeptBytes = 8 << 20

func keptBudget(cur *textdoc.Snapshot) int { return max(minKeptBytes, 2*cur.Len()) }

func keptBytes(list []revSnap, cur *textdoc.Snapshot) int {
	n := 0
	for i := range list {
		n += keptCost(list, i, cur)
	}
	return n
}

// keptCost is what keeping list[i] costs: the memory a revision holds that
// the next one does not is what the next one copied, its Owned. (A
// revision's own Owned is what it copied from the one before: for the first
// text of a document that is all of it, which the later revisions share.)
func keptCost(list []revSnap, i int, cur *textdoc.Snapshot) int {
	if i+1 < len(list) {
		return list[i+1].snap.Owned()
	}
	return cur.Owned()
}

// keep installs d as the entry's document, remembering the previous one.
func (e *entry) keep(d Doc) {
	if e.doc.Snap != nil && e.doc.Rev != d.Rev {
		e.doc.Snap.ReleaseText()
		e.past = append(e.past, revSnap{e.doc.Rev, e.doc.Snap, e.doc.Version, e.doc.Open})
		if len(e.past) > maxPast {
			e.past = append(e.past[:0], e.past[len(e.past)-maxPast:]...)
		}
	}
	e.doc = d
	e.trim()
}

// trim drops the oldest kept revisions, recent ones first, until they fit
// the byte budget (a revision in both lists is counted twice: an estimate
// that errs on the side of memory).
func (e *entry) trim() {
	budget := keptBudget(e.doc.Snap)
	cur := e.doc.Snap
	past, pinned := keptBytes(e.past, cur), keptBytes(e.pinned, cur)
	drop := 0
	for drop < len(e.past) && past+pinned > budget {
		past -= keptCost(e.past, drop, cur)
		drop++
	}
	if drop > 0 {
		e.past = append(e.past[:0], e.past[drop:]...)
	}
	drop = 0
	for drop < len(e.pinned)-1 && pinned > budget {
		pinned -= keptCost(e.pinned, drop, cur)
		drop++
	}
	if drop > 0 {
		e.pinned = append(e.pinned[:0], e.pinned[drop:]...)
	}
}

// Pin keeps a document's revision rev (it must be current or recent) for as
// long as maxPinned later pins allow: an agent was shown it, and its refs
// are checked against it.
func (w *Workspace) Pin(k Key, rev int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.docs[k]
	if !ok {
		return
	}
	if n := len(e.pinned); n > 0 && e.pinned[n-1].rev == rev {
		return
	}
	rs, found := e.find(rev)
	if !found {
		return
	}
	e.pinned = append(e.pinned, rs)
	if len(e.pinned) > maxPinned {
		e.pinned = append(e.pinned[:0], e.pinned[len(e.pinned)-maxPinned:]...)
	}
	e.trim()
}

// find returns a kept revision of the entry.
func (e *entry) find(rev int64) (revSnap, bool) {
	if e.doc.Rev == rev {
		return revSnap{e.doc.Rev, e.doc.Snap, e.doc.Version, e.doc.Open}, true
	}
	for _, list := range [][]revSnap{e.past, e.pinned} {
		for i := len(list) - 1; i >= 0; i-- {
			if list[i].rev == rev {
				return list[i], true
			}
		}
	}
	return revSnap{}, false
}

// VersionAt returns the editor's version of a document at a revision, if
// that revision was an open buffer and is still remembered.
func (w *Workspace) VersionAt(k Key, rev int64) (int32, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.docs[k]
	if !ok {
		return 0, false
	}
	rs, found := e.find(rev)
	return rs.version, found && rs.open
}

// SnapshotAt returns the text of a document at an earlier (or the current)
// revision, if it is still kept.
func (w *Workspace) SnapshotAt(k Key, rev int64) (*textdoc.Snapshot, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.docs[k]
	if !ok {
		return nil, false
	}
	rs, found := e.find(rev)
	return rs.snap, found
}

// New makes a workspace over the given roots (absolute paths; the first is
// the primary root where relative paths resolve).
func New(roots []string, opts Options) *Workspace {
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	opts.MaxFileSize = min(opts.MaxFileSize, textdoc.MaxLen) // a document's bound
	w := &Workspace{opts: opts, docs: make(map[Key]*entry), expects: make(map[Key]expectation), moved: make(chan struct{})}
	w.roots.Store(w.newRoots(roots, nil))
	// Revisions start at the wall clock in microseconds so a revision from an
	// earlier process (persisted in ledger records) never equals a new one.
	w.rev.Store(time.Now().UnixMicro())
	return w
}

// MaxFileSize is the largest file loaded from disk.
func (w *Workspace) MaxFileSize() int64 { return w.opts.MaxFileSize }

func (w *Workspace) nextRev() int64 { return w.rev.Add(1) }

// NextRev hands out a revision for a document the workspace does not hold
// (a streamed CLI read), from the same sequence as its own.
func (w *Workspace) NextRev() int64 { return w.nextRev() }

// Open records an editor buffer (didOpen).
func (w *Workspace) Open(uri, lang string, version int32, text string) (Doc, error) {
	k, err := Normalize(uri)
	if err != nil {
		return Doc{}, err
	}
	if int64(len(text)) > textdoc.MaxLen { // textdoc.New would panic
		return Doc{}, result.Errorf(result.TooLarge, "Document %s is %d bytes, over the %d-byte limit.", w.Rel(k), len(text), textdoc.MaxLen)
	}
	snap := textdoc.NewOwned(text) // an editor buffer lives long and changes
	// The editor reports no encoding (LSP has none): the buffer is the
	// file's text, and the file keeps the encoding it was read in, or,
	// not read yet, the one its .editorconfig declares, else the one its
	// bytes show as a load would read them.
	var decl charset.Charset
	if root, rel, err := w.Locate(k); err == nil {
		decl, _, _ = Declared(root, filepath.ToSlash(rel))
		if _, known := w.Known(k); !known && decl.IsUTF8() {
			decl = w.storedIn(root, rel)
		}
	}
	w.mu.Lock()
	e, known := w.docs[k]
	var ev *ChangeEvent
	d := Doc{Key: k, URI: uri, Rel: w.Rel(k), Open: true, Version: version, Lang: lang, Snap: snap, hash: &lazyHash{}}
	d.Path, _ = k.Path()
	d.Charset = decl
	if known {
		d.Charset = e.doc.Charset
	}
	if known && e.doc.Snap.Text() == text {
		d.Rev = e.doc.Rev // same content: reads of it still count
	} else {
		d.Rev = w.nextRev()
		if known {
			ev = diffEvent(e.doc, d)
		}
	}
	if known {
		e.keep(d)
		e.seen = stamp{}
	} else {
		w.docs[k] = &entry{doc: d}
	}
	if !known {
		w.firstSight(d)
	}
	w.emit(ev)
	w.broadcast()
	w.mu.Unlock()
	return d, nil
}

// Change applies a didChange to an open buffer. author is the session whose
// edit this is ("" for the user).
func (w *Workspace) Change(uri string, version int32, changes []textdoc.Change, enc textdoc.Encoding, author string) (Doc, error) {
	k, err := Normalize(uri)
	if err != nil {
		return Doc{}, err
	}
	w.mu.Lock()
	e, ok := w.docs[k]
	if !ok || !e.doc.Open {
		w.mu.Unlock()
		return Doc{}, fmt.Errorf("didChange for %s, which is not open", uri)
	}
	old := e.doc
	if old.Desync != "" {
		// The base is unknown: only a full text brings the buffer back.
		full := -1
		for i, c := range changes {
			if c.Range == nil {
				full = i
			}
		}
		if full < 0 {
			e.doc.Version = version
			w.mu.Unlock()
			return e.doc, nil
		}
		changes = changes[full:]
	}
	snap, lcs, err := old.Snap.Apply(changes, enc)
	if err != nil {
		w.desyncLocked(e, fmt.Sprintf("a change to version %d could not be applied: %v", version, err))
		w.mu.Unlock()
		return Doc{}, fmt.Errorf("apply didChange to %s (version %d): %w", uri, version, err)
	}
	d := old
	d.Desync = ""
	d.Version = version
	d.Snap = snap
	d.hash = &lazyHash{}
	if x, ok := w.expects[k]; ok && author == "" {
		// The editor reports the edit sightline asked for like any other
		// change; it is the session's own only if it brings exactly the
		// expected text after the expected version.
		if old.Version == x.base && x.matches(snap) {
			author = x.author
			d.hash = x.hash
		}
		delete(w.expects, k)
	}
	var ev *ChangeEvent
	if len(lcs) > 0 {
		d.Rev = w.nextRev()
		ev = &ChangeEvent{Key: k, FromRev: old.Rev, ToRev: d.Rev, Changes: lcs, NewTotal: snap.LineCount(), Author: author, Doc: d}
	} else if snap.Len() != old.Snap.Len() || snap.Text() != old.Snap.Text() {
		// Only a terminator at the very end changed: same lines, new bytes.
		d.Rev = w.nextRev()
		ev = &ChangeEvent{Key: k, FromRev: old.Rev, ToRev: d.Rev, NewTotal: snap.LineCount(), Author: author, Doc: d}
	}
	e.keep(d)
	w.emit(ev)
	w.broadcast()
	w.mu.Unlock()
	return d, nil
}

// Desync marks an open document as out of sync with the editor (a change
// that could not be applied exactly, and so was not applied): reads warn,
// writes are refused until the editor sends the whole text again. It
// reports whether the document was in sync before (the user is told once).
func (w *Workspace) Desync(uri, reason string) (Doc, bool) {
	k, err := Normalize(uri)
	if err != nil {
		return Doc{}, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.docs[k]
	if !ok || !e.doc.Open {
		return Doc{}, false
	}
	first := e.doc.Desync == ""
	w.desyncLocked(e, reason)
	return e.doc, first
}

func (w *Workspace) desyncLocked(e *entry, reason string) {
	if e.doc.Desync == "" {
		e.doc.Desync = reason
	}
	// An edit waiting for the editor's echo will not see it: the text it
	// would compare against is not the editor's.
	delete(w.expects, e.doc.Key)
	w.broadcast()
}

// broadcast wakes WaitVersion callers; call with w.mu held.
func (w *Workspace) broadcast() {
	close(w.moved)
	w.moved = make(chan struct{})
}

// ExpectEdit announces that the editor was asked to turn version base of an
// open document into want (regions: the 0-based [from, to) line ranges of
// want that the edit wrote) on behalf of author, so the didChange that does
// so is attributed to author (its lines become authored, not stale).
func (w *Workspace) ExpectEdit(k Key, base int32, want *textdoc.Snapshot, regions [][2]int, author string) {
	h := &lazyHash{}
	w.mu.Lock()
	var cs charset.Charset
	if e, ok := w.docs[k]; ok {
		cs = e.doc.Charset
	}
	if want.Len() >= hashAheadMin {
		h.ahead(func() string { return hashText(cs, want) })
	}
	w.expects[k] = expectation{base: base, want: want, regions: regions, author: author, hash: h}
	w.mu.Unlock()
}

// CancelExpect withdraws an expectation (the editor refused the edit).
func (w *Workspace) CancelExpect(k Key) {
	w.mu.Lock()
	delete(w.expects, k)
	w.mu.Unlock()
}

// WaitVersion waits until an open document's version is past base (the
// editor reported the change) or ctx ends, and returns the document.
func (w *Workspace) WaitVersion(ctx context.Context, k Key, base int32) (Doc, error) {
	for {
		w.mu.Lock()
		e, ok := w.docs[k]
		var d Doc
		if ok {
			d = e.doc
		}
		moved := w.moved
		w.mu.Unlock()
		if !ok || !d.Open {
			return Doc{}, result.Errorf(result.NotFound, "%s was closed in the editor.", w.Rel(k))
		}
		if d.Version != base {
			return d, nil
		}
		select {
		case <-moved:
		case <-ctx.Done():
			return d, ctx.Err()
		}
	}
}

// CommitDisk records that sightline wrote a closed document to disk: next
// (from's text with lcs applied, as Snapshot.Apply returned them) is the new
// text, attributed to author, and the file's new stat is remembered so the
// next Get does not read it back as someone else's change. The snapshot is
// the one the write was made from: nothing is applied twice.
func (w *Workspace) CommitDisk(k Key, from Doc, next *textdoc.Snapshot, lcs []textdoc.LineChange, author string, fi os.FileInfo) Doc {
	w.mu.Lock()
	defer w.mu.Unlock()
	d := from
	d.Open = false
	d.Snap = next
	d.hash = &lazyHash{}
	d.Rev = w.nextRev()
	cur, known := w.docs[k]
	if known && cur.doc.Rev != from.Rev {
		// Someone changed the document between the edit's read and now: its
		// ledger can't be shifted from the edit's base; start over.
		ev := &ChangeEvent{Key: k, FromRev: cur.doc.Rev, ToRev: d.Rev, Replaced: true, NewTotal: next.LineCount(), Doc: d}
		cur.keep(d)
		cur.seen = stampOf(fi)
		w.emit(ev)
		w.broadcast()
		return d
	}
	if known {
		cur.keep(d)
		cur.seen = stampOf(fi)
	} else {
		w.docs[k] = &entry{doc: d, seen: stampOf(fi)}
	}
	w.emit(&ChangeEvent{Key: k, FromRev: from.Rev, ToRev: d.Rev, Changes: lcs, NewTotal: next.LineCount(), Author: author, Doc: d})
	w.broadcast()
	return d
}

// CloseBuffer forgets an editor buffer (didClose): the document is the disk again,
// loaded lazily on the next Get.
func (w *Workspace) CloseBuffer(uri string) {
	k, err := Normalize(uri)
	if err != nil {
		return
	}
	w.mu.Lock()
	if e, ok := w.docs[k]; ok && e.doc.Open {
		e.doc.Open = false
		e.doc.Desync = "" // the disk is the text again
		e.seen = stamp{}  // force a disk check against the buffer's text
		if !k.IsFile() {
			delete(w.docs, k)
		}
	}
	w.mu.Unlock()
}

// Forget drops a document (deleted on disk).
func (w *Workspace) Forget(k Key) {
	w.mu.Lock()
	delete(w.docs, k)
	w.mu.Unlock()
}

// Lookup returns the document for a client URI.
func (w *Workspace) Lookup(uri string) (Doc, error) {
	k, err := Normalize(uri)
	if err != nil {
		if result.KindOf(err) != "" {
			return Doc{}, err
		}
		return Doc{}, result.Wrap(result.InvalidParams, err, err.Error())
	}
	return w.Get(k)
}

// OpenDocs returns the open buffers.
func (w *Workspace) OpenDocs() []Doc {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []Doc
	for _, e := range w.docs {
		if e.doc.Open {
			out = append(out, e.doc)
		}
	}
	return out
}

// Known returns the current view of a document if sightline holds it, without
// touching the disk.
func (w *Workspace) Known(k Key) (Doc, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e, ok := w.docs[k]; ok {
		return e.doc, true
	}
	return Doc{}, false
}

// Get returns the current document: the buffer when open, else the disk
// (see GetAt).
func (w *Workspace) Get(k Key) (Doc, error) { return w.GetAt(w.roots.Load().place(k)) }

// GetAt is Get for a placed document (Place): the buffer when open, else
// the file read through the place the admission step judged. A file that
// changed on disk since it was last seen is re-read and reported as a
// change; a vanished one is not_found.
func (w *Workspace) GetAt(pl Place) (Doc, error) {
	d, err := w.current(pl)
	if err == nil && d.Open {
		// The file under the buffer's name, as the disk has it now: the
		// buffer will be saved to it.
		d.Links = w.links(pl)
	}
	return d, err
}

// current is the document's text from the source that holds it: the
// buffer, else the disk.
func (w *Workspace) current(pl Place) (Doc, error) {
	k := pl.Key
	if d, ok := w.Known(k); ok && d.Open {
		return d, nil // a buffer: no load to wait for
	}
	defer w.loads.begin(k)()
	w.mu.Lock()
	var seen stamp
	if e, known := w.docs[k]; known {
		if e.doc.Open {
			d := e.doc
			w.mu.Unlock()
			return d, nil
		}
		seen = e.seen
	}
	w.mu.Unlock()
	return w.load(pl, seen)
}

// Created records a file sightline just created with text (fi: its stat,
// from the created file's descriptor), as Get would have read it, without
// looking its name up again: the name may lead elsewhere by now.
func (w *Workspace) Created(k Key, snap *textdoc.Snapshot, cs charset.Charset, fi os.FileInfo, real string) Doc {
	return w.install(w.roots.Load().place(k), snap.Text(), cs, snap, &lazyHash{}, fi, real)
}

// install makes text (snap), read from the file fi describes (in cs), the
// document of k (unless an editor opened it meanwhile: then the editor's
// is returned).
func (w *Workspace) install(pl Place, text string, cs charset.Charset, snap *textdoc.Snapshot, hash *lazyHash, fi os.FileInfo, real string) Doc {
	k := pl.Key
	w.mu.Lock()
	e, known := w.docs[k]
	if known && e.doc.Open { // opened while we read the disk
		d := e.doc
		w.mu.Unlock()
		return d
	}
	var ev *ChangeEvent
	var d Doc
	// Equal, not Text: a document edited since holds its text in pieces,
	// and Text would keep a whole copy of it.
	if known && e.doc.Charset.Name() == cs.Name() && e.doc.Snap.Equal(text) {
		d = e.doc
	} else {
		d = Doc{Key: k, URI: string(k), Rel: pl.Rel, Path: pl.Path, Snap: snap, Rev: w.nextRev(), hash: hash, Charset: cs}
		if known {
			d.URI = e.doc.URI
			d.Lang = e.doc.Lang
			ev = diffEvent(e.doc, d)
		}
	}
	if known {
		e.keep(d)
		e.seen = stampOf(fi)
	} else {
		w.docs[k] = &entry{doc: d, seen: stampOf(fi)}
	}
	if !known {
		w.firstSight(d)
	}
	w.emit(ev)
	w.mu.Unlock()
	if !d.Open {
		d.Links, d.Real = confine.Links(fi), real
	}
	return d
}

// emit queues a change for the follower; call with w.mu held.
func (w *Workspace) emit(ev *ChangeEvent) {
	if ev == nil {
		return
	}
	if len(w.changes) >= maxPendingChanges {
		w.changes = slices.Delete(w.changes, 0, len(w.changes)-maxPendingChanges+1)
	}
	w.seq++
	ev.Seq = w.seq
	w.changes = append(w.changes, *ev)
}

// firstSight queues that d was seen for the first time; call with w.mu held.
func (w *Workspace) firstSight(d Doc) {
	w.emit(&ChangeEvent{Key: d.Key, ToRev: d.Rev, NewTotal: d.Snap.LineCount(), Doc: d, First: true})
}

// diffEvent describes the move from old to new content when only the two
// texts are known (a file changed on disk, a buffer opened with other text).
// It trims identical leading and trailing lines and reports the rest as one
// change: conservative (unchanged lines in the middle count as changed), never
// optimistic.
func diffEvent(old, cur Doc) *ChangeEvent {
	a, b := old.Snap, cur.Snap
	na, nb := a.LineCount(), b.LineCount()
	pre := 0
	for pre < na && pre < nb && a.Line(pre) == b.Line(pre) {
		pre++
	}
	suf := 0
	for suf < na-pre && suf < nb-pre && a.Line(na-1-suf) == b.Line(nb-1-suf) {
		suf++
	}
	ev := &ChangeEvent{Key: cur.Key, FromRev: old.Rev, ToRev: cur.Rev, NewTotal: nb, Doc: cur}
	if oldN, newN := na-pre-suf, nb-pre-suf; oldN > 0 || newN > 0 {
		ev.Changes = []textdoc.LineChange{{Start: pre, Old: oldN, New: newN}}
	}
	return ev
}
