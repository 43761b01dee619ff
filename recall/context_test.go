package recall_test

import (
	"context"
	"math"
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
// NoTurnAfter it is not found at all. (The exchange order rule is off:
// in hybrid mode it ranks the user's turn above the agent's reply after
// it, TestExchangeOrderRule.)
func TestTurnAfter(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	docs := []recall.Doc{
		{ID: "said", ThreadID: "t", ResourceID: "r", Seq: 1, Role: "user", Content: "Guess what I did on Saturday!", CreatedAt: at},
		{ID: "reply", ThreadID: "t", ResourceID: "r", Seq: 2, Role: "assistant", Content: "You ran the Boston marathon, congratulations!", CreatedAt: at},
		{ID: "x", ThreadID: "u", ResourceID: "r", Seq: 1, Role: "user", Content: "Tomatoes need sun and water.", CreatedAt: at},
		{ID: "y", ThreadID: "u", ResourceID: "r", Seq: 2, Role: "assistant", Content: "Basil likes the same.", CreatedAt: at},
	}
	f := newFixtureWith(t, docs, recall.Tuning{NoExchangeOrder: true})
	if got := rankIDs(t, f.ix, "Boston marathon", recall.ModeLexical, 4); len(got) != 2 || got[0] != "reply" || got[1] != "said" {
		t.Errorf("lexical: %v, want [reply said] (the turn found through its reply, below it)", got)
	}
	for _, mode := range []recall.Mode{recall.ModeVector, recall.ModeHybrid} {
		if got := rankIDs(t, f.ix, "Boston marathon", mode, 4); len(got) < 2 || got[0] != "reply" || got[1] != "said" {
			t.Errorf("%s: %v, want reply then said", mode, got)
		}
	}
	off := newFixtureWith(t, docs, recall.Tuning{NoTurnAfter: true, NoExchangeOrder: true})
	if got := rankIDs(t, off.ix, "Boston marathon", recall.ModeLexical, 4); len(got) != 1 || got[0] != "reply" {
		t.Errorf("lexical with NoTurnAfter: %v, want [reply]", got)
	}
}

// TestExchangeRule: a reply to a question is scored by the vector
// channel with the exchange's vector, the query's cosine with the sum of
// its and the question's vectors (ExchangeScore), when that beats α ×
// the question's cosine; not without the question's "?", not for the
// agent's own reply (role assistant, no name) and not with NoExchange,
// which leave max(own, α × the question's cosine). (The exchange score
// is capped at the question's cosine, which keeps the channel exact:
// TestExcludeExact failed without the cap.)
func TestExchangeRule(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const query = "What kind of counseling does Caroline want to pursue?"
	question := recall.Doc{ID: "q", ThreadID: "t", ResourceID: "r", Seq: 1, Role: "assistant", Name: "Melanie", Content: "What kind of counseling do you want to pursue?", CreatedAt: at}
	reply := recall.Doc{ID: "a", ThreadID: "t", ResourceID: "r", Seq: 2, Role: "user", Name: "Caroline", Content: "Working with trans people, helping them accept themselves.", CreatedAt: at}
	other := recall.Doc{ID: "x", ThreadID: "u", ResourceID: "r", Seq: 1, Role: "user", Content: "Tomatoes need sun and water.", CreatedAt: at}
	statement := question
	statement.Content = "Tell me the kind of counseling you want to pursue."
	agent := reply
	agent.Role, agent.Name = "assistant", ""
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		q, a     recall.Doc
		tuning   recall.Tuning
		exchange bool
	}{
		{"reply to a question", question, reply, recall.Tuning{}, true},
		{"no question mark", statement, reply, recall.Tuning{}, false},
		{"the agent's own reply", question, agent, recall.Tuning{}, false},
		{"NoExchange", question, reply, recall.Tuning{NoExchange: true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixtureWith(t, []recall.Doc{c.q, c.a, other}, c.tuning)
			vs, err := f.ix.Embedder().Embed(ctx, []string{query, c.q.Text(), c.a.Text()})
			if err != nil {
				t.Fatal(err)
			}
			own, ns, d := recall.Cosine(vs[0], vs[2]), recall.Cosine(vs[0], vs[1]), recall.Cosine(vs[1], vs[2])
			want := max(own, recall.DefaultContextWeight*ns)
			if ex := recall.ExchangeScore(own, ns, d); c.exchange {
				if ex <= want {
					t.Fatalf("fixture: exchange %.4f not above max(own, α·ns) %.4f", ex, want)
				}
				want = ex
			}
			res, err := f.ix.Search(ctx, recall.Query{Text: query, ResourceID: "r", Options: recall.Options{Mode: recall.ModeVector, TopK: 3}})
			if err != nil {
				t.Fatal(err)
			}
			var got *float64
			for _, h := range res.Hits {
				if h.MessageID == "a" {
					got = h.Vector
				}
			}
			if got == nil {
				t.Fatalf("reply not found: %+v", res.Hits)
			}
			if math.Abs(*got-want) > 1e-6 {
				t.Errorf("reply's vector score %.6f, want %.6f (own %.4f, question %.4f, d %.4f)", *got, want, own, ns, d)
			}
		})
	}
}

func TestExchangeScore(t *testing.T) {
	for _, c := range []struct{ own, prev, d, want float64 }{
		{0.5, 0.5, 1, 0.5},                  // the same vector twice: its own cosine
		{0.3, 0.7, 0, 1 / math.Sqrt(2)},     // orthogonal turns: (0.3 + 0.7) / √2
		{0.2, 0.6, 0.5, 0.8 / math.Sqrt(3)}, // (0.2 + 0.6) / √3
		{0.4, 0.9, -1, 0.4},                 // opposite vectors sum to zero: own
	} {
		if got := recall.ExchangeScore(c.own, c.prev, c.d); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ExchangeScore(%v, %v, %v) = %v, want %v", c.own, c.prev, c.d, got, c.want)
		}
	}
}

// TestRelativeDateTerm: a question naming a date finds the turn whose
// relative date points to it ("last night", said the day after) above the
// same words said another day; a turn said in the period and pointing
// into it carries the date twice and passes one only said then. With
// NoDates the words alone decide.
func TestRelativeDateTerm(t *testing.T) {
	may2 := time.Date(2022, 5, 2, 14, 0, 0, 0, time.UTC)
	june := time.Date(2022, 6, 20, 10, 0, 0, 0, time.UTC)
	docs := []recall.Doc{
		{ID: "june", ThreadID: "t2", ResourceID: "r", Seq: 1, Role: "user", Content: "I watched a great movie", CreatedAt: june},
		{ID: "rel", ThreadID: "t1", ResourceID: "r", Seq: 1, Role: "user", Content: "Last night I watched a great movie", CreatedAt: may2},
		{ID: "other", ThreadID: "t1", ResourceID: "r", Seq: 2, Role: "user", Content: "Tomatoes need sun", CreatedAt: may2},
	}
	for _, c := range []struct {
		tuning recall.Tuning
		first  string
	}{{recall.Tuning{}, "rel"}, {recall.Tuning{NoDates: true}, "june"}} {
		f := newFixtureWith(t, docs, c.tuning)
		if got := rankIDs(t, f.ix, "What movie did I watch on 1 May, 2022?", recall.ModeLexical, 3); len(got) == 0 || got[0] != c.first {
			t.Errorf("tuning %+v: %v, want %s first", c.tuning, got, c.first)
		}
	}
	twice := []recall.Doc{
		{ID: "today", ThreadID: "t", ResourceID: "r", Seq: 1, Role: "user", Content: "We painted the fence today", CreatedAt: may2},
		{ID: "yesterday", ThreadID: "t", ResourceID: "r", Seq: 2, Role: "user", Content: "We painted the fence yesterday", CreatedAt: may2},
		{ID: "june", ThreadID: "u", ResourceID: "r", Seq: 1, Role: "user", Content: "Tomatoes need sun", CreatedAt: june},
	}
	f := newFixture(t, twice)
	if got := rankIDs(t, f.ix, "What did we paint in May 2022?", recall.ModeLexical, 3); len(got) != 2 || got[0] != "yesterday" {
		t.Errorf("in May 2022: %v, want [yesterday today]", got)
	}
}
