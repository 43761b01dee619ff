package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestSearchIDs: a search without a resource, or with an id no thread can
// have, is a *ValidationError naming the field (still errors.Is
// recall.ErrInvalidQuery), from Search, SearchMessages and SearchPreviews.
// A resource id holding NUL, or of 500 bytes, was searched and answered no
// hits; a missing one was recall's bare "invalid query: no resource".
func TestSearchIDs(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("", "hello")}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		req   engine.SearchRequest
		field string
	}{
		{"NoResource", engine.SearchRequest{Query: "hello"}, "resourceId"},
		{"ResourceNUL", engine.SearchRequest{ResourceID: "r\x00", Query: "hello"}, "resourceId"},
		{"ResourceLong", engine.SearchRequest{ResourceID: strings.Repeat("r", 500), Query: "hello"}, "resourceId"},
		{"ThreadSpace", engine.SearchRequest{ResourceID: "r", ThreadID: "a b", Query: "hello", Options: recall.Options{Scope: recall.ScopeThread}}, "threadId"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for name, search := range map[string]func() error{
				"Search":         func() error { _, err := e.Search(ctx, c.req); return err },
				"SearchMessages": func() error { _, err := e.SearchMessages(ctx, c.req); return err },
				"SearchPreviews": func() error { _, err := e.SearchPreviews(ctx, c.req); return err },
			} {
				err := search()
				var ve *engine.ValidationError
				if !errors.As(err, &ve) || ve.Field != c.field || !errors.Is(err, engine.ErrInvalidInput) || !errors.Is(err, recall.ErrInvalidQuery) {
					t.Errorf("%s: %v, want a *ValidationError on %s", name, err, c.field)
				}
			}
		})
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if res, err := e.SearchMessages(ctx, engine.SearchRequest{ResourceID: "r", ThreadID: "t", Query: "hello", Options: recall.Options{Scope: recall.ScopeThread}}); err != nil || len(res.Hits) == 0 {
		t.Fatalf("a valid search: %v, %v", res, err)
	}
}

// TestSearchOptionsInvalidInput: invalid recall options given to Search,
// SearchMessages and SearchPreviews match engine.ErrInvalidInput, as
// LoadContext's do, and keep recall's error (errors.Is, errors.As) and
// text. They matched only recall's sentinels: a library user checking
// errors.Is(err, engine.ErrInvalidInput) read them as an outage.
func TestSearchOptionsInvalidInput(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("", "hello")}}); err != nil {
		t.Fatal(err)
	}
	var oe *recall.OptionError
	var fe *recall.FilterError
	var qe *recall.QueryError
	for _, c := range []struct {
		name   string
		opts   recall.Options
		thread string
		recall error // the sentinel recall's error matches
		as     any   // the type errors.As reaches
	}{
		{"RangeNegative", recall.Options{MessageRange: recall.Range{Before: -1}}, "", recall.ErrInvalidOptions, &oe},
		{"TopKTooLarge", recall.Options{TopK: recall.MaxTopK + 1}, "", recall.ErrInvalidOptions, &oe},
		{"FilterNotJSON", recall.Options{Filter: json.RawMessage(`{`)}, "", recall.ErrInvalidFilter, &fe},
		{"FilterOperator", recall.Options{Filter: json.RawMessage(`{"seq":{"$like":1}}`)}, "", recall.ErrInvalidFilter, &fe},
		{"ScopeThreadNoThread", recall.Options{Scope: recall.ScopeThread}, "", recall.ErrInvalidQuery, &qe},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := engine.SearchRequest{ResourceID: "r", ThreadID: c.thread, Query: "hello", Options: c.opts}
			for name, search := range map[string]func() error{
				"Search":         func() error { _, err := e.Search(ctx, req); return err },
				"SearchMessages": func() error { _, err := e.SearchMessages(ctx, req); return err },
				"SearchPreviews": func() error { _, err := e.SearchPreviews(ctx, req); return err },
			} {
				err := search()
				var se *engine.OptionsError
				switch {
				case !errors.Is(err, engine.ErrInvalidInput) || !errors.As(err, &se):
					t.Errorf("%s: %v, want an *engine.OptionsError matching ErrInvalidInput", name, err)
				case !errors.Is(err, c.recall) || !errors.As(err, c.as):
					t.Errorf("%s: %v, want recall's %v reachable (%T)", name, err, c.recall, c.as)
				case !strings.HasPrefix(err.Error(), "recall: "):
					t.Errorf("%s: %q, want recall's text", name, err)
				}
			}
		})
	}
}
