package daemon

import "github.com/sightline-lsp/sightline/bridge"

// Confinement names what confines this process beyond its user (see
// bridge.Confinement): a daemon serves only callers confined as it is,
// which it reads from the kernel (bridge.PeerConfinement).
func Confinement() string { return bridge.Confinement() }
