package recall_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// thread "a" has seqs 1..10, thread "b" 1..3.
func lookup(calls *int) recall.NeighbourFunc {
	return func(th string, from, to int64) ([]recall.Hit, error) {
		*calls++
		last := map[string]int64{"a": 10, "b": 3}[th]
		var out []recall.Hit
		for s := from; s <= to && s <= last; s++ {
			out = append(out, recall.Hit{MessageID: fmt.Sprintf("%s%d", th, s), ThreadID: th, Seq: s})
		}
		return out, nil
	}
}

func render(hs []recall.Hit) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "%s%d%s%d ", h.ThreadID, h.Seq, h.Reason[:1], h.Rank)
	}
	return strings.TrimSpace(b.String())
}

func TestExpandRange(t *testing.T) {
	hit := func(th string, seq int64, rank int) recall.Hit {
		return recall.Hit{MessageID: fmt.Sprintf("%s%d", th, seq), ThreadID: th, Seq: seq, Reason: recall.ReasonHit, Rank: rank}
	}
	for _, tc := range []struct {
		name string
		hits []recall.Hit
		r    recall.Range
		want string
	}{
		{"Zero", []recall.Hit{hit("a", 5, 1)}, recall.Range{}, "a5h1"},
		{"FirstSeq", []recall.Hit{hit("a", 1, 1)}, recall.Range{Before: 2, After: 1}, "a1h1 a2r1"},
		{"LastSeq", []recall.Hit{hit("b", 3, 1)}, recall.Range{Before: 1, After: 3}, "b2r1 b3h1"},
		{"BeforeNotAfter", []recall.Hit{hit("a", 5, 1)}, recall.Range{Before: 2, After: 0}, "a3r1 a4r1 a5h1"},
		{"AfterNotBefore", []recall.Hit{hit("a", 5, 1)}, recall.Range{Before: 0, After: 2}, "a5h1 a6r1 a7r1"},
		// Overlap: a4 is a neighbour of both hits and keeps the best rank;
		// a hit inside another's range stays a hit.
		{"Overlap", []recall.Hit{hit("a", 6, 2), hit("a", 3, 1), hit("a", 5, 3)}, recall.Range{Before: 1, After: 1}, "a2r1 a3h1 a4r1 a5h3 a6h2 a7r2"},
		{"Threads", []recall.Hit{hit("b", 2, 1), hit("a", 9, 2)}, recall.Range{Before: 1, After: 1}, "a8r2 a9h2 a10r2 b1r1 b2h1 b3r1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			got, err := recall.ExpandRange(tc.hits, tc.r, lookup(&calls))
			if err != nil {
				t.Fatal(err)
			}
			if render(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", render(got), tc.want)
			}
		})
	}
	t.Run("NeverTheWholeThread", func(t *testing.T) {
		wide := func(th string, from, to int64) ([]recall.Hit, error) {
			var out []recall.Hit
			for s := int64(1); s <= 10; s++ { // a lookup that ignores the bounds
				out = append(out, recall.Hit{MessageID: fmt.Sprintf("a%d", s), ThreadID: "a", Seq: s})
			}
			return out, nil
		}
		got, err := recall.ExpandRange([]recall.Hit{hit("a", 5, 1)}, recall.Range{Before: 1, After: 1}, wide)
		if err != nil || render(got) != "a4r1 a5h1 a6r1" {
			t.Fatalf("got %s (%v)", render(got), err)
		}
	})
	t.Run("ErrInvalidOptions", func(t *testing.T) {
		calls := 0
		for _, r := range []recall.Range{{Before: -1}, {After: recall.MaxMessageRange + 1}} {
			if _, err := recall.ExpandRange(nil, r, lookup(&calls)); !errors.Is(err, recall.ErrInvalidOptions) {
				t.Fatalf("%+v: err=%v", r, err)
			}
		}
	})
	t.Run("ParseRange", func(t *testing.T) {
		for in, want := range map[string]recall.Range{"2": {2, 2}, "0,3": {0, 3}, `{"before":1}`: {1, 0}} {
			got, err := recall.ParseRange(in)
			if err != nil || got != want {
				t.Fatalf("ParseRange(%q)=%+v %v, want %+v", in, got, err, want)
			}
		}
		if _, err := recall.ParseRange("-1"); !errors.Is(err, recall.ErrInvalidOptions) {
			t.Fatalf("negative range: %v", err)
		}
	})
}
