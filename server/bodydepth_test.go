package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestBodyTooDeep: a well-formed body nested deeper than encoding/json
// reads (10,000 levels) is refused saying so and naming the limit, not
// as "malformed JSON at byte N"; one level less is read (and refused for
// what it holds).
func TestBodyTooDeep(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	nested := func(depth int) string {
		return `{"resourceId":"res-bob","query":"x","recall":{"filter":` + strings.Repeat("[", depth-2) + strings.Repeat("]", depth-2) + `}}`
	}
	for _, c := range []struct {
		name  string
		depth int
		want  string
	}{
		{"TooDeep", 10001, "the body nests arrays or objects deeper than 10000 levels, the most it may (at byte "},
		{"Deepest", 10000, "recall.filter"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.do("POST", "/v1/search", bobToken, nested(c.depth))
			if p := r.problem(t); r.status != 400 || !strings.Contains(p.Detail+" "+p.Field, c.want) || strings.Contains(p.Detail, "malformed JSON") {
				t.Fatalf("depth %d: %d %+v, want 400 with %q", c.depth, r.status, p, c.want)
			}
		})
	}
}
