package observe

import (
	"testing"
	"time"
)

// TestProbeMemoBounds: a content probe answered at t0 stands for the
// skip it was asked for and probeSkips-1 more within probeFresh after
// it (by Config.Now), not at or past probeFresh, not before t0 (a clock
// set back), and not after a probe refused or failed.
func TestProbeMemoBounds(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		ok    bool
		at    time.Time
		skips int // skips it stands for at at
	}{
		{"answered, just after", true, t0, probeSkips - 1},
		{"answered, within the minute", true, t0.Add(probeFresh - time.Nanosecond), probeSkips - 1},
		{"answered, a minute on", true, t0.Add(probeFresh), 0},
		{"answered, clock set back", true, t0.Add(-time.Second), 0},
		{"refused or failed", false, t0, 0},
	}
	for _, c := range cases {
		var p probeMemo
		p.answered(t0, c.ok)
		n := 0
		for p.stands(c.at) {
			n++
		}
		if n != c.skips {
			t.Errorf("%s: stands for %d skips, want %d", c.name, n, c.skips)
		}
	}
}
