//go:build race

package engine_test

// raceEnabled is true in a -race build: the crash harness then runs fewer
// kill points (the normal suite runs the full count; the race build is for
// data races, and its subprocesses are several times slower).
const raceEnabled = true
