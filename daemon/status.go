package daemon

import (
	"os"
	"time"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/version"
)

// status answers sightline/bridge/status: what `sightline daemon status`
// and `sightline daemon list` show of a daemon.
func (d *daemon) status() bridge.Status {
	return bridge.Status{
		PID: os.Getpid(), Version: version.String(), Roots: []string{d.root}, Open: []string{}, Daemon: true,
		Build: d.build, Started: d.started.UTC().Format(time.RFC3339), Memory: residentMemory(),
		StateDir: d.state, Log: d.logFile,
	}
}
