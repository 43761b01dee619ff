package recall_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// TestAnalyzeIsLexicalTerms: the analyser without an index gives the
// terms the lexical index analyses with, Unicode folding included.
func TestAnalyzeIsLexicalTerms(t *testing.T) {
	lex, err := recall.OpenLexical("")
	if err != nil {
		t.Fatal(err)
	}
	defer lex.Close()
	for _, text := range []string{
		"", "Caroline: I went to the LGBTQ support group yesterday",
		"Résumé, STRASSE and Straße; ＡＢＣ ﬁne", "ZEPHYR-QUOTE order_id v1.2 it's can't",
		"running runs ran the and of", "が 東京 İstanbul",
	} {
		if got, want := recall.Analyze(text), lex.Terms(text); !slices.Equal(got, want) {
			t.Errorf("Analyze(%q) = %q, Lexical.Terms %q", text, got, want)
		}
	}
}

// TestQueryDatesExported: the exported periods are the lexical channel's.
func TestQueryDatesExported(t *testing.T) {
	ps := recall.QueryDates("What did Joanna bake in May 2022, and on October 13, 2023, or in March?", time.Time{}, nil)
	if len(ps) != 3 {
		t.Fatalf("got %d periods: %+v", len(ps), ps)
	}
	if !ps[0].Contains(time.Date(2023, 10, 13, 12, 0, 0, 0, time.UTC)) || ps[0].Contains(time.Date(2023, 10, 14, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("day period %+v", ps[0])
	}
	if !ps[1].Contains(time.Date(2022, 5, 31, 23, 0, 0, 0, time.UTC)) || ps[1].Contains(time.Date(2022, 6, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("month period %+v", ps[1])
	}
	if !ps[2].From.IsZero() || ps[2].Month != time.March || !ps[2].Contains(time.Date(1999, 3, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("month of any year %+v", ps[2])
	}
	if got := recall.Compounds("the ZEPHYR-QUOTE and order_id"); !slices.Equal(got, []string{"zephyr-quote", "order_id"}) {
		t.Errorf("Compounds = %q", got)
	}
}

// vecSource serves docs and the hash vectors of those not in missing.
type vecSource struct {
	docs    []recall.Doc
	missing map[string]bool
}

func (s vecSource) ResourceDocs(_ context.Context, r string, fn func(*recall.Doc) error) error {
	for i := range s.docs {
		if err := fn(&s.docs[i]); err != nil {
			return err
		}
	}
	return nil
}

func (s vecSource) ResourceVectors(ctx context.Context, _, _ string, fn func(string, []float32) error) error {
	for _, d := range s.docs {
		if !s.missing[d.ID] {
			v, _ := recall.HashEmbedder{}.Embed(ctx, []string{d.Text()})
			if err := fn(d.ID, v[0]); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestFilterKeepsLiftOfUnembedded: a turn not embedded yet is found in
// vector mode through the turn before it (the context rule) with a filter
// that allows it, as without the filter. The filtered vector search ranked
// only around embedded allowed turns, so the filter removed a turn it
// allows (seen failing before the fix: no hits).
func TestFilterKeepsLiftOfUnembedded(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	docs := []recall.Doc{
		{ID: "q", ThreadID: "t", ResourceID: "r", Seq: 1, Role: "user", Content: "How was the LGBTQ support group yesterday?", CreatedAt: at},
		{ID: "a", ThreadID: "t", ResourceID: "r", Seq: 2, Role: "assistant", Content: "It was so powerful, I cried the whole evening.", CreatedAt: at},
		{ID: "x", ThreadID: "t", ResourceID: "r", Seq: 3, Role: "user", Content: "Tomatoes need sun and water.", CreatedAt: at},
	}
	lex, err := recall.OpenLexical("")
	if err != nil {
		t.Fatal(err)
	}
	if err := lex.Index(docs); err != nil {
		t.Fatal(err)
	}
	ix, err := recall.NewIndex(recall.Config{Lexical: lex, Source: vecSource{docs, map[string]bool{"a": true}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, filter := range []string{``, `{"role":"assistant"}`} {
		res, err := ix.Search(t.Context(), recall.Query{Text: "LGBTQ support group", ResourceID: "r",
			Options: recall.Options{Mode: recall.ModeVector, TopK: 3, Filter: []byte(filter)}})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range res.Hits {
			found = found || h.MessageID == "a"
		}
		if !found {
			t.Errorf("filter %q: hits %+v, want the reply a (lifted by q)", filter, res.Hits)
		}
	}
}
