//go:build race

package server_test

// raceOn: the race detector slows code 5-10x, so the long measuring tests
// run fewer steps under it (their full counts run in the plain test run).
const raceOn = true
