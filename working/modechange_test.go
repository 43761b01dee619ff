package working_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/working"
)

// TestModeChange is walk39 #2: the configuration changes from schema to
// template mode (or back) while states exist. A state of the other mode
// reads and renders as what it is, a whole Set in the new mode replaces
// it as the next version, a partial update is refused naming both modes
// (MergeOver, the tool's, replaces it), the history keeps both modes and
// GetAt returns each version in its own.
func TestModeChange(t *testing.T) { forEachBackend(t, testModeChange) }

func testModeChange(t *testing.T, b backend) {
	ctx := context.Background()
	db, _ := b.openDB(t)
	clock := time.UnixMilli(1_700_000_000_000).UTC()
	now := func() time.Time { clock = clock.Add(time.Second); return clock }
	key := working.ResourceKey("ana")
	schema := mustNew(t, db, working.Config{Schema: json.RawMessage(profileSchema), Scope: working.ScopeResource, Now: now})
	tmpl := mustNew(t, db, working.Config{Template: "# User\n- Name:\n", Scope: working.ScopeResource, Now: now})
	if _, err := schema.Set(ctx, key, `{"name":"Ana","city":"Lyon"}`, working.Origin{}); err != nil {
		t.Fatal(err)
	}
	v1At := clock

	st, err := tmpl.Get(ctx, key)
	if err != nil || st.Mode != working.ModeSchema || st.Content != `{"city":"Lyon","name":"Ana"}` || st.Version != 1 || !tmpl.Foreign(st) {
		t.Fatalf("Get in template mode: %+v, %v; want the schema state v1", st, err)
	}
	text, err := tmpl.Render(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"as a markdown document", `mode="schema"`, "\"city\": \"Lyon\"", "rewrite it whole with `memory`"} {
		if !strings.Contains(text, want) {
			t.Errorf("Render lacks %q:\n%s", want, text)
		}
	}
	if note := tmpl.RenderNote(st); note != "written in schema mode, shown in a template-mode working memory" {
		t.Errorf("RenderNote = %q", note)
	}

	_, err = tmpl.Edit(ctx, key, "Lyon", "Porto", working.Origin{})
	if !errors.Is(err, working.ErrModeMismatch) || !working.Refused(err) {
		t.Fatalf("Edit of the schema state: %v, want ErrModeMismatch", err)
	}
	for _, want := range []string{"resource:ana", "schema mode", "template mode", "set the whole state"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Edit's refusal %q lacks %q", err, want)
		}
	}

	r, err := tmpl.Set(ctx, key, "# User\n- Name: Ana\n", working.Origin{})
	if err != nil || !r.Changed || r.State.Version != 2 || r.State.Mode != working.ModeTemplate {
		t.Fatalf("Set in template mode: %+v, %v; want version 2 in template mode", r, err)
	}
	if st := mustGet(t, tmpl, key); tmpl.Foreign(st) || st.Version != 2 {
		t.Fatalf("after Set: %+v", st)
	}
	if st := mustGet(t, schema, key); !schema.Foreign(st) {
		t.Fatalf("the schema memory reads %+v, want the template state", st)
	}
	if _, err := schema.Merge(ctx, key, map[string]any{"city": "Porto"}, working.Origin{}); !errors.Is(err, working.ErrModeMismatch) {
		t.Fatalf("Merge of the template state: %v, want ErrModeMismatch", err)
	}
	r, err = schema.MergeOver(ctx, key, map[string]any{"name": "Ana", "city": "Porto", "todo": nil}, working.Origin{})
	if err != nil || r.State.Version != 3 || r.State.Content != `{"city":"Porto","name":"Ana"}` || r.State.Mode != working.ModeSchema {
		t.Fatalf("MergeOver: %+v, %v; want {city:Porto,name:Ana} as version 3", r, err)
	}
	// MergeOver on a state of its own mode is Merge.
	if r, err = schema.MergeOver(ctx, key, map[string]any{"city": "Nice"}, working.Origin{}); err != nil || r.State.Content != `{"city":"Nice","name":"Ana"}` {
		t.Fatalf("MergeOver of a schema state: %+v, %v", r, err)
	}

	h, err := tmpl.History(ctx, key, 0)
	if err != nil {
		t.Fatal(err)
	}
	modes := ""
	for _, v := range h {
		modes += string(v.Mode) + " "
	}
	if modes != "schema schema template schema " {
		t.Fatalf("history modes (newest first) %q", modes)
	}
	at, err := tmpl.GetAt(ctx, key, v1At)
	if err != nil || at.Version != 1 || at.Mode != working.ModeSchema {
		t.Fatalf("GetAt v1: %+v, %v; want version 1 in schema mode", at, err)
	}
	if at, err = schema.GetAt(ctx, key, v1At.Add(time.Second)); err != nil || at.Version != 2 || at.Mode != working.ModeTemplate {
		t.Fatalf("GetAt v2: %+v, %v; want version 2 in template mode", at, err)
	}
}

// TestRenderCut: RenderState shows at most MaxChars characters of a
// state, which one written under a larger MaxChars may pass, and says so.
func TestRenderCut(t *testing.T) { forEachBackend(t, testRenderCut) }

func testRenderCut(t *testing.T, b backend) {
	db, _ := b.openDB(t)
	small := mustNew(t, db, working.Config{MaxChars: 10})
	st := working.State{Key: working.ThreadKey("t"), Mode: working.ModeTemplate, Content: "0123456789ABCDEF", Version: 4}
	text := small.RenderState(st)
	if !strings.Contains(text, "\n0123456789\n") || strings.Contains(text, "ABC") || !strings.Contains(text, "Only its first 10 of 16 characters are shown.") {
		t.Fatalf("RenderState of a 16-character state, MaxChars 10:\n%s", text)
	}
	if note := small.RenderNote(st); note != "cut to 10 of 16 characters" {
		t.Fatalf("RenderNote = %q", note)
	}
	st.Content = "0123456789"
	if note := small.RenderNote(st); note != "" || strings.Contains(small.RenderState(st), "Only its") {
		t.Fatalf("a state within MaxChars: note %q", note)
	}
}

// TestRebuildModeChange: an erasure's Rebuild over a history of both
// modes keeps a version of the other mode than the one before it whole
// (a Set after the configuration changed), drops a change made to a
// state of the mode that is gone, and stores the mode of the state it
// leads to (version and row).
func TestRebuildModeChange(t *testing.T) { forEachBackend(t, testRebuildModeChange) }

func testRebuildModeChange(t *testing.T, b backend) {
	ctx := context.Background()
	tests := []struct {
		drop     string // the run whose version is dropped
		want     string
		wantMode working.Mode
		gone     int
		version  int64 // the state's after: 4 when it changed, 3 when the newest survived
	}{
		// v1 schema, v2 the whole markdown (the switch), v3 an edit of it.
		{"r1", `{"name":"Ana"}`, working.ModeSchema, 2, 4}, // the switch gone, its edit applies to nothing of its mode
		{"r0", "# User\n- Name: Ana\n- City: Lyon\n", working.ModeTemplate, 1, 3},
		{"r2", "# User\n- Name: Ana\n", working.ModeTemplate, 1, 4},
	}
	for _, tc := range tests {
		t.Run("drop "+tc.drop, func(t *testing.T) {
			db, _ := b.openDB(t)
			key := working.ThreadKey("t")
			schema := mustNew(t, db, working.Config{Schema: []byte(`{"type":"object"}`)})
			tmpl := mustNew(t, db, working.Config{Template: "# User\n"})
			if _, err := schema.Set(ctx, key, `{"name":"Ana"}`, working.Origin{RunID: "r0", ToolCallID: "c"}); err != nil {
				t.Fatal(err)
			}
			if _, err := tmpl.Set(ctx, key, "# User\n- Name: Ana\n", working.Origin{RunID: "r1", ToolCallID: "c"}); err != nil {
				t.Fatal(err)
			}
			if _, err := tmpl.Edit(ctx, key, "- Name: Ana\n", "- Name: Ana\n- City: Lyon\n", working.Origin{RunID: "r2", ToolCallID: "c"}); err != nil {
				t.Fatal(err)
			}
			tx, err := store.Begin(ctx, db, nil)
			if err != nil {
				t.Fatal(err)
			}
			initial := func(m working.Mode) string {
				if m == working.ModeSchema {
					return "{}"
				}
				return "# User\n"
			}
			res, err := working.Rebuild(ctx, tx, key, initial, time.Now(), func(v working.Version) bool { return v.RunID == tc.drop })
			if err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			st := mustGet(t, tmpl, key)
			if st.Content != tc.want || st.Mode != tc.wantMode || res.Invalidated != tc.gone || st.Version != tc.version {
				t.Fatalf("rebuilt %q (%s, v%d), %d invalidated; want %q (%s, v%d), %d", st.Content, st.Mode, st.Version, res.Invalidated, tc.want, tc.wantMode, tc.version, tc.gone)
			}
			if h, err := tmpl.History(ctx, key, 1); err != nil || h[0].Mode != tc.wantMode {
				t.Fatalf("newest version %+v, %v; want mode %s", h, err, tc.wantMode)
			}
		})
	}
}
