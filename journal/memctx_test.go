package journal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/journal"
)

// TestMemCtxSchema pins the memctx field names and shapes of DESIGN.md.
func TestMemCtxSchema(t *testing.T) {
	score := 0.83
	rec := journal.MemCtx{
		RunID: "ticket-9", ThreadID: "user-42", ResourceID: "user-42", Query: "q",
		Options:  journal.Options{RecentN: 10, TopK: 5, Threshold: 0.7, MessageRange: json.RawMessage("1"), Scope: "resource"},
		Recalled: []journal.Ref{{ThreadID: "user-42", Seq: 18, MessageID: "m18", Role: "user", Preview: "the refund", Score: &score, Reason: "hit"}},
		Recent:   []journal.Ref{}, Dropped: []journal.Ref{}, Observations: []journal.ObservationRef{{ID: "o1", ThreadID: "user-42", FromSeq: 1, ToSeq: 40}},
		Retrieval: journal.Retrieval{Lexical: "ok", Vector: "ok", Embedder: "hash-384"}, PromptHash: "sha256:x",
		Tokens: &journal.Tokens{Recent: 1, Recalled: 2, Observations: 3, WorkingMemory: 4, Tools: 5, Total: 15},
	}
	b, _ := json.Marshal(rec)
	var m map[string]any
	json.Unmarshal(b, &m)
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := []string{"createdAt", "droppedCount", "dropped", "observationCount", "observations", "options", "promptHash", "query", "recalled", "recent", "recentCount", "resourceId", "retrieval", "runId", "threadId", "tokens", "workingMemoryChars"}
	sort.Strings(want)
	// createdAt is added by PutMemCtx; the record above has none.
	want = want[1:]
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("memctx keys %v, want %v", keys, want)
	}
	hit := m["recalled"].([]any)[0].(map[string]any)
	for _, k := range []string{"threadId", "seq", "messageId", "role", "preview", "score", "reason"} {
		if _, ok := hit[k]; !ok {
			t.Errorf("recalled entry lacks %q: %v", k, hit)
		}
	}
	obs := m["observations"].([]any)[0].(map[string]any)
	for _, k := range []string{"id", "threadId", "fromSeq", "toSeq"} {
		if _, ok := obs[k]; !ok {
			t.Errorf("observation ref lacks %q", k)
		}
	}
	opts := m["options"].(map[string]any)
	for _, k := range []string{"recentN", "topK", "threshold", "messageRange", "scope"} {
		if _, ok := opts[k]; !ok {
			t.Errorf("options lack %q", k)
		}
	}
	// tokens: estimated tokens per part and their total (issue 19 item 8).
	tok := m["tokens"].(map[string]any)
	for _, k := range []string{"recent", "recalled", "observations", "workingMemory", "tools", "total"} {
		if _, ok := tok[k]; !ok {
			t.Errorf("tokens lack %q: %v", k, tok)
		}
	}
	if len(tok) != 6 {
		t.Errorf("tokens %v, want exactly the 6 figures", tok)
	}
	ret := m["retrieval"].(map[string]any)
	if ret["lexical"] != "ok" || ret["embedder"] != "hash-384" {
		t.Errorf("retrieval %v", ret)
	}
}

func TestMemCtxPutGetListPrune(t *testing.T) { forEachBackend(t, testMemCtxPutGetListPrune) }

func testMemCtxPutGetListPrune(t *testing.T, b backend) {
	ctx := context.Background()
	j, closeDB := b.openJournal(t, b.Place(t))
	defer closeDB()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	j = journal.JournalWithClock(t, j, &clock)
	for i := range 5 {
		clock = clock.Add(time.Minute)
		rec := &journal.MemCtx{RunID: fmt.Sprintf("run-%d", i), ThreadID: "t1", ResourceID: "r"}
		if err := j.PutMemCtx(ctx, rec, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.PutMemCtx(ctx, &journal.MemCtx{RunID: "run-0", ThreadID: "t1", ResourceID: "r"}, false); !errors.Is(err, journal.ErrRunExists) {
		t.Fatalf("err = %v, want ErrRunExists", err)
	}
	if err := j.PutMemCtx(ctx, &journal.MemCtx{RunID: "other", ThreadID: "t2", ResourceID: "r"}, false); err != nil {
		t.Fatal(err)
	}
	runs, err := j.ListRuns(ctx, journal.RunFilter{ThreadID: "t1", Limit: 2, Offset: 1})
	if err != nil || len(runs) != 2 || runs[0].RunID != "run-3" || runs[1].RunID != "run-2" {
		t.Fatalf("page = %+v, %v", runs, err)
	}
	if runs, _ := j.ListRuns(ctx, journal.RunFilter{ResourceID: "r"}); len(runs) != 6 {
		t.Fatalf("resource runs %d, want 6", len(runs))
	}
	if _, err := j.MemCtx(ctx, "nope"); !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	n, err := j.Prune(ctx, "t1", journal.Retention{KeepRuns: 3})
	if err != nil || n != 2 {
		t.Fatalf("pruned %d, %v; want 2", n, err)
	}
	n, _ = j.Prune(ctx, "t1", journal.Retention{MaxAge: 30 * time.Second})
	if n != 2 {
		t.Fatalf("pruned by age %d, want 2", n)
	}
	runs, _ = j.ListRuns(ctx, journal.RunFilter{ThreadID: "t1"})
	if len(runs) != 1 || runs[0].RunID != "run-4" {
		t.Fatalf("left %+v", runs)
	}
	if n, _ := j.Prune(ctx, "t2", journal.Retention{}); n != 0 {
		t.Fatal("zero retention deleted runs")
	}
}

// TestPutMemCtxBytes pins the stored record's bytes to json.Marshal's
// without HTML escaping ("<", ">" and "&" as they are, U+2028 escaped):
// PutMemCtx encodes into a pooled buffer (issue 14), and the stored JSON
// must not change otherwise. Two records in a row check that a reused
// buffer holds nothing of the one before.
func TestPutMemCtxBytes(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		j, closeDB := b.openJournal(t, b.Place(t))
		defer closeDB()
		ctx := context.Background()
		score := 0.5
		for i, q := range []string{"a <longer> query & \"quotes\" \u2028 é with more text in it", "short"} {
			rec := &journal.MemCtx{
				RunID: fmt.Sprint("run-", i), ThreadID: "t", ResourceID: "r", Query: q, PromptHash: "sha256:x",
				Recalled: []journal.Ref{{ThreadID: "t", Seq: 3, MessageID: "m3", Role: "user", Preview: "<p>", Score: &score, Reason: "hit"}},
				Recent:   []journal.Ref{}, Dropped: []journal.Ref{}, Observations: []journal.ObservationRef{},
			}
			if err := j.PutMemCtx(ctx, rec, false); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(rec); err != nil {
				t.Fatal(err)
			}
			want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
			got, err := j.Recorded(ctx, journal.ScopeMemCtx, journal.MemCtxKey(rec.RunID))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("stored memctx\n%s\nwant\n%s", got, want)
			}
		}
	})
}
