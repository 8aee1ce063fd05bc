//go:build !linux

package daemon

import "runtime"

// residentMemory is the memory the Go runtime holds from the system: the
// resident set is not read portably.
func residentMemory() int64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.Sys)
}
