package msgstore_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// This file holds conformance tests of the store's statements whose SQL
// differs between the backends (JSON lookups over tool calls, the id list
// of MessagesByID, byte counts, vectors, INSERT … SELECT), run on both
// with the same assertions.

// calls is a tool_calls column with the given call ids.
func calls(ids ...string) string {
	s := "["
	for i, id := range ids {
		if i > 0 {
			s += ","
		}
		s += `{"id":"` + id + `","name":"lookup","arguments":{"q":"x"}}`
	}
	return s + "]"
}

// toolConversation is thread t1 of r1 stored through the Appender:
//
//	1 user "café?"            5 tool c1 (a summary; full result in message_blobs)
//	2 assistant calls c1      6 assistant calls c3
//	3 tool answers c1         7 assistant calls c3 again
//	4 assistant calls c2, c1  8 tool answers c3
//
// created at seq×1000 ms, and thread t2 of r2 with one user message. The
// threads' bytes are what ThreadBytesOf counts.
var toolConversation = []msgstore.Message{
	{ID: "m1", Role: "user", Content: "café?"},
	{ID: "m2", Role: "assistant", ToolCalls: calls("c1")},
	{ID: "m3", Role: "tool", Content: "result one", ToolCallID: "c1", Name: "lookup"},
	{ID: "m4", Role: "assistant", ToolCalls: calls("c2", "c1")},
	{ID: "m5", Role: "tool", Content: "summary", ToolCallID: "c1", Name: "lookup", Truncated: true},
	{ID: "m6", Role: "assistant", ToolCalls: calls("c3")},
	{ID: "m7", Role: "assistant", ToolCalls: calls("c3")},
	{ID: "m8", Role: "tool", Content: "result three", ToolCallID: "c3", Name: "lookup"},
}

const fullResult = "the full result, ünïcode included"

// storeThread appends msgs to a new thread of resource in one transaction
// and returns the bytes it counted (as ThreadBytesOf does).
func storeThread(t testing.TB, s *msgstore.Store, thread, resource string, msgs []msgstore.Message) int64 {
	t.Helper()
	ctx := context.Background()
	var bytes int64
	err := s.Tx(ctx, func(tx *store.Tx) error {
		at := time.UnixMilli(1000).UTC()
		if _, _, err := s.ThreadHead(ctx, tx, thread); err != nil {
			return err
		}
		if err := s.CreateThread(ctx, tx, msgstore.NewThread{ID: thread, ResourceID: resource, Start: at, Active: at}); err != nil {
			return err
		}
		ap, err := s.Appender(ctx, tx)
		if err != nil {
			return err
		}
		for i, m := range msgs {
			m.ThreadID, m.ResourceID, m.Seq, m.Metadata = thread, resource, int64(i+1), `{"k":"v"}`
			m.CreatedAt, m.Tokens = time.UnixMilli(int64(i+1)*1000).UTC(), 1
			if err := ap.Insert(ctx, m, "d-"+m.ID); err != nil {
				return err
			}
			content := m.Content
			if m.Truncated {
				content = fullResult
				if err := ap.InsertBlob(ctx, m.ID, fullResult); err != nil {
					return err
				}
			}
			bytes += int64(len(content) + len(m.Name) + len(m.ToolCalls) + len(m.Metadata))
			if err := ap.QueueIndex(ctx, m.ID, resource, at); err != nil {
				return err
			}
		}
		last := time.UnixMilli(int64(len(msgs)) * 1000).UTC()
		return s.AdvanceThread(ctx, tx, msgstore.ThreadAdvance{ID: thread, LastSeq: int64(len(msgs)), Stored: int64(len(msgs)),
			Latest: last, Active: last, Bytes: bytes})
	})
	if err != nil {
		t.Fatal(err)
	}
	return bytes
}

// openTools opens a store holding toolConversation (t1 of r1) and t2 of r2.
func openTools(t *testing.T, b backend) (*msgstore.Store, store.Conn, int64) {
	t.Helper()
	s, _, db := b.openStore(t)
	bytes := storeThread(t, s, "t1", "r1", toolConversation)
	storeThread(t, s, "t2", "r2", []msgstore.Message{{ID: "n1", Role: "user", Content: "other"}})
	return s, db, bytes
}

func seqs(ms []msgstore.Message) []int64 {
	var out []int64
	for _, m := range ms {
		out = append(out, m.Seq)
	}
	return out
}

// TestPairing finds results and calls by the pairing rule (tool calls
// looked up inside the JSON column) and counts a thread's calls.
func TestPairing(t *testing.T) { forEachBackend(t, testPairing) }

func testPairing(t *testing.T, b backend) {
	ctx := context.Background()
	s, _, _ := openTools(t, b)
	for _, tc := range []struct {
		call    string
		callSeq int64
		want    int64 // the result's seq; 0: none
	}{{"c1", 2, 3}, {"c2", 4, 0}, {"c1", 4, 5}, {"c3", 6, 0}, {"c3", 7, 8}, {"c9", 1, 0}} {
		m, ok, err := s.ToolResult(ctx, "t1", tc.call, tc.callSeq)
		if err != nil || ok != (tc.want != 0) || (ok && m.Seq != tc.want) {
			t.Errorf("ToolResult(%s after %d) = seq %d, %v, %v; want %d", tc.call, tc.callSeq, m.Seq, ok, err, tc.want)
		}
	}
	for _, tc := range []struct {
		call      string
		resultSeq int64
		want      int64
	}{{"c1", 3, 2}, {"c1", 5, 4}, {"c3", 8, 7}, {"c2", 5, 4}, {"c1", 2, 0}, {"c9", 8, 0}} {
		m, ok, err := s.ToolCall(ctx, "t1", tc.call, tc.resultSeq)
		if err != nil || ok != (tc.want != 0) || (ok && (m.Seq != tc.want || m.ToolCalls != toolConversation[tc.want-1].ToolCalls)) {
			t.Errorf("ToolCall(%s before %d) = seq %d, %v, %v; want %d", tc.call, tc.resultSeq, m.Seq, ok, err, tc.want)
		}
	}
	since := int64(3000)
	for _, tc := range []struct {
		q    msgstore.CallQuery
		want int
	}{
		{msgstore.CallQuery{ThreadID: "t1", CallID: "c1", BeforeSeq: 9}, 2},
		{msgstore.CallQuery{ThreadID: "t1", CallID: "c1", BeforeSeq: 9, SinceMS: &since}, 1},
		{msgstore.CallQuery{ThreadID: "t1", CallID: "c3", BeforeSeq: 7, AfterSeq: 1}, 1},
		{msgstore.CallQuery{ThreadID: "t1", CallID: "c9", BeforeSeq: 9}, 0},
	} {
		err := s.Tx(ctx, func(tx *store.Tx) error {
			n, err := s.CountCalls(ctx, tx, tc.q)
			if err == nil && n != tc.want {
				t.Errorf("CountCalls(%+v) = %d, want %d", tc.q, n, tc.want)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestMessageReads reads messages by id (in the order asked, within a
// resource), by range, the most recent, full contents, threads and recall
// documents.
func TestMessageReads(t *testing.T) { forEachBackend(t, testMessageReads) }

func testMessageReads(t *testing.T, b backend) {
	ctx := context.Background()
	s, _, _ := openTools(t, b)
	ms, err := s.MessagesByID(ctx, "r1", []string{"m5", "nope", "m1", "n1"})
	if err != nil || len(ms) != 2 || ms[0].ID != "m5" || ms[1].ID != "m1" {
		t.Fatalf("MessagesByID(r1) = %+v, %v; want m5, m1", ms, err)
	}
	if m := ms[0]; !m.Truncated || m.Content != "summary" || m.ToolCallID != "c1" || m.Name != "lookup" || m.Metadata != `{"k":"v"}` ||
		m.CreatedAt != time.UnixMilli(5000).UTC() || m.ThreadID != "t1" || m.ResourceID != "r1" || m.Seq != 5 || m.Tokens != 1 {
		t.Errorf("m5 read as %+v", m)
	}
	if ms[1].Truncated || ms[1].Content != "café?" || ms[1].ToolCalls != "" {
		t.Errorf("m1 read as %+v", ms[1])
	}
	if ms, err := s.MessagesByID(ctx, "", []string{"n1", "m2"}); err != nil || len(ms) != 2 || ms[0].ID != "n1" || ms[1].ToolCalls != calls("c1") {
		t.Errorf("MessagesByID of any resource = %+v, %v", ms, err)
	}
	if ms, err := s.MessagesByID(ctx, "r1", nil); err != nil || len(ms) != 0 {
		t.Errorf("MessagesByID of no ids = %+v, %v", ms, err)
	}
	if ms, err := s.Messages(ctx, "t1", 2, 4); err != nil || !slices.Equal(seqs(ms), []int64{2, 3, 4}) || ms[2].ToolCalls != calls("c2", "c1") {
		t.Errorf("Messages(t1, 2..4) = %v, %v", seqs(ms), err)
	}
	if ms, err := s.Recent(ctx, "t1", 2); err != nil || !slices.Equal(seqs(ms), []int64{7, 8}) {
		t.Errorf("Recent(t1, 2) = %v, %v", seqs(ms), err)
	}
	for id, want := range map[string]string{"m5": fullResult, "m1": "café?"} {
		if got, err := s.FullContent(ctx, id); err != nil || got != want {
			t.Errorf("FullContent(%s) = %q, %v; want %q", id, got, err, want)
		}
	}
	if _, err := s.FullContent(ctx, "nope"); !errors.Is(err, msgstore.ErrNotFound) {
		t.Errorf("FullContent(nope) = %v, want ErrNotFound", err)
	}
	th, err := s.Threads(ctx, "")
	if err != nil || len(th) != 2 || th[0].ID != "t1" || th[1].ID != "t2" || th[0].LastSeq != 8 || th[0].MessageCount != 8 ||
		th[0].UpdatedAt != time.UnixMilli(8000).UTC() || th[0].CreatedAt != time.UnixMilli(1000).UTC() {
		t.Fatalf("Threads = %+v, %v", th, err)
	}
	if th, err := s.Threads(ctx, "r2"); err != nil || len(th) != 1 || th[0].ID != "t2" {
		t.Errorf("Threads(r2) = %+v, %v", th, err)
	}
	var docs []recall.Doc
	err = s.ResourceDocs(ctx, "r1", func(d *recall.Doc) error { docs = append(docs, *d); return nil })
	if err != nil || len(docs) != 8 || docs[3].ID != "m4" || docs[3].Content != recall.WithToolCalls("", []byte(calls("c2", "c1"))) ||
		docs[0].Metadata["k"] != "v" || docs[0].CreatedAt != time.UnixMilli(1000).UTC() {
		t.Fatalf("ResourceDocs(r1) = %+v, %v", docs, err)
	}
}

// TestRecentTurns reads the last messages of a thread without their
// contents or tool calls: seq order, roles and whether each makes calls.
func TestRecentTurns(t *testing.T) { forEachBackend(t, testRecentTurns) }

func testRecentTurns(t *testing.T, b backend) {
	ctx := context.Background()
	s, _, _ := openTools(t, b)
	got, err := s.RecentTurns(ctx, "t1", 3)
	want := []msgstore.TurnRef{{Seq: 6, Role: "assistant", Calls: true}, {Seq: 7, Role: "assistant", Calls: true}, {Seq: 8, Role: "tool"}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("RecentTurns(t1, 3) = %+v, %v; want %+v", got, err, want)
	}
	if got, err := s.RecentTurns(ctx, "t1", 100); err != nil || len(got) != 8 || got[0].Seq != 1 || got[0].Role != "user" {
		t.Errorf("RecentTurns(t1, 100) = %+v, %v; want all 8 from seq 1", got, err)
	}
	if got, err := s.RecentTurns(ctx, "nope", 3); err != nil || len(got) != 0 {
		t.Errorf("RecentTurns(nope) = %+v, %v; want none", got, err)
	}
}

// TestRowsReadApart reads a thread's rows in one statement (one pooled set
// of scan destinations, reused row after row) and each row alone: the same
// messages, so that no field of a row (a tool-call list, a truncation, a
// name) carries over to the next; and MessagesByIDUnordered returns each
// stored id asked for once, none of another resource.
func TestRowsReadApart(t *testing.T) { forEachBackend(t, testRowsReadApart) }

func testRowsReadApart(t *testing.T, b backend) {
	ctx := context.Background()
	s, _, _ := openTools(t, b)
	all, err := s.Messages(ctx, "t1", 1, 8)
	if err != nil || len(all) != 8 {
		t.Fatalf("Messages(t1) = %d, %v", len(all), err)
	}
	for i := len(all) - 1; i >= 0; i-- {
		one, err := s.MessagesByID(ctx, "", []string{all[i].ID})
		if err != nil || len(one) != 1 || !reflect.DeepEqual(one[0], all[i]) {
			t.Errorf("row %s alone = %+v, %v; in the thread's read %+v", all[i].ID, one, err, all[i])
		}
	}
	for i, m := range all {
		want := toolConversation[i]
		if m.ToolCalls != want.ToolCalls || m.Truncated != want.Truncated || m.Name != want.Name || m.Content != want.Content {
			t.Errorf("row %d = %+v, want %+v", i+1, m, want)
		}
	}
	ms, err := s.MessagesByIDUnordered(ctx, "r1", []string{"m5", "nope", "m1", "n1", "m5"})
	ids := make([]string, 0, len(ms))
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	slices.Sort(ids)
	if err != nil || !slices.Equal(ids, []string{"m1", "m5"}) {
		t.Errorf("MessagesByIDUnordered(r1, m5 nope m1 n1 m5) = %v, %v; want m1 and m5 once each", ids, err)
	}
	if ms, err := s.MessagesByIDUnordered(ctx, "r1", nil); err != nil || ms != nil {
		t.Errorf("MessagesByIDUnordered of no ids = %+v, %v; want nil", ms, err)
	}
}

// TestCheckReads compares threads' counters with their messages, and
// their bytes (UTF-8 bytes, full results included) with ThreadBytesOf.
func TestCheckReads(t *testing.T) { forEachBackend(t, testCheckReads) }

func testCheckReads(t *testing.T, b backend) {
	ctx := context.Background()
	s, db, bytes := openTools(t, b)
	var got []msgstore.ThreadSeqs
	if err := s.ThreadSeqs(ctx, "erased", "lost", func(ts msgstore.ThreadSeqs) { got = append(got, ts) }); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b msgstore.ThreadSeqs) int { return map[bool]int{true: -1, false: 1}[a.ID < b.ID] })
	want := []msgstore.ThreadSeqs{{ID: "t1", LastSeq: 8, MessageCount: 8, Stored: 8, MinSeq: 1, MaxSeq: 8}, {ID: "t2", LastSeq: 1, MessageCount: 1, Stored: 1, MinSeq: 1, MaxSeq: 1}}
	if !slices.Equal(got, want) {
		t.Errorf("ThreadSeqs = %+v, want %+v", got, want)
	}
	if wrong, err := s.WrongThreadBytes(ctx); err != nil || len(wrong) != 0 {
		t.Fatalf("WrongThreadBytes = %+v, %v; want none (bytes %d)", wrong, err, bytes)
	}
	if _, err := db.ExecContext(ctx, `UPDATE threads SET bytes = bytes + 1 WHERE id = ?`, "t1"); err != nil {
		t.Fatal(err)
	}
	if wrong, err := s.WrongThreadBytes(ctx); err != nil || len(wrong) != 1 || wrong[0] != (msgstore.ThreadBytes{ID: "t1", Have: bytes + 1, Want: bytes}) {
		t.Errorf("WrongThreadBytes = %+v, %v; want t1 with %d for %d", wrong, err, bytes+1, bytes)
	}
}

// TestEraseResource erases a resource: its threads and messages read in
// the transaction, rows deleted, their index rows moved out of the
// resource (msgstore.NoResource: EraseMessages, before EntombOutbox).
func TestEraseResource(t *testing.T) { forEachBackend(t, testEraseResource) }

func testEraseResource(t *testing.T, b backend) {
	ctx := context.Background()
	s, _, _ := openTools(t, b)
	if err := s.PutVectors(ctx, "e", 2, []string{"m1", "m2", "n1"}, [][]float32{{1, 0}, {0, 1}, {1, 1}}); err != nil {
		t.Fatal(err)
	}
	err := s.Tx(ctx, func(tx *store.Tx) error {
		threads, msgs, err := s.ErasedOfResource(ctx, tx, "r1")
		if err != nil {
			return err
		}
		if !slices.Equal(threads, []string{"t1"}) || len(msgs) != 8 || msgs[3].ToolCalls != `[{"id":"c2"},{"id":"c1"}]` || msgs[4].Content != "summary" {
			return fmt.Errorf("ErasedOfResource = %v, %+v", threads, msgs)
		}
		if n, err := s.EraseMessages(ctx, tx, msgs, time.UnixMilli(9000)); err != nil || n != 2 {
			return fmt.Errorf("EraseMessages = %d, %v; want 2 embeddings", n, err)
		}
		if err := s.EntombOutbox(ctx, tx, "r1", "tomb"); err != nil {
			return err
		}
		return s.DeleteThread(ctx, tx, "t1")
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Thread(ctx, "t1"); !errors.Is(err, msgstore.ErrNotFound) {
		t.Errorf("Thread(t1) after erasure: %v, want ErrNotFound", err)
	}
	rows, err := s.DueOutbox(ctx, time.UnixMilli(10_000), 100)
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]int{}
	for _, r := range rows {
		owners[r.Op+"/"+r.Resource]++
	}
	want := map[string]int{"index/" + msgstore.NoResource: 8, "index/r2": 1, "delete/r1": 8}
	if b.Dialect == store.Postgres {
		// Appends owe only embeddings (the lexical entry is written with
		// the message), and the indexes went with the rows (cascade).
		want = map[string]int{"embed/" + msgstore.NoResource: 8, "embed/r2": 1}
	}
	if fmt.Sprint(owners) != fmt.Sprint(want) {
		t.Errorf("outbox rows by op/resource = %v, want %v", owners, want)
	}
	if ids, err := s.EmbeddedIDs(ctx, "e"); err != nil || len(ids) != 1 || !ids["n1"] {
		t.Errorf("EmbeddedIDs after erasure = %v, %v; want n1", ids, err)
	}
}

// TestReembedAll: ReembedAll deletes one embedder's vectors (another's
// stay) and queues every message left without one, except a message
// whose outbox row is pending, in one call: afterwards every message
// without a vector is owed one.
func TestReembedAll(t *testing.T) { forEachBackend(t, testReembedAll) }

func testReembedAll(t *testing.T, b backend) {
	ctx := context.Background()
	s, _, _ := openTools(t, b)
	now := time.UnixMilli(50_000)
	if err := s.PutVectors(ctx, "e", 2, []string{"m1", "m2"}, [][]float32{{1, 0}, {0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutVectors(ctx, "f", 2, []string{"m1"}, [][]float32{{1, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := s.ClearIndexQueue(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.QueueAll(ctx, now); err != nil { // one row per message, then all but m3's done
		t.Fatal(err)
	}
	rows, err := s.DueOutbox(ctx, now, 100)
	if err != nil {
		t.Fatal(err)
	}
	var done []int64
	for _, r := range rows {
		if r.MessageID != "m3" {
			done = append(done, r.ID)
		}
	}
	if err := s.DeleteOutbox(ctx, done); err != nil {
		t.Fatal(err)
	}
	if n, err := s.ReembedAll(ctx, "e", now); err != nil || n != 8 {
		t.Errorf("ReembedAll = %d, %v; want 8 (9 messages, m3 pending)", n, err)
	}
	if ids, err := s.EmbeddedIDs(ctx, "e"); err != nil || len(ids) != 0 {
		t.Errorf("EmbeddedIDs(e) after ReembedAll = %v, %v; want none", ids, err)
	}
	if ids, err := s.EmbeddedIDs(ctx, "f"); err != nil || len(ids) != 1 || !ids["m1"] {
		t.Errorf("EmbeddedIDs(f) after ReembedAll = %v, %v; want m1", ids, err)
	}
	if messages, vectors, pending, err := s.EmbeddingCounts(ctx, "e"); err != nil || messages != 9 || vectors != 0 || pending != 9 {
		t.Errorf("EmbeddingCounts(e) = %d, %d, %d, %v; want 9, 0, 9", messages, vectors, pending, err)
	}
}

// TestEmbeddingsAndRequeue stores vectors and reads them per resource,
// queues the missing ones, deletes an embedder's, and rebuilds the queue.
func TestEmbeddingsAndRequeue(t *testing.T) { forEachBackend(t, testEmbeddingsAndRequeue) }

func testEmbeddingsAndRequeue(t *testing.T, b backend) {
	ctx := context.Background()
	s, _, _ := openTools(t, b)
	now := time.UnixMilli(50_000)
	want := map[string][]float32{"m1": {0.25, -1}, "m2": {3, 4}}
	if err := s.PutVectors(ctx, "e", 2, []string{"m1", "m2", "n1"}, [][]float32{want["m1"], want["m2"], {9, 9}}); err != nil {
		t.Fatal(err)
	}
	// A second store replaces the first.
	if err := s.PutVectors(ctx, "e", 2, []string{"m2"}, [][]float32{want["m2"]}); err != nil {
		t.Fatal(err)
	}
	got := map[string][]float32{}
	if err := s.ResourceVectors(ctx, "r1", "e", func(id string, v []float32) error { got[id] = slices.Clone(v); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ResourceVectors(r1) = %v, want %v", got, want)
	}
	if err := s.ClearIndexQueue(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := s.QueueMissingEmbeddings(ctx, "e", now); err != nil || n != 6 {
		t.Errorf("QueueMissingEmbeddings = %d, %v; want 6 (8 + 1 messages, 3 embedded)", n, err)
	}
	rows, err := s.DueOutbox(ctx, now, 100)
	if err != nil || len(rows) != 6 || rows[0].MessageID != "m3" || rows[0].Op != msgstore.OpEmbed {
		t.Fatalf("queued: %+v, %v", rows, err)
	}
	if n, err := s.DropDamaged(ctx, "e", 3); err != nil || n != 3 {
		t.Errorf("DropDamaged for 3 dims = %d, %v; want 3", n, err)
	}
	if err := s.PutVectors(ctx, "e", 2, []string{"m1"}, [][]float32{{1, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteEmbeddings(ctx, "e"); err != nil {
		t.Fatal(err)
	}
	if ids, err := s.EmbeddedIDs(ctx, "e"); err != nil || len(ids) != 0 {
		t.Errorf("EmbeddedIDs after DeleteEmbeddings = %v, %v", ids, err)
	}
	if err := s.DeleteOutboxOp(ctx, msgstore.OpEmbed); err != nil {
		t.Fatal(err)
	}
	if err := s.QueueAll(ctx, now); err != nil {
		t.Fatal(err)
	}
	if stored, pending, err := s.IndexBacklog(ctx); err != nil || stored != 9 || pending != 9 {
		t.Errorf("IndexBacklog = %d, %d, %v; want 9, 9", stored, pending, err)
	}
	// Queued again over the 9 index rows: still one per message.
	if n, err := s.ReplaceIndexQueue(ctx, now); err != nil || n != 9 {
		t.Fatalf("ReplaceIndexQueue = %d, %v; want 9", n, err)
	}
	if stored, pending, err := s.IndexBacklog(ctx); err != nil || stored != 9 || pending != 9 {
		t.Errorf("IndexBacklog after ReplaceIndexQueue = %d, %d, %v; want 9, 9", stored, pending, err)
	}
	if ids, err := s.MessageIDs(ctx); err != nil || len(ids) != 9 || !ids["n1"] {
		t.Errorf("MessageIDs = %v, %v", ids, err)
	}
	if n, err := s.CountMessages(ctx); err != nil || n != 9 {
		t.Errorf("CountMessages = %d, %v", n, err)
	}
}
