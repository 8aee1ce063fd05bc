package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/confine"
	"github.com/sightline-lsp/sightline/extract"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/policy"
	"github.com/sightline-lsp/sightline/redact"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/store"
	"github.com/sightline-lsp/sightline/workspace"
)

// SymbolsParams are the params of sightline/symbols.
type SymbolsParams struct {
	Caller
	// Query matches declarations by name: exactly, then by prefix, then
	// anywhere in the qualified name, then its letters in order; case is
	// ignored. Empty: every declaration (up to Limit).
	Query string `json:"query"`
	// Limit bounds the answer (default 100, at most 1000).
	Limit int `json:"limit,omitempty"`
}

// WorkspaceSymbol is one declaration found across the workspace: its file,
// qualified name (what a symbol read takes), kind, lines (the declaration
// without its doc comment) and signature.
type WorkspaceSymbol struct {
	Path      string       `json:"path"`
	URI       string       `json:"uri"`
	Name      string       `json:"name"`
	Kind      string       `json:"kind"`
	Lines     ledger.Range `json:"lines"`
	Signature string       `json:"signature"`
}

// SymbolsResult is the answer of sightline/symbols.
type SymbolsResult struct {
	Outcome
	Symbols []WorkspaceSymbol `json:"symbols"`
	// More is how many further declarations matched beyond Limit.
	More int `json:"more,omitempty"`
	// Files is how many files were searched; Extracted how many of them
	// were read for their declarations by this call (the rest were known
	// by their content hash).
	Files     int `json:"files"`
	Extracted int `json:"extracted"`
}

// maxSymbolFile is the largest file a workspace symbol query extracts.
const maxSymbolFile = hintColdLimit

// symbolSet is one text's declarations as a query matches them.
type symbolSet struct {
	syms      []extract.Symbol
	names     []string // qualified
	lower     []string // qualified, lower case
	lowerName []string // the name alone, lower case
}

func newSymbolSet(syms []extract.Symbol) *symbolSet {
	s := &symbolSet{syms: syms, names: extract.Qualify(syms)}
	s.lower = make([]string, len(s.names))
	s.lowerName = make([]string, len(s.names))
	for i, n := range s.names {
		s.lower[i] = strings.ToLower(n)
		s.lowerName[i] = strings.ToLower(syms[i].Name)
	}
	return s
}

// symbolSets are the sets this process knows, by content: a text's
// declarations never change.
type symbolSets struct {
	mu sync.Mutex
	m  map[store.SymbolKey]*symbolSet
}

func (c *symbolSets) get(k store.SymbolKey) *symbolSet {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

func (c *symbolSets) put(k store.SymbolKey, s *symbolSet) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[store.SymbolKey]*symbolSet{}
	}
	c.m[k] = s
}

// Symbols answers sightline/symbols: the declarations of the workspace's
// files (the registry's, sensitive ones left out; an editor's buffer as it
// is, saved or not) that match a query. A
// file's declarations are kept by its content hash, in this process and in
// the state database, so a query extracts only the files it has not seen
// as they are. It records nothing as read: it shows no file's lines.
func (e *Env) Symbols(ctx context.Context, p SymbolsParams) (res SymbolsResult, err error) {
	defer func() { res.audit(auditRow{caller: p.Caller, path: p.Query}) }()
	res.Symbols = []WorkspaceSymbol{}
	limit := p.Limit
	switch {
	case limit < 0:
		return res, result.Errorf(result.InvalidParams, "limit must not be negative")
	case limit == 0:
		limit = 100
	}
	limit = min(limit, 1000)
	pol := e.Policy()
	if why := pol.Closed(); why != "" {
		res.Outcome = Refusal(closedErr("No file was searched", why))
		return res, nil
	}
	extractor := e.syms.engineName()
	type file struct {
		l    listed
		key  store.SymbolKey
		set  *symbolSet
		lang string
	}
	var files []*file
	buf := make([]byte, 256<<10) // computeHash's read buffer
	for _, root := range e.WS.Roots() {
		ls, err := e.registry(ctx, root, pol)
		if err != nil {
			return res, err
		}
		for _, l := range ls {
			lang := extract.Language(l.rel, "")
			if lang == "" || l.entry.Sensitive || l.info.Size() > maxSymbolFile {
				continue
			}
			f := &file{l: l, lang: lang}
			if d, ok := e.WS.Known(l.key); ok && d.Open {
				// An editor's buffer, saved or not: its declarations now
				// (extracted once per revision).
				f.set = newSymbolSet(e.syms.of(d))
				files = append(files, f)
				continue
			}
			h, known := e.knownHash(l.abs, l.info)
			if !known {
				h = e.computeHash(l.abs, l.link, buf)
			}
			if h != "" {
				f.key = store.SymbolKey{FileHash: h, Lang: lang, Extractor: extractor}
				f.set = e.syms.sets.get(f.key)
			}
			files = append(files, f)
		}
	}
	res.Files = len(files)
	// What this process has not seen, the database may have.
	var ask []store.SymbolKey
	for _, f := range files {
		if f.set == nil && f.key.FileHash != "" {
			ask = append(ask, f.key)
		}
	}
	var kept map[store.SymbolKey][]byte
	if len(ask) > 0 && e.db != nil {
		if kept, err = e.db.DB().SymbolSets(ctx, ask); err != nil {
			e.Log.Warn("symbol sets unavailable", zap.Error(err))
		}
	}
	put := map[store.SymbolKey][]byte{}
	for _, f := range files {
		if f.set != nil {
			continue
		}
		if data, ok := kept[f.key]; ok {
			var syms []extract.Symbol
			if json.Unmarshal(data, &syms) == nil {
				f.set = newSymbolSet(syms)
				e.syms.sets.put(f.key, f.set)
				continue
			}
		}
		syms, ok := e.extractFile(f.l, f.lang)
		if !ok {
			continue
		}
		res.Extracted++
		f.set = newSymbolSet(syms)
		if f.key.FileHash != "" {
			// Kept only under a hash taken from a stable file: the
			// declarations were read from the bytes it names.
			e.syms.sets.put(f.key, f.set)
			if data, err := json.Marshal(syms); err == nil {
				put[f.key] = data
			}
		}
	}
	if len(put) > 0 && e.db != nil {
		if err := e.db.DB().PutSymbolSets(context.WithoutCancel(ctx), put); err != nil {
			e.Log.Warn("symbol sets not kept", zap.Error(err))
		}
	}

	type hit struct {
		score int
		f     *file
		i     int
	}
	var hits []hit
	q := strings.ToLower(strings.TrimSpace(p.Query))
	for _, f := range files {
		if f.set == nil {
			continue
		}
		for i := range f.set.syms {
			if s, ok := symbolScore(q, f.set.lower[i], f.set.lowerName[i]); ok {
				hits = append(hits, hit{s, f, i})
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return a.score - b.score }) // files come in path order
	if len(hits) > limit {
		res.More = len(hits) - limit
		hits = hits[:limit]
	}
	for _, h := range hits {
		s := h.f.set.syms[h.i]
		end := s.End
		if end < s.Start {
			end = s.Start
		}
		res.Symbols = append(res.Symbols, WorkspaceSymbol{Path: h.f.l.entry.Path, URI: string(h.f.l.key), Name: h.f.set.names[h.i], Kind: s.Kind,
			Lines: ledger.Range{Start: s.Start, End: end}, Signature: redact.String(s.Signature, redact.IsEnvFile(h.f.l.rel))})
	}
	res.Outcome = Outcome{OK: true}
	return res, nil
}

// symbolScore ranks a declaration for a query (lower is better): its name
// exactly, its name's prefix, the query anywhere in its qualified name, the
// query's letters in order. ok is false when it does not match.
func symbolScore(q, qualified, name string) (int, bool) {
	switch {
	case q == "":
		return 0, true
	case name == q || qualified == q:
		return 0, true
	case strings.HasPrefix(name, q):
		return 1, true
	case strings.Contains(qualified, q):
		return 2, true
	}
	j := 0
	for i := 0; i < len(qualified) && j < len(q); i++ {
		if qualified[i] == q[j] {
			j++
		}
	}
	return 3, j == len(q)
}

// registry is a root's listing under pol: the walk kept while the editor
// watches files, else a new walk.
func (e *Env) registry(ctx context.Context, root string, pol *policy.Policy) ([]listed, error) {
	if ls, cached := e.trees.get(root, pol); cached {
		return ls, nil
	}
	cr, _, err := e.WS.Locate(workspace.FromPath(root))
	if err != nil {
		return nil, err
	}
	files, err := walkTree(ctx, cr)
	if err != nil {
		return nil, err
	}
	ls := e.describe(root, files, pol)
	e.trees.put(root, pol, ls)
	return ls, nil
}

// extractFile reads a listed file through its confined root and extracts
// its declarations; false for a file that cannot be read or is not text.
func (e *Env) extractFile(l listed, lang string) ([]extract.Symbol, bool) {
	root, rel, err := e.WS.Locate(l.key)
	if err != nil {
		return nil, false
	}
	t, err := root.Resolve(rel, confine.Read)
	if err != nil {
		return nil, false
	}
	f, _, err := root.OpenRead(t)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSymbolFile+1))
	if err != nil || len(b) > maxSymbolFile || bytes.IndexByte(b, 0) >= 0 {
		return nil, false
	}
	text := string(b)
	ls := make([]extract.Line, 0, strings.Count(text, "\n")+1)
	n := 0
	for line := range strings.Lines(text) {
		n++
		ls = append(ls, extract.Line{N: n, Content: strings.TrimRight(line, "\r\n")})
	}
	return e.syms.extractor().Extract(lang, ls), true
}
