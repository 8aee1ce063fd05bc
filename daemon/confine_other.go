//go:build !linux

package daemon

// Confinement names what confines this process: nothing known here (see
// the Linux one).
func Confinement() string { return "" }
