package recall_test

import (
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
	ps := recall.QueryDates("What did Joanna bake in May 2022, and on October 13, 2023, or in March?")
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
