package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestMetadataNumbersExact: metadata numbers read back digit for digit as
// json.Number, so a 64-bit id survives and a message re-sent as it was
// read is a duplicate. Decoded into float64 they came back rounded
// (18446744073709551615 as 18446744073709552000), and the re-send was
// ErrConflict. Numbers still filter as numbers; one past float64 is
// refused naming it.
func TestMetadataNumbersExact(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		m := engine.Message{ID: "m1", Role: engine.RoleUser, Content: "the order shipped",
			Metadata: map[string]any{"max": uint64(math.MaxUint64), "snowflake": json.Number("1234567890123456789"),
				"min": int64(math.MinInt64), "f": 2.5, "nested": map[string]any{"id": int64(9007199254740993)}}}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{m}}); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"max": "18446744073709551615", "snowflake": "1234567890123456789", "min": "-9223372036854775808", "f": "2.5"}
		byID, err := e.MessagesByID(ctx, "r", "m1")
		if err != nil {
			t.Fatal(err)
		}
		inThread, err := e.Messages(ctx, "t", 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		for name, got := range map[string][]engine.Message{"MessagesByID": byID, "Messages": inThread} {
			if len(got) != 1 {
				t.Fatalf("%s: %d messages, want 1", name, len(got))
			}
			md := got[0].Metadata
			for k, w := range want {
				if n, ok := md[k].(json.Number); !ok || string(n) != w {
					t.Errorf("%s: metadata %s = %#v, want json.Number %s", name, k, md[k], w)
				}
			}
			if n, _ := md["nested"].(map[string]any)["id"].(json.Number); n != "9007199254740993" {
				t.Errorf("%s: metadata nested.id = %#v, want json.Number 9007199254740993", name, md["nested"])
			}
		}
		again := byID[0]
		again.ThreadID, again.ResourceID, again.Seq, again.Tokens = "", "", 0, 0
		res, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{again}})
		if err != nil || res.Duplicates != 1 {
			t.Fatalf("re-sending the message as read: %+v, %v; want a duplicate", res, err)
		}
		huge := engine.Message{Role: engine.RoleUser, Content: "x", Metadata: map[string]any{"n": json.Number("1e999")}}
		_, err = e.Append(ctx, engine.AppendRequest{ThreadID: "t", Messages: []engine.Message{huge}})
		var ve *engine.ValidationError
		if !errors.As(err, &ve) || ve.Field != "metadata" || !strings.Contains(err.Error(), "holds the number 1e999, out of the range of a 64-bit float") {
			t.Errorf("metadata 1e999: %v, want a *ValidationError on metadata naming the number", err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		hits, err := e.SearchMessages(ctx, engine.SearchRequest{ResourceID: "r", Query: "order shipped",
			Options: recall.Options{Filter: json.RawMessage(`{"metadata.f": {"$gt": 2}}`)}})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(hits.Hits), 1; got != want {
			t.Errorf("hits with metadata.f > 2: %d, want %d", got, want)
		}
	})
}
