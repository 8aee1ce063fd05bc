package engine

import (
	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/store"
	"github.com/sightline-lsp/sightline/workspace"
)

// NewEnv makes an Env over a workspace and a ledger, without a database or
// an editor (Setup assembles the full one): the tests' engine.
func NewEnv(ws *workspace.Workspace, l *ledger.Ledger, cfg config.Config, log *zap.Logger) *Env {
	return newEnv(ws, l, nil, nil, cfg, log, store.LockDir())
}
