package server_test

import (
	"testing"

	"github.com/sightline-lsp/sightline/lsptest"
)

// TestReproFreshRefStaleAfterOwnEdit (found by TestBatchProperty): after the
// agent deletes one of two duplicate lines and reads the whole file again,
// the ref that read gives the surviving line is refused as stale_ref, and
// stays refused however often the agent retries with the fresh refs the
// refusal hands out. The read before the edit showed "}" at line 1; that
// line is gone, so its "as shown" frame counts and is stale, and no newer
// read can ever show the vanished line again to retire the frame (handlers
// resolve: follow/gone). Section 6 promises a retry with the fresh refs needs
// no full re-read; here not even a full re-read helps.
func TestReproFreshRefStaleAfterOwnEdit(t *testing.T) {
	src := "}\n}\nx\n"
	for _, open := range []bool{false, true} {
		e, root := start(t, map[string]string{"f.txt": src}, lsptest.Options{})
		u := fileURI(root, "f.txt")
		if open {
			e.Open(u, "plaintext", src)
		}
		read(t, e, u, nil, nil)
		if res := edit(t, e, u, []map[string]any{{"type": "delete_line", "ref": "1:" + hashOf("}")}}, nil); !res.OK {
			t.Fatalf("open=%v: delete: %+v", open, res.Outcome)
		}
		rr := read(t, e, u, nil, nil)
		if want := "1:" + hashOf("}") + "|}\n2:" + hashOf("x") + "|x\n"; rr.Content != want {
			t.Fatalf("open=%v: re-read %q, want %q", open, rr.Content, want)
		}
		for try := range 2 {
			res := edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": "1:" + hashOf("}"), "new_content": "} // x"}}, nil)
			if !res.OK {
				t.Errorf("open=%v, try %d: the fresh ref 1:%s of the latest full read was refused: %+v (fresh refs %v)", open, try, hashOf("}"), res.Outcome, res.FreshRefs)
				continue
			}
			break
		}
	}
}
