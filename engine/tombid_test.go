package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/legacyid"
)

// tombFault is what IDFault says of an id beginning with TombstonePrefix.
const tombFault = `, which begins with the reserved prefix "erased-"`

// TestNewIDRefusesTombstonePrefix: an id beginning with "erased-", the
// prefix of the tombstones erasure puts in place of an erased thread's or
// resource's id, is refused wherever it would name new data: it was
// stored, and a LoadContext on a new thread "erased-x" recorded a run that
// DeleteThread("erased-x") then did not find (ErrThreadNotFound: the
// runs-only paths skip tombstones). The refusal names the field and says
// the rule and the prefix; nothing is stored.
func TestNewIDRefusesTombstonePrefix(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		seedOne(t, e)
		user := func(id string) []engine.Message {
			return []engine.Message{{ID: id, Role: engine.RoleUser, Content: "hello"}}
		}
		call := []engine.Message{{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "erased-c", Name: "lookup", Arguments: json.RawMessage(`{}`)}}}}
		refused := func(what string, err error, index int, field, id string) {
			t.Helper()
			ve := validation(t, err)
			want := field + " " + engine.NewIDRule + "; got " + `"` + id + `"` + tombFault
			switch {
			case ve == nil:
			case ve.Field != field || ve.Index != index || !errors.Is(err, engine.ErrInvalidInput):
				t.Errorf("%s: field %q index %d (%v), want %q index %d", what, ve.Field, ve.Index, err, field, index)
			case !strings.Contains(ve.Rule, `not beginning with "erased-" (reserved for erased owners)`) || !strings.HasSuffix(err.Error(), want):
				t.Errorf("%s: %q, want it to end %q", what, err, want)
			}
		}
		for _, c := range []struct {
			name      string
			req       engine.AppendRequest
			index     int
			field, id string
		}{
			{"Thread", engine.AppendRequest{ThreadID: "erased-x", ResourceID: "r", Messages: user("")}, -1, "threadId", "erased-x"},
			{"Resource", engine.AppendRequest{ThreadID: "t-new", ResourceID: "erased-r", Messages: user("")}, -1, "resourceId", "erased-r"},
			{"Message", engine.AppendRequest{ThreadID: "t1", ResourceID: "r", Messages: user("erased-m")}, 0, "id", "erased-m"},
			{"ToolCall", engine.AppendRequest{ThreadID: "t1", ResourceID: "r", Messages: call}, 0, "toolCalls[0].id", "erased-c"},
		} {
			_, err := e.Append(ctx, c.req)
			refused("Append "+c.name, err, c.index, c.field, c.id)
		}
		_, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "erased-x", ResourceID: "r"})
		refused("LoadContext new thread", err, -1, "threadId", "erased-x")
		_, err = e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t-new", ResourceID: "erased-r"})
		refused("LoadContext new resource", err, -1, "resourceId", "erased-r")
		_, err = e.LoadContext(ctx, engine.LoadRequest{RunID: "erased-run", ThreadID: "t1"})
		refused("LoadContext runId", err, -1, "runId", "erased-run")
		for _, id := range []string{"erased-x", "t-new"} {
			if _, err := e.GetThread(ctx, id); !errors.Is(err, engine.ErrThreadNotFound) {
				t.Errorf("GetThread(%q) after the refusals: %v, want ErrThreadNotFound", id, err)
			}
		}
	})
}

// TestTombstonePrefixStoredReadable: a thread "erased-x" a store written
// before the rule holds (legacyid.Allow) stays readable and erasable: the
// stored ids are held to ValidID.
func TestTombstonePrefixStoredReadable(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	legacyid.Allow(e)
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "erased-x", ResourceID: "erased-r",
		Messages: []engine.Message{{ID: "erased-m", Role: engine.RoleUser, Content: "hello"}}}); err != nil {
		t.Fatal(err)
	}
	if th, err := e.GetThread(ctx, "erased-x"); err != nil || th.ResourceID != "erased-r" {
		t.Fatalf("GetThread(erased-x) = %+v, %v", th, err)
	}
	if _, err := e.DeleteThread(ctx, "erased-x"); err != nil {
		t.Fatalf("DeleteThread(erased-x): %v", err)
	}
	if _, err := e.GetThread(ctx, "erased-x"); !errors.Is(err, engine.ErrThreadNotFound) {
		t.Errorf("GetThread after DeleteThread: %v, want ErrThreadNotFound", err)
	}
}
