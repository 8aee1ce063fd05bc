//go:build race

package ledger

// raceOn: the race detector's instrumentation allocates, so allocation
// bounds are not measured under it.
const raceOn = true
