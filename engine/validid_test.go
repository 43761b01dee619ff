package engine_test

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestValidIDRule: ValidID accepts exactly the ids of its documented rule
// (the regexp it was written as before: 1-128 characters of
// [A-Za-z0-9_.:@-]), on edge cases and random strings.
func TestValidIDRule(t *testing.T) {
	rule := regexp.MustCompile(`^[A-Za-z0-9_.:@-]{1,128}$`)
	cases := []string{"", "a", "A-z_0.9:@", "a b", "a\n", "\na", "é", "a/b", strings.Repeat("x", 128), strings.Repeat("x", 129), "a\x00"}
	const alphabet = "aZ09_.:@- /\n\x00\xff"
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		b := make([]byte, rng.IntN(132))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		if rng.IntN(2) == 0 { // more valid ids
			for i := range b {
				b[i] = alphabet[rng.IntN(9)]
			}
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := engine.ValidID(s), rule.MatchString(s); got != want {
			t.Fatalf("ValidID(%q) = %v, want %v", s, got, want)
		}
	}
}
