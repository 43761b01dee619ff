package msgstore_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

func openStore(t *testing.T, b backend) (store.Conn, *msgstore.Store) {
	t.Helper()
	s, _, db := b.openStore(t)
	return db, s
}

// appendN stores n messages of thread t1 (resource r1) through the
// Appender, queued for indexing at now, and returns their ids.
func appendN(t *testing.T, s *msgstore.Store, n int, now time.Time) []string {
	t.Helper()
	ctx := context.Background()
	ids := make([]string, n)
	err := s.Tx(ctx, func(tx *store.Tx) error {
		if err := s.CreateThread(ctx, tx, msgstore.NewThread{ID: "t1", ResourceID: "r1", Start: now, Active: now}); err != nil {
			return err
		}
		ap, err := s.Appender(ctx, tx)
		if err != nil {
			return err
		}
		for i := range ids {
			ids[i] = fmt.Sprintf("m%04d", i)
			m := msgstore.Message{ID: ids[i], ThreadID: "t1", ResourceID: "r1", Seq: int64(i + 1), Role: "user",
				Content: "text " + ids[i], Metadata: "{}", CreatedAt: now, Tokens: 1}
			if err := ap.Insert(ctx, m, "digest-"+ids[i]); err != nil {
				return err
			}
			if err := ap.QueueIndex(ctx, ids[i], "r1", now); err != nil {
				return err
			}
		}
		return s.AdvanceThread(ctx, tx, msgstore.ThreadAdvance{ID: "t1", LastSeq: int64(n), Stored: int64(n), Latest: now, Active: now})
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestAppender stores messages through the Appender and reads them back:
// the thread's head, a stored message's digest, an unknown id.
func TestAppender(t *testing.T) { forEachBackend(t, testAppender) }

func testAppender(t *testing.T, b backend) {
	ctx := context.Background()
	_, s := openStore(t, b)
	now := time.UnixMilli(1_700_000_000_000).UTC()
	appendN(t, s, 3, now)
	err := s.Tx(ctx, func(tx *store.Tx) error {
		h, ok, err := s.ThreadHead(ctx, tx, "t1")
		if err != nil || !ok || h != (msgstore.ThreadHead{ResourceID: "r1", LastSeq: 3, LastActiveMS: now.UnixMilli()}) {
			t.Errorf("ThreadHead = %+v, %v, %v", h, ok, err)
		}
		if _, ok, err := s.ThreadHead(ctx, tx, "t2"); ok || err != nil {
			t.Errorf("ThreadHead(t2) = %v, %v; want not found", ok, err)
		}
		ap, err := s.Appender(ctx, tx)
		if err != nil {
			return err
		}
		d, ok, err := ap.Lookup(ctx, "m0001")
		if err != nil || !ok || d != (msgstore.StoredDigest{ThreadID: "t1", Seq: 2, Digest: "digest-m0001", Metadata: "{}"}) {
			t.Errorf("Lookup = %+v, %v, %v", d, ok, err)
		}
		if _, ok, err := ap.Lookup(ctx, "nope"); ok || err != nil {
			t.Errorf("Lookup(nope) = %v, %v; want not found", ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	th, err := s.Thread(ctx, "t1")
	if err != nil || th.MessageCount != 3 || th.LastSeq != 3 {
		t.Fatalf("Thread = %+v, %v", th, err)
	}
}

// TestOutboxDrain reads due rows, defers some and deletes the rest across
// IN-list chunks.
func TestOutboxDrain(t *testing.T) { forEachBackend(t, testOutboxDrain) }

func testOutboxDrain(t *testing.T, b backend) {
	ctx := context.Background()
	conn, s := openStore(t, b)
	now := time.Now()
	n := store.ChunkSize + 7
	appendN(t, s, n, now)
	due, err := s.DueOutbox(ctx, now, n+10)
	if err != nil || len(due) != n {
		t.Fatalf("DueOutbox: %d rows, %v; want %d", len(due), err, n)
	}
	op := msgstore.OpIndex
	if b.Dialect == store.Postgres {
		op = msgstore.OpEmbed // the lexical entry is the appender's caller's, in its transaction
	}
	if due[0].Op != op || due[0].MessageID != "m0000" || due[0].Resource != "r1" || due[0].Attempts != 0 {
		t.Fatalf("first row %+v", due[0])
	}
	// Every appended message owes indexing on SQLite (neither index has
	// seen it, so the vector channel is catching up too); on Postgres only
	// its embedding.
	wantLex := int64(n)
	if b.Dialect == store.Postgres {
		wantLex = 0
	}
	if n, err := s.PendingIndex(ctx, "r1"); err != nil || n != wantLex {
		t.Fatalf("PendingIndex after the appends = %d, %v; want %d", n, err, wantLex)
	}
	if w, err := s.Pending(ctx, "r1"); err != nil || int64(len(w.Unindexed)) != wantLex || (wantLex > 0 && !slices.Contains(w.Unindexed, "m0000")) || w.Erased != nil {
		t.Fatalf("Pending after the appends = %d ids to index, erased %q, %v; want %d with m0000, none erased", len(w.Unindexed), w.Erased, err, wantLex)
	}
	// On SQLite (Postgres queues no delete row) a message whose removal
	// is queued is erased, listed once, whether or not it was stored
	// again (m0000: the indexes may still hold its erased text until the
	// removal is applied). It owes indexing when stored again: m0000 by
	// its own index row, listed once; m0001, whose index row was applied
	// before its removal, because the drainer indexes it again then.
	// gone's index row, queued before its erasure, left r1 with it
	// (EraseMessages).
	if b.Dialect != store.Postgres {
		for _, r := range [][3]string{{"delete", "m0000", "r1"}, {"index", "gone", msgstore.NoResource}, {"delete", "gone", "r1"}, {"index", "m0000", "r1"}} {
			if _, err := conn.ExecContext(ctx, `INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES (?, ?, ?, 0)`, r[0], r[1], r[2]); err != nil {
				t.Fatal(err)
			}
		}
		w, err := s.Pending(ctx, "r1")
		if slices.Sort(w.Erased); err != nil || strings.Join(w.Erased, ",") != "gone,m0000" {
			t.Fatalf("Pending with delete rows of m0000 (stored) and gone = erased %q, %v; want gone, m0000", w.Erased, err)
		}
		if got := w.Unindexed; int64(len(got)) != wantLex || slices.Contains(got, "gone") || len(slices.DeleteFunc(slices.Clone(got), func(id string) bool { return id != "m0000" })) != 1 {
			t.Fatalf("Pending with delete rows of m0000 (stored, queued again) and gone (not stored) = %d ids to index; want %d, m0000 once, not gone", len(got), wantLex)
		}
		if _, err := conn.ExecContext(ctx, `INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES ('delete', 'm0001', 'r1', 0)`); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, `UPDATE outbox SET resource_id = 'indexed' WHERE op = 'index' AND message_id = 'm0001'`); err != nil {
			t.Fatal(err)
		}
		w, err = s.Pending(ctx, "r1")
		if slices.Sort(w.Erased); err != nil || strings.Join(w.Erased, ",") != "gone,m0000,m0001" || int64(len(w.Unindexed)) != wantLex || !slices.Contains(w.Unindexed, "m0001") {
			t.Fatalf("Pending with a delete row of m0001 (stored, its index row applied) = erased %q, %d ids to index, %v; want gone, m0000, m0001 erased, %d to index with m0001",
				w.Erased, len(w.Unindexed), err, wantLex)
		}
		if _, err := conn.ExecContext(ctx, `UPDATE outbox SET resource_id = 'r1' WHERE resource_id = 'indexed'`); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, `DELETE FROM outbox WHERE message_id IN ('gone') OR id > ?`, due[len(due)-1].ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.ExecContext(ctx, `DELETE FROM outbox WHERE op = 'delete'`); err != nil {
		t.Fatal(err)
	}
	later := now.Add(time.Minute)
	if err := s.DeferOutbox(ctx, []msgstore.Deferral{{ID: due[0].ID, Op: msgstore.OpEmbed, NotBefore: later}}); err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, 0, n-1)
	for _, r := range due[1:] {
		ids = append(ids, r.ID)
	}
	if err := s.DeleteOutbox(ctx, ids); err != nil {
		t.Fatal(err)
	}
	if left, err := s.PendingOutbox(ctx); err != nil || left != 1 {
		t.Fatalf("PendingOutbox = %d, %v; want 1", left, err)
	}
	if due, err := s.DueOutbox(ctx, now, 10); err != nil || len(due) != 0 {
		t.Fatalf("DueOutbox before the backoff: %d rows, %v", len(due), err)
	}
	at, ok, err := s.NextOutboxDue(ctx)
	if err != nil || !ok || at.UnixMilli() != later.UnixMilli() {
		t.Fatalf("NextOutboxDue = %v, %v, %v; want %v", at, ok, err, later)
	}
	due, err = s.DueOutbox(ctx, later, 10)
	if err != nil || len(due) != 1 || due[0].Op != msgstore.OpEmbed || due[0].Attempts != 1 {
		t.Fatalf("DueOutbox after the backoff: %+v, %v", due, err)
	}
	if n, err := s.PendingIndex(ctx, "r1"); err != nil || n != 0 {
		t.Fatalf("PendingIndex = %d, %v; want 0 (an embed row owes no indexing)", n, err)
	}
}

// TestVectorsSources stores vectors guarded by their sources
// (NewVectors.Sources): only the message that still has the name, content
// and tool calls given gets its vector, for a stored embedder and for
// hash-384 (derived).
func TestVectorsSources(t *testing.T) { forEachBackend(t, testVectorsSources) }

func testVectorsSources(t *testing.T, b backend) {
	ctx := context.Background()
	_, s := openStore(t, b)
	ids := appendN(t, s, 4, time.Now())
	rows, err := s.MessagesByID(ctx, "", ids)
	if err != nil || len(rows) != len(ids) {
		t.Fatalf("MessagesByID = %d rows, %v", len(rows), err)
	}
	vecs, _ := recall.HashEmbedder{}.Embed(ctx, ids)
	sources := make([]msgstore.VectorSource, len(rows))
	for i := range rows {
		sources[i] = msgstore.SourceOf(&rows[i])
	}
	sources[1].Content += " (erased since)"
	sources[2].Name = "someone"
	sources[3].ToolCalls = `[{"id":"c1","name":"f","arguments":{}}]`
	for _, embedder := range []string{"full-384", recall.HashID} {
		if err := s.StoreVectors(ctx, msgstore.NewVectors{Embedder: embedder, Dims: recall.HashDims, IDs: ids, Vectors: vecs, Sources: sources}, nil); err != nil {
			t.Fatal(err)
		}
		got, err := s.EmbeddedIDs(ctx, embedder)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]bool{ids[0]: true}; !maps.Equal(got, want) {
			t.Errorf("%s: embedded %v; want only %s (the others' sources differ)", embedder, got, ids[0])
		}
	}
}

// TestVectors stores vectors with the batch's outbox rows deleted in the
// same transaction, reads them back across IN-list chunks (a damaged one
// and one of another dimension left out), and requeues the damaged one.
func TestVectors(t *testing.T) { forEachBackend(t, testVectors) }

func testVectors(t *testing.T, b backend) {
	ctx := context.Background()
	db, s := openStore(t, b)
	now := time.Now()
	n := store.ChunkSize + 5
	ids := appendN(t, s, n, now)
	due, err := s.DueOutbox(ctx, now, n)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]int64, len(due))
	for i, r := range due {
		rows[i] = r.ID
	}
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = []float32{float32(i), 1}
	}
	v := msgstore.NewVectors{Embedder: "e", Dims: 2, IDs: append(append([]string{}, ids...), "erased"), Vectors: append(vecs, []float32{0, 0})}
	if err := s.StoreVectors(ctx, v, rows); err != nil {
		t.Fatal(err)
	}
	if left, err := s.PendingOutbox(ctx); err != nil || left != 0 {
		t.Fatalf("PendingOutbox = %d, %v; want 0", left, err)
	}
	if b.Dialect == store.SQLite {
		// Written in the order given, across the multi-row statements'
		// chunks (a shard loads a resource's vectors in rowid order).
		rs, err := db.QueryContext(ctx, `SELECT message_id FROM embeddings ORDER BY rowid`)
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for rs.Next() {
			var id string
			if err := rs.Scan(&id); err != nil {
				t.Fatal(err)
			}
			order = append(order, id)
		}
		rs.Close()
		if !slices.Equal(order, ids) {
			t.Fatalf("embeddings in rowid order: %d rows, first %q; want the %d ids in order", len(order), order[:min(3, len(order))], len(ids))
		}
	}
	// Damage one row's blob and store another with the wrong dimension.
	if _, err := db.ExecContext(ctx, b.text(`UPDATE embeddings SET vector = x'00' WHERE message_id = ?`,
		// A vector cannot be damaged on Postgres: one of another dimension is.
		`UPDATE embeddings SET dims = 3, vector = '[0,0,0]' WHERE message_id = ?`), ids[n-1]); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, b.text(`UPDATE embeddings SET dims = 1, vector = x'00000000' WHERE message_id = ?`,
		`UPDATE embeddings SET dims = 1, vector = '[0]' WHERE message_id = ?`), ids[n-2]); err != nil {
		t.Fatal(err)
	}
	got, err := s.Vectors(ctx, "e", 2, append(ids, "erased"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n-2 || got[ids[3]][0] != 3 || got[ids[n-1]] != nil || got["erased"] != nil {
		t.Fatalf("Vectors: %d of %d, m0003 %v", len(got), n, got[ids[3]])
	}
	if d, ex, err := s.CountDamaged(ctx, "e", 2); err != nil || d != 2 || ex != ids[n-2] {
		t.Fatalf("CountDamaged = %d, %q, %v; want 2, %s", d, ex, err, ids[n-2])
	}
	k, err := s.RequeueDamaged(ctx, "e", ids[n-2:], now)
	if err != nil || k != 2 {
		t.Fatalf("RequeueDamaged = %d, %v; want 2", k, err)
	}
	due, err = s.DueOutbox(ctx, now, 10)
	if err != nil || len(due) != 2 || due[0].Op != msgstore.OpEmbed {
		t.Fatalf("queued after RequeueDamaged: %+v, %v", due, err)
	}
	msgs, vectors, pending, err := s.EmbeddingCounts(ctx, "e")
	if err != nil || msgs != int64(n) || vectors != int64(n-2) || pending != 2 {
		t.Fatalf("EmbeddingCounts = %d, %d, %d, %v", msgs, vectors, pending, err)
	}
	if q, err := s.QueueMissingEmbeddings(ctx, "e", now); err != nil || q != 0 {
		t.Fatalf("QueueMissingEmbeddings = %d, %v; want 0 (both missing ones are queued)", q, err)
	}
	if id, ok, err := s.PredominantEmbedder(ctx); err != nil || !ok || id != "e" {
		t.Fatalf("PredominantEmbedder = %q, %v, %v", id, ok, err)
	}
}

// TestAppenderBatch stores more messages than one multi-row statement
// holds (InsertAll) and reads them back as Insert and QueueIndex would
// have stored them: every field (a tool call and an empty one), the
// outbox rows in message order, and LookupAll's digests of the stored ids
// only (unknown ids absent), across its chunks.
func TestAppenderBatch(t *testing.T) { forEachBackend(t, testAppenderBatch) }

func testAppenderBatch(t *testing.T, b backend) {
	ctx := context.Background()
	_, s := openStore(t, b)
	now := time.UnixMilli(1_700_000_000_000).UTC()
	const n = 150 // more than two chunks
	ids, msgs, digests := make([]string, n), make([]msgstore.Message, n), make([]string, n)
	for i := range msgs {
		ids[i] = fmt.Sprintf("b%04d", i)
		msgs[i] = msgstore.Message{ID: ids[i], ThreadID: "t1", ResourceID: "r1", Seq: int64(i + 1), Role: "assistant",
			Content: "text " + ids[i], Metadata: `{"k":1}`, CreatedAt: now.Add(time.Duration(i) * time.Millisecond), Tokens: i}
		if i%7 == 0 {
			msgs[i].ToolCalls = `[{"id":"c","name":"f","arguments":"{}"}]`
		}
		digests[i] = "digest-" + ids[i]
	}
	err := s.Tx(ctx, func(tx *store.Tx) error {
		if err := s.CreateThread(ctx, tx, msgstore.NewThread{ID: "t1", ResourceID: "r1", Start: now, Active: now}); err != nil {
			return err
		}
		ap, err := s.Appender(ctx, tx)
		if err != nil {
			return err
		}
		if got, err := ap.LookupAll(ctx, ids[:3]); err != nil || len(got) != 0 {
			t.Errorf("LookupAll before = %v, %v; want none", got, err)
		}
		if err := ap.InsertAll(ctx, msgs, digests, now); err != nil {
			return err
		}
		got, err := ap.LookupAll(ctx, append([]string{"nope"}, ids...))
		if err != nil || len(got) != n {
			t.Fatalf("LookupAll = %d digests, %v; want %d", len(got), err, n)
		}
		for i, id := range ids {
			if want := (msgstore.StoredDigest{ThreadID: "t1", Seq: int64(i + 1), Digest: digests[i], Metadata: `{"k":1}`}); got[id] != want {
				t.Errorf("LookupAll[%s] = %+v, want %+v", id, got[id], want)
			}
		}
		return s.AdvanceThread(ctx, tx, msgstore.ThreadAdvance{ID: "t1", LastSeq: n, Stored: n, Latest: now, Active: now})
	})
	if err != nil {
		t.Fatal(err)
	}
	due, err := s.DueOutbox(ctx, now, n+10)
	if err != nil || len(due) != n {
		t.Fatalf("DueOutbox: %d rows, %v; want %d", len(due), err, n)
	}
	for i, r := range due {
		if r.MessageID != ids[i] || r.Resource != "r1" || (i > 0 && r.ID <= due[i-1].ID) {
			t.Fatalf("outbox row %d = %+v, want message %s after row %d", i, r, ids[i], due[max(i-1, 0)].ID)
		}
	}
	stored, err := s.MessagesByID(ctx, "", ids)
	if err != nil || len(stored) != n {
		t.Fatalf("MessagesByID: %d, %v", len(stored), err)
	}
	for i, m := range stored {
		w := msgs[i]
		if m.ID != w.ID || m.Seq != w.Seq || m.Content != w.Content || m.ToolCalls != w.ToolCalls || m.Tokens != w.Tokens ||
			!m.CreatedAt.Equal(w.CreatedAt) || m.Role != w.Role || m.ThreadID != "t1" || m.ResourceID != "r1" {
			t.Fatalf("stored %d = %+v, want %+v", i, m, w)
		}
	}
}

// TestDeleteOutboxAllOrNone: DeleteOutbox of more rows than one statement
// takes (store.ChunkSize) is one transaction: a statement that fails after
// the first chunk leaves every row (the drainer's batch of 512 was two
// autocommit statements, each taking the write lock from the appends).
func TestDeleteOutboxAllOrNone(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		db, s := openStore(t, b)
		now := time.Now()
		n := store.ChunkSize + 7
		appendN(t, s, n, now)
		due, err := s.DueOutbox(ctx, now, n)
		if err != nil || len(due) != n {
			t.Fatalf("DueOutbox: %d rows, %v", len(due), err)
		}
		ids := make([]int64, n)
		for i, r := range due {
			ids[i] = r.ID
		}
		last := ids[n-1] // in the second chunk
		fail := b.text(fmt.Sprintf(`CREATE TRIGGER refuse BEFORE DELETE ON outbox WHEN OLD.id = %d BEGIN SELECT RAISE(ABORT, 'refused'); END`, last),
			fmt.Sprintf(`CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN IF OLD.id = %d THEN RAISE EXCEPTION 'refused'; END IF; RETURN OLD; END $$ LANGUAGE plpgsql`, last))
		if _, err := db.ExecContext(ctx, fail); err != nil {
			t.Fatal(err)
		}
		if b.Dialect == store.Postgres {
			if _, err := db.ExecContext(ctx, `CREATE TRIGGER refuse BEFORE DELETE ON outbox FOR EACH ROW EXECUTE FUNCTION refuse()`); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.DeleteOutbox(ctx, ids); err == nil {
			t.Fatal("DeleteOutbox: no error from the refused row")
		}
		if left, err := s.PendingOutbox(ctx); err != nil || left != int64(n) {
			t.Fatalf("PendingOutbox = %d, %v; want %d (none deleted)", left, err, n)
		}
	})
}

// TestDeferReindexedResource: a delete row deferred as an index row (its
// message stored again since the erasure, and its indexing failed after
// the removal) takes the resource the message has now, so that resource's
// status counts it, not the erased message's; one whose message is
// erased again counts under no resource (msgstore.NoResource). A row
// deferred as it was keeps its resource. Before the fix every deferral
// kept the row's resource: r0's count held m0000 and r1's did not.
func TestDeferReindexedResource(t *testing.T) { forEachBackend(t, testDeferReindexedResource) }

func testDeferReindexedResource(t *testing.T, b backend) {
	ctx := context.Background()
	db, s := openStore(t, b)
	now := time.Now()
	appendN(t, s, 1, now) // m0000 in r1
	if _, err := db.ExecContext(ctx, `DELETE FROM outbox`); err != nil {
		t.Fatal(err)
	}
	// m0000 erased from r0 and stored again in r1; "gone" erased from r0
	// and stored again, then erased again; "kept" erased from r0.
	for _, id := range []string{"m0000", "gone", "kept"} {
		if _, err := db.ExecContext(ctx, `INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES (?, ?, 'r0', 0)`, msgstore.OpDelete, id); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := s.DueOutbox(ctx, now, 10)
	if err != nil || len(rows) != 3 {
		t.Fatalf("DueOutbox = %v, %v; want the 3 delete rows", rows, err)
	}
	later := now.Add(time.Hour)
	if err := s.DeferOutbox(ctx, []msgstore.Deferral{
		{ID: rows[0].ID, Op: msgstore.OpIndex, NotBefore: later},
		{ID: rows[1].ID, Op: msgstore.OpIndex, NotBefore: later},
		{ID: rows[2].ID, Op: msgstore.OpDelete, NotBefore: later},
	}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ id, op, resource string }{
		{"m0000", msgstore.OpIndex, "r1"}, {"gone", msgstore.OpIndex, msgstore.NoResource}, {"kept", msgstore.OpDelete, "r0"},
	} {
		var op, resource string
		if err := db.QueryRowContext(ctx, `SELECT op, resource_id FROM outbox WHERE message_id = ?`, c.id).Scan(&op, &resource); err != nil {
			t.Fatal(err)
		}
		if op != c.op || resource != c.resource {
			t.Errorf("%s deferred: op %q, resource %q; want %q, %q", c.id, op, resource, c.op, c.resource)
		}
	}
	for _, c := range []struct {
		resource string
		want     int64
	}{{"r0", 0}, {"r1", 1}} {
		if n, err := s.PendingIndex(ctx, c.resource); err != nil || n != c.want {
			t.Errorf("PendingIndex(%s) = %d, %v; want %d", c.resource, n, err, c.want)
		}
	}
}

// TestPendingStoredElsewhere: a message erased from resource r0 and stored
// again in r1 (same id) while its removal from r0 is queued owes r0's
// indexes nothing that could add a hit: Pending(r0) lists it as erased
// only (a search of r0 leaves its erased text out), not as owing indexing;
// one stored again in its own resource owes it (the drainer indexes it
// again as it applies the removal). Before the fix Pending matched the
// stored message by id only, and r0's search status counted m0000 as not
// indexed yet until the removal ran.
func TestPendingStoredElsewhere(t *testing.T) { forEachBackend(t, testPendingStoredElsewhere) }

func testPendingStoredElsewhere(t *testing.T, b backend) {
	ctx := context.Background()
	db, s := openStore(t, b)
	appendN(t, s, 2, time.Now()) // m0000 and m0001 in r1
	if _, err := db.ExecContext(ctx, `DELETE FROM outbox`); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]string{{"m0000", "r0"}, {"m0001", "r1"}} {
		if _, err := db.ExecContext(ctx, `INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES (?, ?, ?, 0)`, msgstore.OpDelete, r[0], r[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ resource, unindexed, erased string }{{"r0", "", "m0000"}, {"r1", "m0001", "m0001"}} {
		w, err := s.Pending(ctx, c.resource)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(w.Unindexed, ",") != c.unindexed || strings.Join(w.Erased, ",") != c.erased {
			t.Errorf("Pending(%s) = unindexed %q, erased %q; want %q, %q", c.resource, w.Unindexed, w.Erased, c.unindexed, c.erased)
		}
	}
}
