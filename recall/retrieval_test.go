package recall_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

func TestOptionsResolve(t *testing.T) {
	got, err := recall.Options{}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	want := recall.Options{TopK: recall.DefaultTopK, Scope: recall.ScopeResource, Mode: recall.ModeHybrid, Fusion: recall.DefaultFusion}
	if got.TopK != want.TopK || got.Scope != want.Scope || got.Mode != want.Mode || got.Fusion != want.Fusion {
		t.Fatalf("Resolve() = %+v, want %+v", got, want)
	}
	set := recall.Options{TopK: 3, Scope: recall.ScopeThread, Mode: recall.ModeLexical, Fusion: recall.FusionRRF, Threshold: 0.25,
		MessageRange: recall.Range{Before: 1, After: 2}, Filter: []byte(`{"role":"user"}`)}
	again, err := set.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if again.TopK != 3 || again.Scope != recall.ScopeThread || again.Mode != recall.ModeLexical || again.Fusion != recall.FusionRRF ||
		again.Threshold != 0.25 || again.MessageRange != set.MessageRange || string(again.Filter) != string(set.Filter) {
		t.Fatalf("Resolve changed set options: %+v", again)
	}
	if twice, err := got.Resolve(); err != nil || twice.TopK != got.TopK || twice.Scope != got.Scope || twice.Mode != got.Mode || twice.Fusion != got.Fusion {
		t.Fatalf("Resolve is not idempotent: %+v, %v", twice, err)
	}
	for name, o := range map[string]recall.Options{
		"TopK":   {TopK: -1},
		"Fusion": {Fusion: "max"},
		"Filter": {Filter: []byte(`{"seq":{"$like":1}}`)},
	} {
		if _, err := o.Resolve(); !errors.Is(err, recall.ErrInvalidOptions) && !errors.Is(err, recall.ErrInvalidFilter) {
			t.Errorf("%s: Resolve err = %v, want ErrInvalidOptions or ErrInvalidFilter", name, err)
		}
	}
}

// TestSearchRetrieval: Search builds the whole retrieval status, the
// caller's backlog included. The backlog's count is "up to": a message
// that owes lexical work may already be in the resource's in-memory index
// (loaded from the store at its first use), so a hit can carry a lexical
// score while the channel is catching up; one is said in the singular.
func TestSearchRetrieval(t *testing.T) {
	f := newFixture(t, corpus(40, 3))
	for _, c := range []struct {
		name    string
		mode    recall.Mode
		backlog recall.Backlog
		want    recall.Retrieval
	}{
		{"CaughtUp", recall.ModeHybrid, recall.Backlog{}, recall.Retrieval{Lexical: "ok", Vector: "ok", Embedder: recall.HashID}},
		{"NoteOnly", recall.ModeHybrid, recall.Backlog{Note: "rebuilding"}, recall.Retrieval{Lexical: "ok", Vector: "ok", Embedder: recall.HashID, Note: "rebuilding"}},
		{"Pending", recall.ModeHybrid, recall.Backlog{Pending: 3, Note: "rebuilding"},
			recall.Retrieval{Lexical: recall.StatusCatchingUp, Vector: "ok", Embedder: recall.HashID, Note: "rebuilding; up to 3 messages of this resource not indexed yet"}},
		{"PendingVectorOnly", recall.ModeVector, recall.Backlog{Pending: 2},
			recall.Retrieval{Lexical: "off", Vector: "ok", Embedder: recall.HashID, Note: "up to 2 messages of this resource not indexed yet"}},
		// Messages no index has seen yet: the vector channel, which counts
		// only the messages it holds, answered without them too.
		{"Unindexed", recall.ModeHybrid, recall.Backlog{Pending: 3, Unindexed: 2},
			recall.Retrieval{Lexical: recall.StatusCatchingUp, Vector: recall.StatusCatchingUp, Embedder: recall.HashID, Note: "up to 3 messages of this resource not indexed yet"}},
		{"UnindexedVectorOnly", recall.ModeVector, recall.Backlog{Pending: 1, Unindexed: 1},
			recall.Retrieval{Lexical: "off", Vector: recall.StatusCatchingUp, Embedder: recall.HashID, Note: "up to 1 message of this resource not indexed yet"}},
		{"PendingLexicalOnly", recall.ModeLexical, recall.Backlog{Pending: 1},
			recall.Retrieval{Lexical: recall.StatusCatchingUp, Vector: "off", Note: "up to 1 message of this resource not indexed yet"}},
		// Listed messages owing indexing that the shard holds (loaded from
		// the store after they were written: a restored copy's first
		// search) are not missing from the answer: no degradation, and no
		// note, when they are all the backlog.
		{"UnindexedHeld", recall.ModeHybrid, recall.Backlog{Pending: 2, Unindexed: 2, UnindexedIDs: []string{"m0000", "m0002"}, Note: "rebuilding"},
			recall.Retrieval{Lexical: "ok", Vector: "ok", Embedder: recall.HashID}},
		{"UnindexedHeldLexicalOnly", recall.ModeLexical, recall.Backlog{Pending: 1, Unindexed: 1, UnindexedIDs: []string{"m0004"}},
			recall.Retrieval{Lexical: "ok", Vector: "off"}},
		// One held, one the shard lacks, one deletion: the rest still counts.
		{"UnindexedPartlyHeld", recall.ModeHybrid, recall.Backlog{Pending: 3, Unindexed: 2, UnindexedIDs: []string{"m0000", "m9999"}},
			recall.Retrieval{Lexical: recall.StatusCatchingUp, Vector: recall.StatusCatchingUp, Embedder: recall.HashID, Note: "up to 2 messages of this resource not indexed yet"}},
		{"UnindexedNotHeld", recall.ModeHybrid, recall.Backlog{Pending: 1, Unindexed: 1, UnindexedIDs: []string{"m9999"}},
			recall.Retrieval{Lexical: recall.StatusCatchingUp, Vector: recall.StatusCatchingUp, Embedder: recall.HashID, Note: "up to 1 message of this resource not indexed yet"}},
		// Another resource's message is not this shard's.
		{"UnindexedOtherResource", recall.ModeHybrid, recall.Backlog{Pending: 1, Unindexed: 1, UnindexedIDs: []string{"m0001"}},
			recall.Retrieval{Lexical: recall.StatusCatchingUp, Vector: recall.StatusCatchingUp, Embedder: recall.HashID, Note: "up to 1 message of this resource not indexed yet"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := f.ix.Search(context.Background(), recall.Query{Text: "apple banana", ResourceID: "r1",
				Options: recall.Options{Mode: c.mode}, Backlog: c.backlog})
			if err != nil {
				t.Fatal(err)
			}
			if res.Retrieval != c.want {
				t.Fatalf("retrieval %+v, want %+v", res.Retrieval, c.want)
			}
		})
	}
	// A held message the search excludes (the engine's: stored again
	// while the removal of its erased text is pending) is missing from
	// the answer: still owed, and counted.
	t.Run("UnindexedHeldExcluded", func(t *testing.T) {
		res, err := f.ix.Search(context.Background(), recall.Query{Text: "apple banana", ResourceID: "r1", Options: recall.Options{Mode: recall.ModeHybrid},
			Backlog: recall.Backlog{Pending: 2, Unindexed: 2, UnindexedIDs: []string{"m0000", "m0002"}}, Exclude: map[string]bool{"m0002": true}})
		if err != nil {
			t.Fatal(err)
		}
		want := recall.Retrieval{Lexical: recall.StatusCatchingUp, Vector: recall.StatusCatchingUp, Embedder: recall.HashID, Note: "up to 1 message of this resource not indexed yet"}
		if res.Retrieval != want {
			t.Fatalf("retrieval %+v, want %+v", res.Retrieval, want)
		}
	})
	if got, want := recall.Off(), (recall.Retrieval{Lexical: "off", Vector: "off"}); got != want {
		t.Fatalf("Off() = %+v", got)
	}
	if got := recall.Unavailable("index closed"); got.Lexical != "unavailable: index closed" || got.Vector != got.Lexical {
		t.Fatalf("Unavailable = %+v", got)
	}
}
