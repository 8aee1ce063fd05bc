//go:build race

package engine_test

// raceOn: the race detector's instrumentation allocates, so allocation
// bounds are not measured under it; and it slows code 5-10x, so the long
// single-goroutine property tests run fewer steps under it (their full
// counts run in the plain test run).
const raceOn = true
