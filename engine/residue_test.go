package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestResidueCheck: the residue check of a purge finds an erased text
// left in the database file and vacuums, whether it looks for one text or
// many; it does not vacuum for texts the file does not hold, nor for one
// shorter than the 12 bytes it looks for; and past ResidueMaxPatterns
// texts (the bound on what it keeps in memory) it vacuums without
// searching, so its guarantee holds for an erasure of any size.
func TestResidueCheck(t *testing.T) {
	ctx := context.Background()
	e := enginetest.SQLite.MustOpen(t, engine.Config{})
	// The "residue": texts stored in live rows are in the file as a copy
	// in a page's free space would be.
	const planted, short = "the planted residue of an erased turn", "tomato"
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
		{Role: engine.RoleUser, Content: planted}, {Role: engine.RoleUser, Content: short},
	}}); err != nil {
		t.Fatal(err)
	}
	absent := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("a text this store never held, number %06d", i)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		texts []string
		want  bool
	}{
		{"Planted", []string{planted}, true},
		{"PlantedAmongMany", append(absent(1000), planted), true},
		{"Absent", absent(1), false},
		{"Short", []string{short}, false},
		{"AtBound", absent(engine.ResidueMaxPatterns), false},
		{"PastBound", absent(engine.ResidueMaxPatterns + 1), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := engine.CheckResidue(ctx, e, tc.texts)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("vacuumed=%v, want %v", got, tc.want)
			}
		})
	}
}
