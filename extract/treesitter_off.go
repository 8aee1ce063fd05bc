//go:build !treesitter

package extract

import "errors"

// newTreeSitter stands in for the tree-sitter engine in binaries built
// without the treesitter build tag (the default: it needs cgo).
func newTreeSitter() (Extractor, error) {
	return nil, errors.New("extract engine treesitter is not available: this binary was built without tree-sitter (rebuild with CGO_ENABLED=1 go build -tags treesitter), use regex")
}
