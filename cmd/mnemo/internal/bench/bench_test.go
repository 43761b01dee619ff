package bench_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/cmd/mnemo/internal/bench"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"10k": 10_000, "100K": 100_000, "1m": 1_000_000, "2500": 2500} {
		if got, err := bench.ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}
