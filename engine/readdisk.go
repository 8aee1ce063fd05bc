package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"hash"
	"io"
	"math"
	"path/filepath"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/policy"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/confine"
	"github.com/sightline-lsp/sightline/internal/hugepage"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/statedb"
	"github.com/sightline-lsp/sightline/workspace"
)

// racyAge: a file changed more recently than this could change again within
// the same timestamp tick of its file system, its stat unchanged; its hash is
// not cached (git's "racily clean" problem).
var racyAge = 2 * time.Second

// onDiskRead, when set (tests), is told of every read ReadDisk answered
// itself, and whether the stat cache had the file.
var onDiskRead func(hit bool)

// ReadDisk is Read for a process that holds no documents (the CLI). A file
// that is neither open nor loaded is not built into a document: when its stat
// matches the one its file hash and line count were saved under, it is read
// only up to the last line the read can show; otherwise it is read once,
// whole, for its hash, line count and line hashes, taking the lines shown on
// the way. The ledger is restored for this document only and records exactly
// the lines returned, as Read does. A read this path cannot answer exactly as
// Read would (cut by the budget: the notice needs the rest; an empty file; a
// line past the end; a binary, odd or too large file; no database) is Read's.
func (e *Env) ReadDisk(ctx context.Context, p ReadParams) (ReadResult, error) {
	if res, ok, err := e.readDisk(ctx, p); ok {
		res.audit(auditRow{caller: p.Caller, path: res.Path, before: res.FileHash})
		return res, err
	}
	return e.Read(ctx, p)
}

func (e *Env) readDisk(ctx context.Context, p ReadParams) (ReadResult, bool, error) {
	no := func() (ReadResult, bool, error) { return ReadResult{}, false, nil }
	if e.db == nil || p.Symbol != "" {
		return no() // a declaration is found in the whole document
	}
	budget, annotate, err := e.readOptions(p)
	if err != nil {
		return no()
	}
	k, err := workspace.Normalize(p.TextDocument.URI)
	if err != nil {
		return no()
	}
	// The admission step is Read's: a path that is anything but plainly
	// allowed takes that path, which refuses (audited) or asks.
	pl := e.WS.Place(k)
	if _, err := e.admit(ctx, p.Caller, pl, plainReadAccess); err != nil {
		return no()
	}
	if _, known := e.WS.Known(k); known {
		return no()
	}
	// Every access goes through the workspace's confined root, as Get's.
	root, rel := pl.Root, pl.In
	if root == nil {
		return no() // not a file: Read answers
	}
	t, err := root.Resolve(rel, confine.Read)
	if err != nil {
		return no()
	}
	// The scan reads UTF-8; a file .editorconfig declares in another
	// encoding is decoded by Read, even when its bytes are valid UTF-8.
	if cs, _, _ := workspace.Declared(root, filepath.ToSlash(rel)); !cs.IsUTF8() {
		return no()
	}
	// Judged again by the name this resolution reached (the one opened
	// below): a folder swapped for a link since the check by name may lead
	// to a file that needs approval, which Read asks for.
	if e.Policy().Check(filepath.ToSlash(t.Rel)).Kind != policy.Allowed {
		return no()
	}
	t.Name = pl.Rel
	f, fi, err := root.OpenRead(t)
	if err != nil {
		return no()
	}
	defer f.Close()
	// A file with several hard links is judged by Read (admitFile).
	if fi.Size() > e.WS.MaxFileSize() || confine.Links(fi) > 1 {
		return no()
	}
	st, ok := fileStat(string(k), fi)
	if !ok {
		return no()
	}
	cached, hit, err := e.db.FileStat(ctx, k)
	if err != nil {
		e.Log.Debug("file stat cache unreadable", zap.Error(err))
		hit = false
	}
	hit = hit && cached.Same(st)

	want := ledger.Range{Start: 1, End: math.MaxInt}
	if p.Range != nil {
		want = *p.Range
	}
	// A character is at most 4 bytes, so once the lines taken hold more than
	// 4×budget bytes the read is cut within them: no need to take more.
	sc := scan{full: !hit, want: want, maxBytes: 4*budget + 4, huge: e.health.ephemeral}
	if hit {
		sc.total = cached.TotalLines
	}
	if err := sc.run(f, fi.Size()); err != nil || sc.binary {
		return no()
	}
	if hit {
		st = cached
	} else {
		// The bytes hashed are the bytes of this stat only if it held
		// throughout the read.
		fi2, err := confine.Stat(f)
		if err != nil {
			return no()
		}
		if again, ok := fileStat(st.Doc, fi2); !ok || !again.Same(st) {
			return no()
		}
		st.FileHash, st.TotalLines, st.LineHashes = hashline.FileHashOf(sc.h.Sum(nil)), sc.n, sc.lineHashes
		if changed := time.Unix(0, max(st.CtimeNs, st.MtimeNs)); time.Since(changed) > racyAge {
			e.db.SaveStat(st)
		}
	}
	total := st.TotalLines
	if total == 0 || want.Start > total {
		return no()
	}
	want.End = min(want.End, total)
	size := sc.bytes
	if annotate {
		size += hashline.Overhead(want.Start, want.Start+len(sc.ends)-1)
	}
	buf, last, err := fillRead(ctx, want, budget, annotate, min(budget, size)+64, e.health.ephemeral, func(yield func(string) bool) {
		for j := range sc.ends {
			if !yield(sc.line(j)) {
				return
			}
		}
	})
	if err != nil {
		return ReadResult{}, true, err
	}
	if last < want.End {
		return no() // cut by the budget (Read names what was cut, with hints), or lines missing
	}

	session := p.SessionOr()
	doc := ledger.DocKey(k)
	rev := e.viewRev(ctx, k, st.FileHash, total, st.LineHashes)
	e.db.RestoreView(k, rev, statedb.View{FileHash: st.FileHash, TotalLines: total, LineHashes: st.LineHashes})
	got := ledger.Range{Start: want.Start, End: last}
	// The hashes of the lines shown are kept with them: no text of this
	// revision is (a process that lives on checks the refs of this read
	// against them).
	e.Ledger.RecordShown(ledger.KindRead, session, p.Agent, doc, rev, got, func(line int) uint32 {
		return hashline.LineSum(line, sc.line(line-want.Start))
	})
	res := ReadResult{
		Outcome:    Outcome{OK: true},
		URI:        string(k),
		Path:       e.WS.Rel(k),
		Content:    unsafe.String(unsafe.SliceData(buf), len(buf)),
		Range:      &got,
		TotalLines: total,
		FileHash:   st.FileHash,
	}
	res.Ledger = e.docLedger(session, workspace.Doc{Key: k, URI: string(k), Rel: e.WS.Rel(k)})
	if onDiskRead != nil {
		onDiskRead(hit)
	}
	return res, true, nil
}

// restoreFromDisk restores a session's entries of a document the workspace
// does not hold without building it: from the stat cache when the file's
// stat is the one its hash and line hashes were saved under, else by one
// scan of the file for them (saved for the next process, as a range read
// does). It reports false when it did not (no database, an empty, binary or
// odd file, one only Get may judge, or a file that changed while it was
// read), and the caller builds the document.
func (e *Env) restoreFromDisk(ctx context.Context, k workspace.Key) bool {
	if e.db == nil {
		return false
	}
	if _, known := e.WS.Known(k); known {
		return false
	}
	root, rel, err := e.WS.Locate(k)
	if err != nil {
		return false
	}
	t, err := root.Resolve(rel, confine.Read)
	if err != nil {
		return false
	}
	f, fi, err := root.OpenRead(t)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi.Size() > e.WS.MaxFileSize() || confine.Links(fi) > 1 {
		return false
	}
	st, ok := fileStat(string(k), fi)
	if !ok {
		return false
	}
	if cached, hit, err := e.db.FileStat(ctx, k); err == nil && hit && cached.Same(st) && cached.TotalLines > 0 {
		st = cached
	} else {
		sc := scan{full: true, want: ledger.Range{Start: 1, End: 0}}
		if err := sc.run(f, fi.Size()); err != nil || sc.binary || sc.n == 0 {
			return false
		}
		// The bytes hashed are the bytes of this stat only if it held
		// throughout the read.
		fi2, err := confine.Stat(f)
		if err != nil {
			return false
		}
		if again, ok := fileStat(st.Doc, fi2); !ok || !again.Same(st) {
			return false
		}
		st.FileHash, st.TotalLines, st.LineHashes = hashline.FileHashOf(sc.h.Sum(nil)), sc.n, sc.lineHashes
		if changed := time.Unix(0, max(st.CtimeNs, st.MtimeNs)); time.Since(changed) > racyAge {
			e.db.SaveStat(st)
		}
	}
	rev := e.viewRev(ctx, k, st.FileHash, st.TotalLines, st.LineHashes)
	e.db.RestoreView(k, rev, statedb.View{FileHash: st.FileHash, TotalLines: st.TotalLines, LineHashes: st.LineHashes})
	return true
}

// viewRev is the revision a text of document k read from the disk without
// building it (file hash h, total lines, its packed line hashes when the
// read computed them) is shown at, its ledger moved there. A process of
// one call sees the document for the first time: a new revision, and
// what earlier processes recorded is restored onto it by its bytes. A
// process that lives on may have had an earlier view of it: the same text
// keeps that view's revision; another one is a new revision the ledger
// reaches by the changes between their lines, made by someone else (as a
// process restoring the earlier reads from the database would move them;
// if the lines of either are not known, as a text replaced whole).
func (e *Env) viewRev(ctx context.Context, k workspace.Key, h string, total int, packed []byte) int64 {
	doc := ledger.DocKey(k)
	_, at, shaped := e.Ledger.DocInfo(doc)
	had, same, chs, ok := e.db.Since(ctx, k, h, func() []uint32 {
		if packed != nil {
			return statedb.UnpackLineHashes(packed, total)
		}
		return e.db.StoredLineHashes(ctx, h, total)
	})
	if shaped && had && same {
		return at
	}
	rev := e.WS.NextRev()
	switch {
	case !shaped || !had || ok && len(chs) == 0:
		e.Ledger.SetTotal(doc, rev, total)
	case ok:
		moveLedger(e.Ledger, doc, at, rev, chs, total)
	default:
		e.Ledger.Replace(doc, rev, total)
	}
	return rev
}

// moveLedger applies changes made by someone else, one after another, that
// take doc from revision from to revision to, of total lines.
func moveLedger(l *ledger.Ledger, doc ledger.DocKey, from, to ledger.Rev, chs []ledger.Change, total int) {
	totals := make([]int, len(chs))
	t := total
	for i := len(chs) - 1; i >= 0; i-- {
		totals[i] = t
		t -= chs[i].New - chs[i].Old
	}
	for i, c := range chs {
		l.ApplyChange(doc, from, to, c, "", totals[i])
		from = to
	}
}

// scan reads a file line by line (the LSP rule of package lines), taking
// the contents of the lines in want until they hold maxBytes. In full mode
// it reads everything, hashing the bytes (SHA-256), the lines (statedb's
// packed line hashes) and checking that the text is text (no NUL, valid
// UTF-8) as Get does; otherwise it stops after the last line wanted.
type scan struct {
	full     bool
	want     ledger.Range
	maxBytes int
	huge     bool // a process that lives for one call: kept in huge pages

	// total is the file's line count when known (the stat cache's), to
	// size what the scan keeps; 0 when not.
	total int

	// The contents of lines want.Start.. are copied one after another into
	// kept, line i of them ending at ends[i]: one buffer sized from the
	// file, not a string per line and a slice of them grown by doubling (in
	// a process that lives for one call, every byte allocated is a fresh
	// page to fault in).
	kept  []byte
	ends  []uint32
	bytes int  // bytes taken, a newline counted per line
	cut   bool // stopped taking lines before want.End
	n     int  // lines seen

	h          hash.Hash
	lineHashes []byte
	binary     bool
}

func (s *scan) done() bool { return s.n >= s.want.End || s.cut }

func (s *scan) take(content string) {
	if s.full {
		s.lineHashes = statedb.AppendLineHash(s.lineHashes, s.n, content)
	}
	s.n++
	if s.n >= s.want.Start && s.n <= s.want.End && !s.cut {
		if s.bytes > s.maxBytes {
			s.cut = true
		} else {
			s.kept = append(s.kept, content...)
			s.ends = append(s.ends, uint32(len(s.kept)))
			s.bytes += len(content) + 1
		}
	}
}

// line returns the content of the j-th line taken (a view of kept: valid
// once the scan is done).
func (s *scan) line(j int) string {
	start := uint32(0)
	if j > 0 {
		start = s.ends[j-1]
	}
	return unsafe.String(unsafe.SliceData(s.kept[start:]), int(s.ends[j]-start))
}

// reserve sizes ends and kept for a file of size bytes: as many line ends
// as the lines wanted the file holds (when its line count is known; else a
// guess of 32 bytes a line), and at most the bytes a read may take
// (maxBytes and a long line more, or the file); either grows if short.
func (s *scan) reserve(size int64) {
	if s.want.End < s.want.Start {
		return // takes nothing
	}
	lines := int(size/32) + 16
	if s.total > 0 {
		lines = s.total
	}
	lines = max(0, min(lines, s.want.End)-s.want.Start+1)
	s.ends = make([]uint32, 0, lines)
	s.kept = hugepage.Bytes(int(min(size, int64(s.maxBytes)+int64(s.maxBytes)/4, int64(lines)*256))+64, s.huge)
}

func (s *scan) run(r io.Reader, size int64) error {
	s.reserve(size)
	if s.full {
		s.h = sha256.New()
		// About 32 bytes a line in source code; a guess, not a bound.
		s.lineHashes = make([]byte, 0, size/32*3+64)
	}
	const chunk = 256 << 10
	bufSize := chunk
	if !s.full {
		// A range read stops after its last line, a few kilobytes into the
		// file when the lines are near its start: the buffer starts small
		// and doubles with each read, so such a read neither reads nor
		// touches a quarter megabyte.
		bufSize = 16 << 10
	}
	buf := make([]byte, 0, bufSize)
	for eof, first := false, true; !eof; first = false {
		// Grown when one line is longer than the buffer, or while it is
		// smaller than a chunk.
		if len(buf) == cap(buf) || !first && cap(buf) < chunk {
			buf = append(buf, make([]byte, cap(buf))...)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			eof = true
		} else if err != nil {
			return result.Wrap(result.IOError, err, err.Error())
		}
		// Lines are views of buf, valid until it is refilled: kept ones
		// are copied.
		view := unsafe.String(unsafe.SliceData(buf), len(buf))
		rest := view
		for rest != "" {
			l, next := lines.Next(rest)
			// Without the end of the file, a line may go on past the buffer,
			// and a final '\r' may be the start of "\r\n".
			if !eof && (l.Term == "" || l.Term == "\r" && next == "") {
				break
			}
			s.take(l.Content)
			rest = next
			if !s.full && s.done() {
				return nil
			}
		}
		used := len(view) - len(rest)
		if s.full {
			// Whole lines end on character boundaries: checking chunk by
			// chunk is checking the whole.
			chunk := buf[:used]
			if bytes.IndexByte(chunk, 0) >= 0 || !utf8.Valid(chunk) {
				s.binary = true
				return nil
			}
			s.h.Write(chunk)
		}
		buf = buf[:copy(buf, buf[used:])]
	}
	return nil
}
