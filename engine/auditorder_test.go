package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/sightline-lsp/sightline/statedb"
	"github.com/sightline-lsp/sightline/store"
	"go.uber.org/zap"
)

// The database keeps audited calls in the order they were made: stats pair
// a guard trip with the next call on that document, so an entry stored out
// of order miscounts (a CI run once saw a resolved retry counted as none).
func TestAuditWritesKeepCallOrder(t *testing.T) {
	ctx := context.Background()
	db, err := statedb.Open(ctx, t.TempDir(), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	l := &auditLog{behind: &behind{}, db: db, log: zap.NewNop()}
	const n = 300
	for i := range n {
		l.add(ctx, store.AuditEntry{Method: "sightline/edit", Path: fmt.Sprint(i), Outcome: "ok"})
	}
	got, src, err := l.entries(ctx, store.AuditFilter{})
	if err != nil || src != "database" || len(got) != n {
		t.Fatalf("entries: %d from %s, %v", len(got), src, err)
	}
	for i, a := range got {
		if a.Path != fmt.Sprint(i) {
			t.Fatalf("entry %d is call %s: the audit log is out of call order", i, a.Path)
		}
	}
}
