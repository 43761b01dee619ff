package inspector

import "testing"

// TestScaleBar: a bar spans from 0 to the score on the run's scale of the
// channel, from min(0, lowest) to max(0, highest): a negative score's bar
// ends at the zero line and has a width (it had none: widths were a
// percentage of the highest score, and a negative one was 0); without
// negative scores a bar is a percentage of the highest, as before.
func TestScaleBar(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	cases := []struct {
		name   string
		scores []float64
		v      *float64
		want   Bar
	}{
		{"Highest", []float64{1, 2}, f(2), Bar{Left: 0, Width: 100}},
		{"Half", []float64{1, 2}, f(1), Bar{Left: 0, Width: 50}},
		{"Tiny", []float64{0.001, 2}, f(0.001), Bar{Left: 0, Width: 2}},
		{"NoScore", []float64{1, 2}, nil, Bar{}},
		{"MixedNegative", []float64{-1, 1}, f(-1), Bar{Left: 0, Width: 50, Neg: true, Zero: 50}},
		{"MixedPositive", []float64{-1, 1}, f(1), Bar{Left: 50, Width: 50, Zero: 50}},
		{"MixedSmallNegative", []float64{-1, 1}, f(-0.001), Bar{Left: 48, Width: 2, Neg: true, Zero: 50}},
		{"MixedZero", []float64{-1, 1}, f(0), Bar{Zero: 50}},
		{"AllNegative", []float64{-2, -1}, f(-1), Bar{Left: 50, Width: 50, Neg: true, Zero: 100}},
		{"AllNegativeLowest", []float64{-2, -1}, f(-2), Bar{Left: 0, Width: 100, Neg: true, Zero: 100}},
		{"AllZero", []float64{0, 0}, f(0), Bar{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s scale
			for _, x := range c.scores {
				s.add(&x)
			}
			if got := s.bar(c.v); got != c.want {
				t.Errorf("bar of %v over %v: %+v, want %+v", c.v, c.scores, got, c.want)
			}
		})
	}
}
