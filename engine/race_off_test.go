//go:build !race

package engine_test

// raceEnabled is true in a -race build (see race_on_test.go).
const raceEnabled = false
