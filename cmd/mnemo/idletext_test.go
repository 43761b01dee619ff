package main

import (
	"testing"
	"time"
)

// TestIdleText: expire says how long a thread has been idle without
// rounding it up: under a second is "under 1s" (it printed "idle 1s" for
// 0.6 s, and a pasted block "idle 0s" for 0.4 s, where the docs showed
// "idle 1s"), and whole seconds are the seconds passed at least.
func TestIdleText(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "under 1s"},
		{400 * time.Millisecond, "under 1s"},
		{600 * time.Millisecond, "under 1s"},
		{999 * time.Millisecond, "under 1s"},
		{time.Second, "1s"},
		{1900 * time.Millisecond, "1s"},
		{912*time.Hour + 400*time.Millisecond, "912h0m0s"},
	} {
		if got := idleText(c.d); got != c.want {
			t.Errorf("idleText(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
