package recall_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// TestLexicalHitNotInShard checks a search while the lexical index still
// holds a message its resource's shard no longer has: the window of an
// erasure between the shard's removal and bleve's (Index.Remove), or a
// shard loaded from the store after the erasure committed and before the
// outbox removed the message from bleve. The search neither panics nor
// returns the message, in every mode, with the turn-context rule on (a
// ranked turn's neighbours are looked up) and with the turn after off.
func TestLexicalHitNotInShard(t *testing.T) {
	ctx := context.Background()
	lex, err := recall.OpenLexical(t.TempDir() + "/lexical")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var all []recall.Doc
	for i := range 6 {
		text := fmt.Sprintf("ordinary turn number %d about the weather", i)
		if i == 3 {
			text = "the saxophone lesson was on tuesday"
		}
		all = append(all, recall.Doc{ID: fmt.Sprintf("m%d", i), ThreadID: "t1", ResourceID: "r1", Seq: int64(i + 1),
			Role: "user", Content: text, CreatedAt: at.Add(time.Duration(i) * time.Minute)})
	}
	if err := lex.Index(all); err != nil {
		t.Fatal(err)
	}
	// The store no longer has m3 (erased); bleve still does.
	src := memSource{"r1": append(append([]recall.Doc{}, all[:3]...), all[4:]...)}
	for _, tuning := range []recall.Tuning{{BleveMatches: true}, {BleveMatches: true, NoTurnAfter: true}} {
		ix, err := recall.NewIndex(recall.Config{Lexical: lex, Source: src, Tuning: tuning})
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeHybrid, recall.ModeVector} {
			for _, filter := range []string{"", `{"role":"user"}`} {
				q := recall.Query{Text: "saxophone lesson", ResourceID: "r1", Options: recall.Options{Mode: mode, Filter: []byte(filter)}}
				if filter == "" {
					q.Options.Filter = nil
				}
				res, err := ix.Search(ctx, q)
				if err != nil {
					t.Fatalf("%s filter %q NoTurnAfter %v: %v", mode, filter, tuning.NoTurnAfter, err)
				}
				for _, h := range res.Hits {
					if h.MessageID == "m3" {
						t.Fatalf("%s filter %q: the erased m3 returned", mode, filter)
					}
				}
			}
		}
	}
}
