package recall

import "testing"

// TestScoreMemo checks both forms of the lexical score memo (a slice for a
// small shard, a map for a large one) and the nil memo: what was put is
// got back, zero scores included, nothing else is.
func TestScoreMemo(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ords   int
		sparse bool
	}{
		{"small shard", 100, false},
		{"at the limit", memoDenseMax, false},
		{"large shard", memoDenseMax + 1, true},
		{"100k", 100_000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newScoreMemo(tc.ords)
			if m.large != tc.sparse {
				t.Fatalf("sparse = %v, want %v", m.large, tc.sparse)
			}
			for _, ord := range []int{0, tc.ords / 2, tc.ords - 1} {
				if _, ok := m.get(ord); ok {
					t.Fatalf("ord %d: memoised before put", ord)
				}
				m.put(ord, float64(ord)*0.5)
				if sc, ok := m.get(ord); !ok || sc != float64(ord)*0.5 {
					t.Fatalf("ord %d: got %v %v", ord, sc, ok)
				}
			}
			if _, ok := m.get(tc.ords / 3); ok && tc.ords/3 != 0 {
				t.Fatal("an ordinal never put is memoised")
			}
		})
	}
	var m *scoreMemo
	m.put(3, 1)
	if _, ok := m.get(3); ok {
		t.Fatal("nil memo remembered")
	}
}
