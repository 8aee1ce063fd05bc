// Package swaptest is the attacker of the race tests: a folder and a
// symbolic link exchanged by the kernel in a tight loop, as a local process
// racing sightline's checks would do it (Linux: renameat2 RENAME_EXCHANGE).
package swaptest
