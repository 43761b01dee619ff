package observe_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/observe"
)

func TestOldListDebrisRead(t *testing.T) { forEachBackend(t, testOldListDebrisRead) }

// testOldListDebrisRead is obs62 item 2: rows stored before obs60 hold
// "- - - fact" (one more "- " at each reflection of a reflection) and
// "- [untrusted: …] - fact"; List, Render and Search gave them as stored,
// and the reflector read them so. Now every reader sees one marker per
// item, and the stored rows are not rewritten.
func testOldListDebrisRead(t *testing.T, b backend) {
	f := newFakeModel(t, copying(false))
	src := &memSource{}
	src.add("t", 10, user("Ana keeps bees."), user("Rain in Lyon."), assistant(""))
	e := b.openEnv(t, b.Place(t), src, f.model(t), observe.Config{RecentN: -1, ReflectThreshold: 1 << 20})
	const u = observe.UntrustedMark
	stored := map[string]string{
		"old1": "- - - Ana keeps bees.\n- - Ana likes honey.",
		"old2": "- " + u + "- Rain in Lyon.\n- " + u + u + "Ana took the train.",
	}
	want := map[string]string{
		"old1": "- Ana keeps bees.\n- Ana likes honey.",
		"old2": "- " + u + "Rain in Lyon.\n- " + u + "Ana took the train.",
	}
	for i, id := range []string{"old1", "old2"} {
		if _, err := store.Bound(e.db).ExecContext(ctx, `INSERT INTO observations (id, thread_id, resource_id, from_seq, to_seq, level, content, sources, untrusted, created_at)
			VALUES (?, 't', 'res-t', ?, ?, ?, ?, '[]', ?, 1)`, id, i+1, i+1, observe.LevelReflection, stored[id], id == "old2"); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range list(t, e, "t", false) {
		if o.Content != want[o.ID] {
			t.Errorf("List: %s reads %q, want %q", o.ID, o.Content, want[o.ID])
		}
	}
	r := observe.Render(list(t, e, "t", false), nil)
	if strings.Contains(r, "- -") || strings.Contains(r, "] -") || strings.Count(r, "[untrusted: from tool output]") != 2 {
		t.Errorf("Render shows list debris:\n%s", r)
	}
	hits, err := observe.Search(ctx, e.db, observe.SearchQuery{Text: "bees", Filter: observe.Filter{ThreadID: "t"}})
	if err != nil || len(hits) != 1 || hits[0].Content != want["old1"] {
		t.Errorf("Search: %+v, %v; want old1 as %q", hits, err, want["old1"])
	}
	if _, err := e.obs.Reflect(ctx, "t", true); err != nil {
		t.Fatal(err)
	}
	if sent := f.last().Messages[1].Content; strings.Contains(sent, `"text":"- -`) || strings.Contains(sent, `] -`) {
		t.Errorf("the reflector read list debris: %s", sent)
	}
	for id, s := range stored { // the rows as stored: read-time only
		var content string
		if err := store.Bound(e.db).QueryRowContext(ctx, `SELECT content FROM observations WHERE id = ?`, id).Scan(&content); err != nil || content != s {
			t.Errorf("row %s stored %q (%v), want it unchanged %q", id, content, err, s)
		}
	}
}
