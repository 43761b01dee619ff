//go:build race

package recall_test

const raceEnabled = true
