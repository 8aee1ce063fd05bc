package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"go.lsp.dev/protocol"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/workspace"
)

// The protocol decoder's unescaped strings alias its copy of the whole
// message. What didOpen keeps of them must not: a URI that did kept a second
// copy of every open document's text alive (1,000 open documents took 2.9x
// their text in RSS instead of 1.8x).
func TestDidOpenKeepsNoPartOfTheMessage(t *testing.T) {
	dir := t.TempDir()
	env := engine.Setup(context.Background(), engine.Options{Roots: []string{dir}, Config: config.Default(), NoPersist: true})
	s := &Server{env: env, ws: env.WS}
	s.pub = newPublisher(s)
	text := strings.Repeat("line\n", 1000)
	uri := "file://" + dir + "/a.txt"
	msg := fmt.Sprintf(`{"textDocument":{"uri":%q,"languageId":"plaintext","version":1,"text":%q}}`, uri, text)
	var p protocol.DidOpenTextDocumentParams
	if err := protocol.Unmarshal([]byte(msg), &p); err != nil {
		t.Fatal(err)
	}
	if err := s.DidOpen(context.Background(), &p); err != nil {
		t.Fatal(err)
	}
	k, err := workspace.Normalize(uri)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := s.ws.Known(k)
	if !ok {
		t.Fatal("document not open")
	}
	decoded := unsafe.StringData(string(p.TextDocument.URI))
	for name, kept := range map[string]string{"URI": d.URI, "Lang": d.Lang, "Key": string(d.Key)} {
		if kept != "" && unsafe.StringData(kept) == decoded {
			t.Errorf("the document's %s aliases the decoded message", name)
		}
	}
}
