//go:build !race

package ledger

const raceOn = false
