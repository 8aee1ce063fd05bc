//go:build unix

package main

import (
	"os"
	"syscall"
)

// peakRSS is a finished child's peak resident set as getrusage reports it.
func peakRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
