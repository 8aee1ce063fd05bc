//go:build !linux

package daemon

// onByDefault: elsewhere (macOS, the BSDs, Windows) the daemon's start is
// not tested yet; SIGHTLINE_DAEMON=1 turns it on.
const onByDefault = false
