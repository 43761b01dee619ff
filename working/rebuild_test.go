package working_test

import (
	"context"
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
