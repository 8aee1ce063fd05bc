package lsptest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/workspace"
)

// Example is the call the doors' table tests make of an operation whose
// rows they do not name: its tool's Example (ops.Tool), a path in it
// taken in the workspace at root. It answers the tool's arguments, the
// operation's params as the editor's connection sends them, and the
// command line of the CLI's command derived from the tool (required
// arguments positional, the others flags).
func Example(op ops.Op, root string) (args, params map[string]any, cli []string, err error) {
	t := op.Tool()
	if t == nil || t.Example == nil {
		return nil, nil, nil, fmt.Errorf("%s is in the table but its tests name no call of it, and it has no tool whose Example they could make", op.Method())
	}
	raw, err := json.Marshal(t.Example)
	if err != nil {
		return nil, nil, nil, err
	}
	p, err := t.Params(raw, engine.Caller{}, func(path string) workspace.Key {
		return workspace.FromPath(filepath.Join(root, filepath.FromSlash(path)))
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: its example: %w", op.Method(), err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := json.Unmarshal(b, &params); err != nil {
		return nil, nil, nil, err
	}
	s := t.Schema()
	cli = []string{strings.TrimPrefix(t.Name, "sightline_")}
	for _, r := range s.Required {
		cli = append(cli, fmt.Sprint(t.Example[r]))
	}
	var flags []string
	for k := range t.Example {
		if !slices.Contains(s.Required, k) {
			flags = append(flags, k)
		}
	}
	slices.Sort(flags)
	for _, k := range flags {
		cli = append(cli, "--"+k, fmt.Sprint(t.Example[k]))
	}
	return t.Example, params, cli, nil
}
