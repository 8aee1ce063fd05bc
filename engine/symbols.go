package engine

import (
	"sync"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/extract"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// symbols owns the signature extractor and the declarations extracted per
// document revision: extracted once, in the background for huge documents.
type symbols struct {
	log *zap.Logger

	mu      sync.Mutex
	name    string            // the configured extractor
	x       extract.Extractor // made on first use: most calls extract nothing
	cache   map[workspace.Key]symCache
	warming map[workspace.Key]int64 // revision being extracted in the background

	// sets are the declarations of the workspace's texts by content, for
	// workspace symbol queries (Env.Symbols).
	sets symbolSets
}

type symCache struct {
	rev  int64
	syms []extract.Symbol
	qual []string // qualified names, made on first use (qualified)
}

func newSymbols(engine string, log *zap.Logger) *symbols {
	return &symbols{log: log, name: engine, cache: map[workspace.Key]symCache{}, warming: map[workspace.Key]int64{}}
}

// engine returns the signature extractor for a configured name, falling back
// to regex (with a log line) when it cannot be had, e.g. tree-sitter in a
// binary built without it.
func (s *symbols) engine(name string) extract.Extractor {
	x, err := extract.New(name)
	if err != nil {
		s.log.Warn("signature extractor unavailable; using regex", zap.String("extract", name), zap.Error(err))
		return extract.NewRegex()
	}
	return x
}

// setEngine switches extractors; what the old one extracted is dropped.
func (s *symbols) setEngine(name string) {
	s.mu.Lock()
	s.name, s.x = name, nil
	s.cache = map[workspace.Key]symCache{}
	s.mu.Unlock()
}

// engineName is the configured extractor's name, as symbol sets are kept
// under it.
func (s *symbols) engineName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.name == "" {
		return "regex"
	}
	return s.name
}

func (s *symbols) extractor() extract.Extractor {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.x == nil {
		s.x = s.engine(s.name)
	}
	return s.x
}

// of returns the declarations of a document, extracted once per revision.
func (s *symbols) of(d workspace.Doc) []extract.Symbol {
	lang := extract.Language(d.Path, d.Lang)
	if lang == "" {
		return nil
	}
	s.mu.Lock()
	if c, ok := s.cache[d.Key]; ok && c.rev == d.Rev {
		s.mu.Unlock()
		return c.syms
	}
	s.mu.Unlock()
	n := d.Snap.LineCount()
	ls := make([]extract.Line, n)
	for i := 0; i < n; i++ {
		ls[i] = extract.Line{N: i + 1, Content: d.Snap.Line(i).Content}
	}
	syms := s.extractor().Extract(lang, ls)
	s.mu.Lock()
	s.cache[d.Key] = symCache{rev: d.Rev, syms: syms}
	s.mu.Unlock()
	return syms
}

// qualified returns a document's declarations and their qualified names
// (extract.Qualify), both made once per revision.
func (s *symbols) qualified(d workspace.Doc) ([]extract.Symbol, []string) {
	syms := s.of(d)
	s.mu.Lock()
	c, ok := s.cache[d.Key]
	s.mu.Unlock()
	if ok && c.rev == d.Rev && c.qual != nil {
		return c.syms, c.qual
	}
	q := extract.Qualify(syms)
	if ok && c.rev == d.Rev {
		s.mu.Lock()
		if c, ok := s.cache[d.Key]; ok && c.rev == d.Rev {
			c.qual = q
			s.cache[d.Key] = c
		}
		s.mu.Unlock()
	}
	return syms, q
}

// hintColdLimit is the largest document whose declarations a read extracts
// on the spot (a few milliseconds, once per revision). Larger ones are
// extracted in the background; until then their notices name nothing rather
// than guess from a cut-off range, where a docstring or block comment would
// make the extractor report names that are not declarations.
const hintColdLimit = 4 << 20

// in returns the declarations starting inside r (1-based inclusive), from
// the document's declarations for hints.
func (s *symbols) in(d workspace.Doc, r ledger.Range) []extract.Symbol {
	if extract.Language(d.Path, d.Lang) == "" {
		return nil
	}
	var out []extract.Symbol
	for _, sym := range s.hints(d) {
		if sym.Start >= r.Start && sym.Start <= r.End {
			out = append(out, sym)
		}
	}
	return out
}

// hints returns a document's declarations for hints: cached for this
// revision, else extracted now if the document is small enough, else none
// (and extracted in the background for next time).
func (s *symbols) hints(d workspace.Doc) []extract.Symbol {
	s.mu.Lock()
	c, cached := s.cache[d.Key]
	s.mu.Unlock()
	switch {
	case cached && c.rev == d.Rev:
		return c.syms
	case d.Snap.Len() <= hintColdLimit:
		return s.of(d)
	}
	s.warm(d)
	return nil
}

// warm extracts a document's declarations in the background, one
// extraction per document at a time.
func (s *symbols) warm(d workspace.Doc) {
	s.mu.Lock()
	if _, busy := s.warming[d.Key]; busy {
		// One extraction per document at a time: while typing in a huge file
		// the next round picks up the newest revision.
		s.mu.Unlock()
		return
	}
	s.warming[d.Key] = d.Rev
	s.mu.Unlock()
	go func() {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic in signature extraction", zap.String("doc", string(d.Key)), zap.Any("panic", r))
			}
		}()
		s.of(d)
		s.mu.Lock()
		if s.warming[d.Key] == d.Rev {
			delete(s.warming, d.Key)
		}
		s.mu.Unlock()
	}()
}
