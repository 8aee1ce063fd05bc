package ops

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

//go:generate go run ./gen

// ToolsFiles are where the generated tools.json is committed: in each
// editor's own tree, which is what it ships (the .vsix packs only
// editors/vscode, bundling the file into the extension; the Neovim plugin
// is editors/nvim on the runtimepath and reads the file from there). The
// copies are the same bytes.
var ToolsFiles = []string{"editors/vscode/tools.json", "editors/nvim/tools.json"}

// ToolsJSON is the agent tools of the table as the editors read them
// (tools.json): for each tool, its operation's method, name, title,
// description, the JSON schema of its input (the one the MCP door
// serves), its annotations, the doors that offer it and why the others
// do not.
func ToolsJSON() ([]byte, error) {
	type entry struct {
		Name        string             `json:"name"`
		Method      string             `json:"method"`
		Title       string             `json:"title"`
		Description string             `json:"description"`
		Annotations Annotations        `json:"annotations"`
		InputSchema *jsonschema.Schema `json:"inputSchema"`
		Doors       []string           `json:"doors"`
		NotAt       map[string]string  `json:"notAt,omitempty"`
	}
	file := struct {
		Comment string   `json:"//"`
		Doors   []string `json:"doors"`
		Tools   []entry  `json:"tools"`
	}{
		Comment: "Generated from sightline's operation table (ops.Table) by `go generate ./ops`: do not edit. " +
			"Every agent tool, the operation method it calls, and the doors that offer it (notAt: the doors that do not, and why). " +
			"The doors are those that offer tools: the MCP server (which an ACP agent gets from sightline acp too), the VS Code extension, " +
			"the Neovim plugin; the CLI offers every operation as a command, and the hooks guard the agent's own tools.",
		Doors: Doors,
	}
	for _, op := range Table() {
		t := op.Tool()
		if t == nil {
			continue
		}
		e := entry{Name: t.Name, Method: op.Method(), Title: t.Title, Description: t.Description,
			Annotations: t.Annotations(), InputSchema: t.Schema(), NotAt: t.NotAt}
		for _, d := range Doors {
			if t.OfferedAt(d) {
				e.Doors = append(e.Doors, d)
			}
		}
		for _, d := range slices.Sorted(maps.Keys(t.NotAt)) {
			if !slices.Contains(Doors, d) {
				panic(t.Name + ": NotAt names no door: " + d)
			}
		}
		file.Tools = append(file.Tools, e)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the descriptions' <<<< EDIT stay legible
	enc.SetIndent("", "  ")
	if err := enc.Encode(file); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
