package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/internal/swaptest"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/statedb"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestWritesSwapRace: while a folder is swapped for a link to .git, and
// another for a link to a denied folder (renameat2 RENAME_EXCHANGE, in a
// tight loop), the engine overwrites, creates, patches, rolls back and
// reads files under them, thousands of times. Nothing is ever written into
// .git, nothing denied is ever shown, every write answered ok is in the
// folder it named, and every refusal wrote nothing.
func TestWritesSwapRace(t *testing.T) {
	const secret = "SECRET-PLAN-MARKER\n"
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".git/config":       swaptest.GitConfig,
		".git/hooks/sample": "#!/bin/sh\n",
		"e/config":          "start\n",
		"secrets/plan.txt":  secret,
		"s/plan.txt":        "public plan\n",
	})
	for link, dest := range map[string]string{"elink": ".git", "slink": "secrets"} {
		if err := os.Symlink(dest, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	db, err := statedb.Open(ctx, t.TempDir(), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	cfg := config.Default()
	cfg.Guard = "off"
	cfg.Policy.Deny = []string{"secrets/**"}
	ws := workspace.New([]string{root}, workspace.Options{})
	ReleaseRoots(t, ws)
	env := newEnv(ws, ledger.New(ledger.Options{}), db, nil, cfg, nil, t.TempDir())
	uri := func(rel string) TextDocument {
		return TextDocument{URI: string(workspace.FromPath(filepath.Join(root, rel)))}
	}
	// The folder e, whatever it is called at the moment.
	e, err := os.Open(filepath.Join(root, "e"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	inE := func(name string) (string, bool) { return swaptest.ReadAt(e, name) }
	// A first version in the history, to roll back to.
	first := "first version\n"
	if res, err := env.Write(ctx, WriteParams{TextDocument: uri("e/config"), Mode: "overwrite", Content: &first}); err != nil || !res.OK {
		t.Fatalf("first write: %+v %v", res.Outcome, err)
	}
	var version int64
	for deadline := time.Now().Add(5 * time.Second); version == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if h, err := env.History(ctx, HistoryParams{TextDocument: uri("e/config")}); err == nil && len(h.Versions) > 0 {
			version = h.Versions[len(h.Versions)-1].ID
		}
	}
	if version == 0 {
		t.Fatal("the first write has no version in the history")
	}

	stopE := swaptest.Start(t, root, "e", "elink")
	stopS := swaptest.Start(t, root, "s", "slink")
	kinds := []string{"overwrite", "create", "patch", "rollback", "read"}
	tries := map[string]int{}
	escapes := 0
	escape := func(i int, format string, args ...any) {
		if escapes++; escapes <= 5 {
			t.Errorf("try %d: "+format, append([]any{i}, args...)...)
		}
	}
	most, budget := swaptest.Budget(t, 5000, 6*time.Second)
	deadline := time.Now().Add(budget)
	for i := 0; i < most && time.Now().Before(deadline); i++ {
		kind := kinds[i%len(kinds)]
		tries[kind]++
		before, _ := inE("config")
		var ok bool
		var answer string
		name, want, existed := "config", "", true
		switch kind {
		case "overwrite":
			want = fmt.Sprintf("write %d\n", i)
			res, err := env.Write(ctx, WriteParams{TextDocument: uri("e/config"), Mode: "overwrite", Content: &want})
			ok, answer = err == nil && res.OK, res.Message
		case "create":
			name, want, existed = fmt.Sprintf("hooks/x%d", i), "new\n", false
			before = ""
			res, err := env.Write(ctx, WriteParams{TextDocument: uri("e/" + name), Mode: "create", Content: &want})
			ok, answer = err == nil && res.OK, res.Message
		case "patch":
			want = fmt.Sprintf("patch %d\n", i)
			text := "--- a/e/config\n+++ b/e/config\n@@ -1 +1 @@\n-" + before + "+" + want
			res, err := env.ApplyPatch(ctx, PatchParams{Text: text})
			ok, answer = err == nil && res.OK, res.Message
		case "rollback":
			want = first
			res, err := env.Rollback(ctx, RollbackParams{TextDocument: uri("e/config"), Version: version})
			ok, answer = err == nil && res.OK, res.Message
		case "read":
			res, err := env.Read(ctx, ReadParams{TextDocument: uri("s/plan.txt")})
			if err == nil && strings.Contains(res.Content, "SECRET-PLAN-MARKER") {
				escape(i, "read showed the denied file (%s)", res.Message)
			}
			continue
		}
		got, exists := inE(name)
		if err := swaptest.GitUnchanged(root); err != nil {
			escape(i, "%s: %v (answer %q)", kind, err, answer)
		}
		switch {
		case ok && got != want:
			escape(i, "%s answered ok, but e/%s holds %q, not %q (answer %q)", kind, name, got, want, answer)
		case !ok && (exists != existed || got != before):
			escape(i, "%s refused, but e/%s changed from %q to %q (answer %q)", kind, name, before, got, answer)
		}
	}
	swaps := stopE() + stopS()
	t.Logf("tries %v, %d escapes (%d swaps)", tries, escapes, swaps)
	if escapes > 0 {
		t.Errorf("%d escapes", escapes)
	}
}
