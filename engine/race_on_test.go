//go:build race

package engine_test

// raceOn: the race detector's instrumentation allocates, so allocation
// bounds are not measured under it.
const raceOn = true
