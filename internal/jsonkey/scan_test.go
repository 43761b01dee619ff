package jsonkey

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// slowRepeated is Repeated without its fast pass.
func slowRepeated(data []byte) bool {
	_, _, ok := walk(data)
	return ok
}

// TestFastPassAgrees: the fast pass (hasRepeated) finds a repeated key
// exactly when the decoder's walk does, on random JSON values with
// escaped, non-ASCII and invalid UTF-8 keys and objects past
// maxLinearKeys.
func TestFastPassAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		data := []byte(randomValue(rng, 0))
		if !json.Valid(data) {
			continue
		}
		if fast, slow := hasRepeated(data), slowRepeated(data); fast != slow {
			t.Fatalf("%s: fast pass %v, decoder %v", data, fast, slow)
		}
	}
}

// FuzzFastPass: the fast pass agrees with the decoder's walk.
func FuzzFastPass(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"\xff":1,"\xfe":2}`, `[{"a":{"b":[1,{"b":2,"b":3}]}}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if json.Valid(data) && hasRepeated(data) != slowRepeated(data) {
			t.Fatalf("%q: fast pass %v, decoder %v", data, hasRepeated(data), slowRepeated(data))
		}
	})
}

var keys = []string{`a`, `b`, `\u0061`, `é`, `\u00e9`, "\xff", "\xfe", `a\"`, `"`[0:0], `k`}

func randomValue(rng *rand.Rand, depth int) string {
	switch n := rng.IntN(6); {
	case depth > 3 || n < 2:
		return []string{`1`, `"a"`, `true`, `null`, `"\"b"`, `[]`, `{}`}[rng.IntN(7)]
	case n < 4:
		var members []string
		count := rng.IntN(4)
		if rng.IntN(8) == 0 {
			count = maxLinearKeys + rng.IntN(6)
		}
		for j := 0; j < count; j++ {
			k := keys[rng.IntN(len(keys))]
			if count > 6 {
				k = fmt.Sprintf("k%d", rng.IntN(3*count))
			}
			members = append(members, fmt.Sprintf(`"%s":%s`, k, randomValue(rng, depth+1)))
		}
		return "{" + strings.Join(members, ",") + "}"
	default:
		var items []string
		for j := rng.IntN(4); j > 0; j-- {
			items = append(items, randomValue(rng, depth+1))
		}
		return "[" + strings.Join(items, ",") + "]"
	}
}

// BenchmarkRepeated: Repeated on a message body with no repeated key (the
// common case) against the decoder's walk alone, what Repeated was.
func BenchmarkRepeated(b *testing.B) {
	msg := []byte(`{"resourceId":"r1","messages":[{"role":"user","content":"line 12 about the weather in Lyon and trains 36","metadata":{"k":12,"tag":"x"}}]}`)
	b.Run("Repeated", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Repeated(msg)
		}
	})
	b.Run("walk", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			walk(msg)
		}
	})
}
