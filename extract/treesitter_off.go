//go:build !treesitter

package extract

import "errors"

// errNoTreeSitter says why a binary built without the treesitter build tag
// (the default: it needs cgo) has no tree-sitter engine.
var errNoTreeSitter = errors.New("extract engine treesitter is not available: this binary was built without tree-sitter (rebuild with CGO_ENABLED=1 go build -tags treesitter), use regex")

// newTreeSitter stands in for the tree-sitter engine.
func newTreeSitter() (Extractor, error) { return nil, errNoTreeSitter }

func treeSitterAvailable() error { return errNoTreeSitter }
