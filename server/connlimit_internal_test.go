package server

import "testing"

// TestDefaultMaxConns: the default bound stays below the process's limit
// on open files (half of it), and is DefaultMaxConns when that limit is
// high or unknown.
func TestDefaultMaxConns(t *testing.T) {
	for files, want := range map[int]int{0: DefaultMaxConns, 1: 1, 256: 128, 2047: 1023, 2048: DefaultMaxConns, 1 << 20: DefaultMaxConns} {
		if got := defaultMaxConns(files); got != want {
			t.Errorf("defaultMaxConns(%d) = %d, want %d", files, got, want)
		}
	}
}
