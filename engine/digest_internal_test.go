package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDigestFormat: digest hashes the bytes earlier builds hashed with
// fmt.Fprintf ("len:value;" per field), so that an idempotent append
// matches the digests they stored.
func TestDigestFormat(t *testing.T) {
	old := func(role, content, name, toolCallID string, calls []byte) string {
		h := sha256.New()
		for _, s := range []string{role, content, name, toolCallID, string(calls)} {
			fmt.Fprintf(h, "%d:%s;", len(s), s)
		}
		return hex.EncodeToString(h.Sum(nil))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		return strings.Repeat(string(rune('a'+rng.IntN(26)))+"é;:", rng.IntN(40))
	}
	for i := 0; i < 500; i++ {
		role, content, name, id := word(), strings.Repeat(word(), rng.IntN(300)), word(), word()
		var calls []byte
		if i%3 == 0 {
			calls = []byte(`[{"id":"` + word() + `"}]`)
		}
		if got, want := digest(role, content, name, id, calls), old(role, content, name, id, calls); got != want {
			t.Fatalf("digest(%q, %d bytes, %q, %q, %q) = %s, want %s", role, len(content), name, id, calls, got, want)
		}
	}
}
