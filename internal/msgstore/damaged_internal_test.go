package msgstore

import (
	"math"
	"testing"
)

func TestFiniteBlob(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    []float32
		want bool
	}{
		{"empty", nil, true},
		{"finite", []float32{0, -0.5, 1e38, -1e-45, math.MaxFloat32}, true},
		{"NaN", []float32{0.1, float32(math.NaN())}, false},
		{"+Inf", []float32{float32(math.Inf(1)), 0.1}, false},
		{"-Inf", []float32{0.1, 0.2, float32(math.Inf(-1))}, false},
		{"negative NaN", []float32{math.Float32frombits(0xffc00001)}, false},
	} {
		if got := finiteBlob(EncodeVector(tc.v)); got != tc.want {
			t.Errorf("%s: finiteBlob = %v, want %v", tc.name, got, tc.want)
		}
	}
}
