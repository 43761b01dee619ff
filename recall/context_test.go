package recall_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// TestTurnContext: a reply is matched through the turn before it (the
// question it answers) at half that turn's score, in both channels; a turn
// that matches by itself stays above it; removing the question removes the
// reply's context. Without the rule (ContextWeight < 0) the reply is not
// found at all.
func TestTurnContext(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	docs := []recall.Doc{
		{ID: "q", ThreadID: "t", ResourceID: "r", Seq: 1, Role: "user", Content: "How was the LGBTQ support group yesterday?", CreatedAt: at},
		{ID: "a", ThreadID: "t", ResourceID: "r", Seq: 2, Role: "assistant", Content: "It was so powerful, I cried the whole evening.", CreatedAt: at},
		{ID: "x", ThreadID: "t", ResourceID: "r", Seq: 3, Role: "user", Content: "Tomatoes need sun and water.", CreatedAt: at},
		{ID: "y", ThreadID: "t", ResourceID: "r", Seq: 4, Role: "assistant", Content: "Basil likes the same.", CreatedAt: at},
	}
	ctx := context.Background()
	rank := func(ix *recall.Index, mode recall.Mode) []string {
		t.Helper()
		res, err := ix.Search(ctx, recall.Query{Text: "LGBTQ support group", ResourceID: "r", Options: recall.Options{Mode: mode, TopK: 4}})
		if err != nil {
			t.Fatal(err)
		}
		recall.SortByRank(res.Hits)
		var ids []string
		for _, h := range res.Hits {
			ids = append(ids, h.MessageID)
		}
		return ids
	}
	f := newFixture(t, docs)
	if got := rank(f.ix, recall.ModeLexical); len(got) != 2 || got[0] != "q" || got[1] != "a" {
		t.Errorf("lexical: %v, want [q a] (the reply found through its question, below it)", got)
	}
	if got := rank(f.ix, recall.ModeVector); len(got) < 2 || got[0] != "q" || got[1] != "a" {
		t.Errorf("vector: %v, want q then a", got)
	}
	if got := rank(f.ix, recall.ModeHybrid); len(got) < 2 || got[0] != "q" || got[1] != "a" {
		t.Errorf("hybrid: %v, want q then a", got)
	}
	off := newFixtureWith(t, docs, recall.Tuning{ContextWeight: -1})
	if got := rank(off.ix, recall.ModeLexical); len(got) != 1 || got[0] != "q" {
		t.Errorf("lexical without the rule: %v, want [q]", got)
	}
	if err := f.ix.Remove(ctx, []string{"q"}); err != nil {
		t.Fatal(err)
	}
	if got := rank(f.ix, recall.ModeLexical); len(got) != 0 {
		t.Errorf("lexical after removing the question: %v, want nothing", got)
	}
}

// TestDateTerm: a question naming a month finds the turn said in that
// month above the same words said another month; with NoDates the two
// tie.
func TestDateTerm(t *testing.T) {
	may := time.Date(2022, 5, 20, 10, 0, 0, 0, time.UTC)
	june := time.Date(2022, 6, 20, 10, 0, 0, 0, time.UTC)
	docs := []recall.Doc{
		{ID: "june", ThreadID: "t2", ResourceID: "r", Seq: 1, Role: "user", Content: "I baked a cake with strawberry filling", CreatedAt: june},
		{ID: "may", ThreadID: "t1", ResourceID: "r", Seq: 1, Role: "user", Content: "I baked a cake with strawberry filling", CreatedAt: may},
		{ID: "other", ThreadID: "t1", ResourceID: "r", Seq: 2, Role: "user", Content: "Tomatoes need sun", CreatedAt: may},
	}
	ctx := context.Background()
	for _, c := range []struct {
		tuning recall.Tuning
		first  string
	}{{recall.Tuning{}, "may"}, {recall.Tuning{NoDates: true}, "june"}} {
		f := newFixtureWith(t, docs, c.tuning)
		res, err := f.ix.Search(ctx, recall.Query{Text: "What filling was in the cake in May 2022?", ResourceID: "r", Options: recall.Options{Mode: recall.ModeLexical, TopK: 3}})
		if err != nil {
			t.Fatal(err)
		}
		recall.SortByRank(res.Hits)
		if len(res.Hits) == 0 || res.Hits[0].MessageID != c.first {
			t.Errorf("tuning %+v: hits %+v, want %s first", c.tuning, res.Hits, c.first)
		}
	}
}

// rankIDs returns the ids of ix's hits for text in mode, in rank order.
func rankIDs(t *testing.T, ix *recall.Index, text string, mode recall.Mode, topK int) []string {
	t.Helper()
	res, err := ix.Search(context.Background(), recall.Query{Text: text, ResourceID: "r", Options: recall.Options{Mode: mode, TopK: topK}})
	if err != nil {
		t.Fatal(err)
	}
	recall.SortByRank(res.Hits)
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.MessageID)
	}
	return ids
}

// TestTurnAfter: a turn is matched through the turn after it (its reply)
// at half the reply's score, in both channels, below the reply; with
// NoTurnAfter it is not found at all.
func TestTurnAfter(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	docs := []recall.Doc{
		{ID: "said", ThreadID: "t", ResourceID: "r", Seq: 1, Role: "user", Content: "Guess what I did on Saturday!", CreatedAt: at},
		{ID: "reply", ThreadID: "t", ResourceID: "r", Seq: 2, Role: "assistant", Content: "You ran the Boston marathon, congratulations!", CreatedAt: at},
		{ID: "x", ThreadID: "u", ResourceID: "r", Seq: 1, Role: "user", Content: "Tomatoes need sun and water.", CreatedAt: at},
		{ID: "y", ThreadID: "u", ResourceID: "r", Seq: 2, Role: "assistant", Content: "Basil likes the same.", CreatedAt: at},
	}
	f := newFixture(t, docs)
	if got := rankIDs(t, f.ix, "Boston marathon", recall.ModeLexical, 4); len(got) != 2 || got[0] != "reply" || got[1] != "said" {
		t.Errorf("lexical: %v, want [reply said] (the turn found through its reply, below it)", got)
	}
	for _, mode := range []recall.Mode{recall.ModeVector, recall.ModeHybrid} {
		if got := rankIDs(t, f.ix, "Boston marathon", mode, 4); len(got) < 2 || got[0] != "reply" || got[1] != "said" {
			t.Errorf("%s: %v, want reply then said", mode, got)
		}
	}
	off := newFixtureWith(t, docs, recall.Tuning{NoTurnAfter: true})
	if got := rankIDs(t, off.ix, "Boston marathon", recall.ModeLexical, 4); len(got) != 1 || got[0] != "reply" {
		t.Errorf("lexical with NoTurnAfter: %v, want [reply]", got)
	}
}
