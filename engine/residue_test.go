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
// searching, so its guarantee holds for an erasure of any size. It says
// why it vacuumed (engine.Vacuum), "" when it did not.
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
		want  engine.Vacuum
	}{
		{"Planted", []string{planted}, engine.VacuumResidue},
		{"PlantedAmongMany", append(absent(1000), planted), engine.VacuumResidue},
		{"Absent", absent(1), ""},
		{"Short", []string{short}, ""},
		{"AtBound", absent(engine.ResidueMaxPatterns), ""},
		{"PastBound", absent(engine.ResidueMaxPatterns + 1), engine.VacuumTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := engine.CheckResidue(ctx, e, tc.texts)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("vacuumed %q, want %q", got, tc.want)
			}
		})
	}
}

// TestEraseSaysVacuumed: an erasure's result says when and why its purge
// rewrote the file with VACUUM (EraseResult.Vacuumed), which it did
// without a word before (an erasure of 80,010 messages shrank mnemo.db
// from 48 MB to 184 KB and mnemo delete listed the purge's steps without
// it). A text erased from one thread and still stored in another is in
// the file as a leftover copy would be, so that erasure vacuums; one
// erasing a text stored nowhere else does not.
func TestEraseSaysVacuumed(t *testing.T) {
	ctx := context.Background()
	const shared, own = "a sentence two threads both hold, word for word", "a sentence only the first thread ever held"
	for _, tc := range []struct {
		name, text string
		want       engine.Vacuum
	}{
		{"CopyLeft", shared, engine.VacuumResidue},
		{"NoCopy", own, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := enginetest.SQLite.MustOpen(t, engine.Config{})
			for thread, text := range map[string]string{"gone": tc.text, "kept": shared} {
				if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "r", Messages: []engine.Message{
					{Role: engine.RoleUser, Content: text}}}); err != nil {
					t.Fatal(err)
				}
			}
			res, err := e.DeleteThread(ctx, "gone")
			if err != nil {
				t.Fatal(err)
			}
			if res.Vacuumed != tc.want {
				t.Fatalf("EraseResult.Vacuumed %q, want %q", res.Vacuumed, tc.want)
			}
		})
	}
}
