package journal_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/journal"
)

// TestMemCtxTextAsGiven: a memctx record is stored without HTML escaping:
// its recall filter, a json.RawMessage read back as stored text, keeps
// "R&D <x>" as the caller gave it, and no string of the record is stored
// with a \u003c, \u003e or \u0026. Before, json.Marshal stored the filter
// as {"topic":"R\u0026D \u003cx\u003e"}, which MemCtx gave back so.
func TestMemCtxTextAsGiven(t *testing.T) { forEachBackend(t, testMemCtxTextAsGiven) }

func testMemCtxTextAsGiven(t *testing.T, b backend) {
	ctx := context.Background()
	j, closeDB := b.openJournal(t, b.Place(t))
	defer closeDB()
	const filter = `{"topic":"R&D <x>"}`
	rec := &journal.MemCtx{RunID: "run-1", ThreadID: "t1", ResourceID: "r", Query: "a & b <c>",
		Options: journal.Options{Filter: json.RawMessage(filter)}}
	if err := j.PutMemCtx(ctx, rec, false); err != nil {
		t.Fatal(err)
	}
	got, err := j.MemCtx(ctx, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Options.Filter) != filter || got.Query != rec.Query {
		t.Errorf("read back filter %s, query %q; want %s, %q", got.Options.Filter, got.Query, filter, rec.Query)
	}
	raw, err := j.Recorded(ctx, journal.ScopeMemCtx, journal.MemCtxKey("run-1"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `\u00`) {
		t.Errorf("stored record %s, want no \\u00 escape", raw)
	}
}
