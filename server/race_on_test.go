//go:build race

package server_test

// raceOn: the race detector's own allocations count in
// runtime.MemStats, so allocation bounds are not checked under it.
const raceOn = true
