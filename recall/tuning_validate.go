package recall

import (
	"fmt"
	"math"
)

// Validate reports a weight of t that is not a finite number (NaN or
// ±Inf): such a weight turns every fused score into NaN or ±Inf, and the
// ranking into an arbitrary order, without any other sign. The error
// wraps ErrInvalidOptions and names the field by its JSON name. NewIndex
// (and the Postgres backend) call it; zero values (the defaults) are
// valid.
func (t Tuning) Validate() error {
	for _, w := range []struct {
		name string
		v    float64
	}{
		{"vectorWeight", t.VectorWeight},
		{"contextWeight", t.ContextWeight},
		{"sessionWeight", t.SessionWeight},
		{"topicWeight", t.TopicWeight},
		{"speakerWeight", t.SpeakerWeight},
		{"dateWeight", t.DateWeight},
	} {
		if math.IsNaN(w.v) || math.IsInf(w.v, 0) {
			return fmt.Errorf("%w: tuning %s must be a finite number, not %v", ErrInvalidOptions, w.name, w.v)
		}
	}
	return nil
}
