package working_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/working"
)

// TestRebuild drops versions of a history and checks the state rebuilt
// from the others' changes, in both modes.
func TestRebuild(t *testing.T) { forEachBackend(t, testRebuild) }

func testRebuild(t *testing.T, b backend) {
	ctx := context.Background()
	tests := []struct {
		name    string
		cfg     working.Config
		updates []string // Set contents, one version each, written by runs r0, r1…
		drop    string   // the run whose version is dropped
		want    string   // the rebuilt state
		gone    int      // versions removed
		bump    bool     // the state gets a new version
	}{
		{"SchemaField", working.Config{Schema: []byte(`{"type":"object"}`)},
			[]string{`{"name":"X"}`, `{"city":"Porto","name":"X"}`, `{"city":"Lisbon","name":"X"}`}, "r0", `{"city":"Lisbon"}`, 1, true},
		{"SchemaOverwrittenLater", working.Config{Schema: []byte(`{"type":"object"}`)},
			[]string{`{"city":"Porto"}`, `{"city":"Lisbon"}`}, "r0", `{"city":"Lisbon"}`, 1, false},
		{"SchemaNoLongerChanges", working.Config{Schema: []byte(`{"type":"object"}`)},
			[]string{`{"pet":"cat"}`, `{"name":"X","pet":"cat"}`, `{"pet":"cat"}`}, "r1", `{"pet":"cat"}`, 2, true},
		{"TemplateAppendAfterDropped", working.Config{Template: "# Notes\n"},
			[]string{"# Notes\n- name: X\n", "# Notes\n- name: X\n- city: Porto\n", "# Notes\n- name: X\n- city: Lisbon\n"}, "r0", "# Notes\n- city: Lisbon\n", 1, true},
		{"TemplateEditBeforeDropped", working.Config{Template: "# Notes\n- city: ?\n"},
			[]string{"# Notes\n- city: ?\n- name: X\n", "# Notes\n- city: Porto\n- name: X\n"}, "r0", "# Notes\n- city: Porto\n", 1, true},
		{"TemplateEditOfDroppedText", working.Config{Template: "# Notes\n"},
			[]string{"# Notes\n- name: X\n", "# Notes\n- name: X Y\n", "# Notes\n- name: X Y\n- pet: cat\n"}, "r0", "# Notes\n- pet: cat\n", 2, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, _ := b.openDB(t)
			m := mustNew(t, db, tc.cfg)
			key := working.ThreadKey("t")
			for i, c := range tc.updates {
				if _, err := m.Set(ctx, key, c, working.Origin{RunID: "r" + string(rune('0'+i)), ToolCallID: "call_0"}); err != nil {
					t.Fatal(err)
				}
			}
			tx, err := store.Begin(ctx, db, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := working.Rebuild(ctx, tx, key, func(working.Mode) string { return m.Initial() }, time.Now(),
				func(v working.Version) bool { return v.RunID == tc.drop })
			if err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if res.Invalidated != tc.gone {
				t.Errorf("Invalidated = %d, want %d", res.Invalidated, tc.gone)
			}
			st, err := m.Get(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if st.Content != tc.want {
				t.Errorf("state = %q, want %q", st.Content, tc.want)
			}
			want := int64(len(tc.updates))
			if tc.bump {
				want++ // a new version for the rebuilt state
			}
			if st.Version != want {
				t.Errorf("version = %d, want %d", st.Version, want)
			}
			hist, err := m.History(ctx, key, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range hist {
				if strings.Contains(v.Content, "X") {
					t.Errorf("version %d keeps the dropped text: %q", v.Version, v.Content)
				}
			}
			if hist[0].Content != tc.want {
				t.Errorf("newest history version %q, want the state %q", hist[0].Content, tc.want)
			}
		})
	}
}

// TestRebuildClearedKeepsNumbering: an erasure that leaves no version
// clears the state under the next number, and later writes go on from
// there: v1 Lyon, v2 Porto, both erased → v3 is the initial state and the
// next write is v4, never a second v1 or v2 (walk37 #4: the state was
// deleted and the next write was v1 again, a new content under a number
// that tool results of surviving turns still name).
func TestRebuildClearedKeepsNumbering(t *testing.T) {
	forEachBackend(t, testRebuildClearedKeepsNumbering)
}

func testRebuildClearedKeepsNumbering(t *testing.T, b backend) {
	ctx := context.Background()
	db, _ := b.openDB(t)
	m := mustNew(t, db, working.Config{Schema: []byte(`{"type":"object"}`), Scope: working.ScopeResource})
	key := working.ResourceKey("ana")
	for i, c := range []string{`{"city":"Lyon"}`, `{"city":"Porto"}`} {
		if _, err := m.Set(ctx, key, c, working.Origin{RunID: fmt.Sprintf("r%d", i), ToolCallID: "call_0", ResourceID: "ana"}); err != nil {
			t.Fatal(err)
		}
	}
	rebuild := func(drop func(working.Version) bool) working.RebuildResult {
		t.Helper()
		tx, err := store.Begin(ctx, db, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := working.Rebuild(ctx, tx, key, nil, time.Now(), drop)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := rebuild(func(v working.Version) bool { return v.RunID != "" })
	if !res.Cleared || res.Invalidated != 2 {
		t.Errorf("rebuild = %+v, want Cleared and 2 invalidated", res)
	}
	st, err := m.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if st.Content != "{}" || st.Version != 3 || st.ResourceID != "ana" {
		t.Errorf("state after the erasure = %q v%d owner %q, want {} v3 owner ana", st.Content, st.Version, st.ResourceID)
	}
	r, err := m.Merge(ctx, key, map[string]any{"city": "Braga"}, working.Origin{RunID: "r2", ToolCallID: "call_0", ResourceID: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	if r.State.Version != 4 {
		t.Errorf("next write is version %d, want 4", r.State.Version)
	}
	// A second erasure taking v4 clears again, under v5.
	res = rebuild(func(v working.Version) bool { return v.RunID == "r2" })
	if st, err = m.Get(ctx, key); err != nil {
		t.Fatal(err)
	}
	if !res.Cleared || st.Content != "{}" || st.Version != 5 {
		t.Errorf("second erasure: %+v, state %q v%d, want cleared {} v5", res, st.Content, st.Version)
	}
	hist, err := m.History(ctx, key, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range hist {
		got = append(got, fmt.Sprintf("v%d %s %q", v.Version, v.Content, v.RunID))
	}
	if want := []string{`v5 {} ""`}; !slices.Equal(got, want) {
		t.Errorf("history = %q, want %q", got, want)
	}
}
