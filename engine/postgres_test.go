package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// This file holds the engine's own tests of its Postgres wiring
// (Config.Postgres); the behaviour suite over both backends is separate.
// Each test gets a throwaway schema (pgtest.DSN) and skips, with a message,
// when MNEMO_TEST_POSTGRES is unset.

// openPostgres opens an engine on dsn with working memory on (the checks of
// enginetest.MustOpen run when the test ends).
func openPostgres(t *testing.T, dsn string) *engine.Engine {
	t.Helper()
	return enginetest.MustOpen(t, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{},
		WorkingMemory: &working.Config{Schema: json.RawMessage(wmSchema)}})
}

// TestPostgresConfig: Dir and Postgres together are refused, naming both;
// an engine on Postgres has no directory.
func TestPostgresConfig(t *testing.T) {
	dsn := pgtest.DSN(t)
	_, err := engine.Open(context.Background(), engine.Config{Dir: t.TempDir(), Postgres: dsn})
	var ve *engine.ValidationError
	if !errors.As(err, &ve) || ve.Field != "Dir" || !strings.Contains(err.Error(), "Postgres") {
		t.Fatalf("Open with Dir and Postgres: %v, want a *ValidationError naming Dir and Postgres", err)
	}
	e := openPostgres(t, dsn)
	if e.Dir() != "" {
		t.Fatalf("Dir() = %q on Postgres, want \"\"", e.Dir())
	}
}

// TestPostgresRoundTrip: on Postgres, appends (idempotent, tool-call
// pairing), reads, LoadContext's recent window and memctx record, working
// memory through the tool, the journal and embeddings all work, and a
// second engine on the same database (another process's) sees all of it.
func TestPostgresRoundTrip(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	e := openPostgres(t, dsn)
	msgs := []engine.Message{
		{ID: "m1", Role: engine.RoleUser, Content: "I moved to Porto last spring"},
		{ID: "m2", Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: "weather", Arguments: json.RawMessage(`{"city":"Porto"}`)}}},
		{ID: "m3", Role: engine.RoleTool, ToolCallID: "c1", Name: "weather", Content: "sunny, 24C"},
		{ID: "m4", Role: engine.RoleAssistant, Content: "It is sunny in Porto."},
	}
	res, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "u1", Title: "moving", Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || res.Stored != 4 || fmt.Sprint(res.Seqs) != "[1 2 3 4]" {
		t.Fatalf("Append = %+v", res)
	}
	again, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", Messages: msgs[:2]})
	if err != nil || again.Stored != 0 || again.Duplicates != 2 || fmt.Sprint(again.Seqs) != "[1 2]" {
		t.Fatalf("Append again = %+v, %v; want 2 duplicates at seqs 1, 2", again, err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", Messages: []engine.Message{{ID: "m1", Role: engine.RoleUser, Content: "other"}}}); !errors.Is(err, engine.ErrConflict) {
		t.Fatalf("Append m1 with other content: %v, want ErrConflict", err)
	}
	appendUser(t, e, "t1", "u1", "What should I pack?")

	c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run1", ThreadID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(c.MemCtx.Recent); got != 5 {
		t.Fatalf("recent window of %d turns, want 5", got)
	}
	if rec, err := e.Journal().MemCtx(ctx, "run1"); err != nil || rec.ThreadID != "t1" {
		t.Fatalf("memctx record of run1: %+v, %v", rec, err)
	}
	if _, err := e.HandleToolCall(ctx, "run1", "t1", "", openaitest.ToolCall("call_1", tools.UpdateWorkingMemoryName, `{"city":"Porto"}`)); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}

	// Another engine on the database (as another process would open it).
	e2 := openPostgres(t, dsn)
	th, err := e2.GetThread(ctx, "t1")
	if err != nil || th.ResourceID != "u1" || th.MessageCount != 5 || th.Title != "moving" {
		t.Fatalf("GetThread from a second engine = %+v, %v", th, err)
	}
	got, err := e2.Messages(ctx, "t1", 1, 0)
	if err != nil || len(got) != 5 || got[2].ToolCallID != "c1" || got[1].ToolCalls[0].Name != "weather" {
		t.Fatalf("Messages from a second engine = %+v, %v", got, err)
	}
	c2, err := e2.LoadContext(ctx, engine.LoadRequest{RunID: "run2", ThreadID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if sec := wmSection(t, c2); !strings.Contains(sec, "Porto") {
		t.Fatalf("working memory not seen by the second engine:\n%s", c2.System)
	}
	if n := pgCount(t, dsn, `SELECT COUNT(*) FROM embeddings WHERE embedder = 'hash-384'`); n != 5 {
		t.Fatalf("%d embeddings stored, want 5", n)
	}
}

// pgCount runs a COUNT query on dsn.
func pgCount(t *testing.T, dsn, q string, args ...any) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// stem returns the lexical term of word (recall's analyser), which the
// lexical entries and statistics hold instead of the word.
func stem(t *testing.T, word string) string {
	t.Helper()
	terms := recall.Analyze(word)
	if len(terms) != 1 {
		t.Fatalf("%q analyses to %q, want one term", word, terms)
	}
	return terms[0]
}

// rowsHolding returns "table: n rows" for every table of the schema with a
// row whose text (every column, as Postgres prints the row, and every
// bytea column decoded) holds one of ss.
func rowsHolding(t *testing.T, dsn string, ss ...string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) < 10 {
		t.Fatalf("only %d tables in the schema: %v", len(tables), tables)
	}
	var found []string
	for _, tb := range tables {
		// A bytea column prints as hex in the row's text: it is searched
		// decoded (the journal's outputs are bytea).
		rows, err := conn.Query(ctx, `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND data_type = 'bytea'`, tb)
		if err != nil {
			t.Fatal(err)
		}
		blobs, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		where := `strpos(lower(x::text), lower($1)) > 0`
		for _, c := range blobs {
			where += fmt.Sprintf(` OR strpos(lower(encode(x.%s, 'escape')), lower($1)) > 0`, pgx.Identifier{c}.Sanitize())
		}
		for _, s := range ss {
			var n int
			q := fmt.Sprintf(`SELECT COUNT(*) FROM %s x WHERE %s`, pgx.Identifier{tb}.Sanitize(), where)
			if err := conn.QueryRow(ctx, q, s).Scan(&n); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if n > 0 {
				found = append(found, fmt.Sprintf("%s: %d rows holding %q", tb, n, s))
			}
		}
	}
	return found
}

// TestPostgresErasure: DeleteMessages, DeleteThread and DeleteResource on
// Postgres leave no row in any table (messages, embeddings, lexical
// entries and statistics, the journal's memctx previews, observations,
// working memory…) holding the erased text, while what was not erased
// stays.
func TestPostgresErasure(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	e := openPostgres(t, dsn)
	appendUser(t, e, "t1", "u1", "my locker code is zebracrossing")
	appendUser(t, e, "t1", "u1", "I keep my notes in quixotic folders")
	appendUser(t, e, "t2", "u1", "the password hint is marmalade")
	appendUser(t, e, "t3", "u2", "my favourite band is xylophonics")
	appendUser(t, e, "t4", "u2", "unrelated and kept: pumpernickel")
	for _, th := range []string{"t1", "t2", "t3"} {
		if _, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: th, Query: "what do you know"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"zebracrossing", "quixotic", "marmalade", "xylophonics", "pumpernickel"} {
		for _, s := range []string{w, stem(t, w)} {
			if len(rowsHolding(t, dsn, s)) == 0 {
				t.Fatalf("%q is stored nowhere before the erasure: the check below could not fail", s)
			}
		}
		if found := rowsHolding(t, dsn, stem(t, w)); !slices.ContainsFunc(found, func(s string) bool { return strings.HasPrefix(s, "lexical_df:") }) {
			t.Fatalf("the term of %q is not in lexical_df before the erasure (%v)", w, found)
		}
	}
	c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	first := c.MemCtx.Recent[0].MessageID
	if _, err := e.DeleteMessages(ctx, first); err != nil {
		t.Fatal(err)
	}
	if found := rowsHolding(t, dsn, "zebracrossing", stem(t, "zebracrossing")); len(found) > 0 {
		t.Errorf("after DeleteMessages the erased text is in %v", found)
	}
	if _, err := e.DeleteThread(ctx, "t2"); err != nil {
		t.Fatal(err)
	}
	if found := rowsHolding(t, dsn, "marmalade", stem(t, "marmalade")); len(found) > 0 {
		t.Errorf("after DeleteThread the erased text is in %v", found)
	}
	if _, err := e.DeleteResource(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	if found := rowsHolding(t, dsn, "quixotic", stem(t, "quixotic")); len(found) > 0 {
		t.Errorf("after DeleteResource the erased text is in %v", found)
	}
	if _, err := e.DeleteThread(ctx, "t3"); err != nil {
		t.Fatal(err)
	}
	if found := rowsHolding(t, dsn, "xylophonics", stem(t, "xylophonics")); len(found) > 0 {
		t.Errorf("after DeleteThread the erased text is in %v", found)
	}
	if found := rowsHolding(t, dsn, "pumpernickel"); len(found) == 0 {
		t.Errorf("the kept thread's text is gone")
	}
	if n := pgCount(t, dsn, `SELECT COUNT(*) FROM embeddings`); n != 1 {
		t.Errorf("%d embeddings left, want the kept message's 1", n)
	}
}

// TestPostgresConcurrentEngines: two engines on one database (as two
// processes), eight goroutines each, append to shared threads, load
// contexts and erase messages at once: every acknowledged append is stored
// at a gap-free seq (Check, when the test ends), nothing deadlocks (the
// pool holds fewer connections than there are goroutines, so a
// transaction that waited for a second connection would hang).
func TestPostgresConcurrentEngines(t *testing.T) {
	dsn := pgtest.DSN(t)
	engines := []*engine.Engine{openPostgres(t, dsn), openPostgres(t, dsn)}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	acked := map[string]bool{}
	errs := make(chan error, 64)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := engines[g%2]
			thread := fmt.Sprintf("t%d", g%3)
			for i := range 12 {
				id := fmt.Sprintf("g%d-%d", g, i)
				_, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "u1",
					Messages: []engine.Message{{ID: id, Role: engine.RoleUser, Content: "turn " + id}}})
				if err != nil {
					errs <- fmt.Errorf("append %s: %w", id, err)
					return
				}
				mu.Lock()
				acked[id] = true
				mu.Unlock()
				if _, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: thread}); err != nil {
					errs <- fmt.Errorf("load %s: %w", thread, err)
					return
				}
				if i%4 == 3 {
					if _, err := e.DeleteMessages(ctx, id); err != nil {
						errs <- fmt.Errorf("erase %s: %w", id, err)
						return
					}
					mu.Lock()
					delete(acked, id)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ids := make([]string, 0, len(acked))
	for id := range acked {
		ids = append(ids, id)
	}
	got, err := engines[0].MessagesByID(context.Background(), "u1", ids...)
	if err != nil || len(got) != len(ids) || len(ids) != 16*9 {
		t.Fatalf("%d of %d acknowledged messages stored (%v), want %d", len(got), len(ids), err, 16*9)
	}
}

// TestPostgresRecall: on Postgres a message is found lexically as soon as
// Append returns (its lexical entry is written in the append's
// transaction), by the vector channel once its embedding is stored
// (SyncIndexes), through LoadContext too, and never after its erasure.
func TestPostgresRecall(t *testing.T) {
	ctx := context.Background()
	e := openPostgres(t, pgtest.DSN(t))
	for _, m := range []struct{ id, thread, resource, text string }{
		{"dog", "t1", "u1", "We adopted a greyhound called Biscuit"},
		{"rain", "t1", "u1", "The weather was awful all week"},
		{"pepper", "t2", "u2", "Another user's greyhound is called Pepper"},
	} {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: m.thread, ResourceID: m.resource,
			Messages: []engine.Message{{ID: m.id, Role: engine.RoleUser, Content: m.text}}}); err != nil {
			t.Fatal(err)
		}
	}
	const hit = "dog"
	res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "u1", Query: "greyhound", Options: recall.Options{Mode: recall.ModeLexical}})
	if err != nil {
		t.Fatal(err)
	}
	if top := topHit(res); top != hit || res.Retrieval.Lexical != recall.StatusOK {
		t.Fatalf("lexical search right after Append: top hit %q of %+v, retrieval %+v; want %s, ok", top, res.Hits, res.Retrieval, hit)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	res, err = e.Search(ctx, engine.SearchRequest{ResourceID: "u1", Query: "We adopted a greyhound called Biscuit", Options: recall.Options{Mode: recall.ModeVector, TopK: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if topHit(res) != hit || res.Retrieval.Vector != recall.StatusOK {
		t.Fatalf("vector search: %+v, retrieval %+v; want %s", res.Hits, res.Retrieval, hit)
	}
	c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t1", RecentN: -1, Query: "greyhound", Recall: &recall.Options{}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(c.MemCtx.Recalled, func(r journal.Ref) bool { return r.MessageID == hit }) {
		t.Fatalf("LoadContext recalled %+v, want %s first", c.MemCtx.Recalled, hit)
	}
	if _, err := e.DeleteMessages(ctx, hit); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid} {
		res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "u1", Query: "greyhound Biscuit", Options: recall.Options{Mode: mode}})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if h.MessageID == hit {
				t.Fatalf("%s search returns the erased message", mode)
			}
		}
	}
}

// TestPostgresIndexesUnindexed: messages stored without a lexical entry
// (by a build that did not write them) are reported by Check and indexed
// when an engine opens the database; Reindex writes missing entries and,
// with reembed, every embedding again.
func TestPostgresIndexesUnindexed(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	cfg := engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}}
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	appendUser(t, e, "t1", "u1", "first message about sailing")
	appendUser(t, e, "t1", "u1", "second message about rowing")
	if n := pgCount(t, dsn, `WITH d AS (DELETE FROM lexical_docs RETURNING 1) SELECT COUNT(*) FROM d`); n != 2 {
		t.Fatalf("deleted %d lexical entries, want 2", n)
	}
	if err := e.Check(ctx); err == nil || !strings.Contains(err.Error(), "2 stored messages missing from the lexical entries") {
		t.Fatalf("Check = %v, want the 2 missing lexical entries", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = enginetest.MustOpen(t, cfg)
	if n := pgCount(t, dsn, `SELECT COUNT(*) FROM lexical_docs`); n != 2 {
		t.Fatalf("%d lexical entries after open, want 2", n)
	}
	res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "u1", Query: "rowing", Options: recall.Options{Mode: recall.ModeLexical}})
	if err != nil {
		t.Fatal(err)
	}
	if top := topHit(res); !slices.ContainsFunc(res.Hits, func(h recall.Hit) bool { return h.MessageID == top && h.Seq == 2 }) {
		t.Fatalf("search after open: %+v; want seq 2 ranked first", res.Hits)
	}

	// Reindex writes the entries again and, asked to, every embedding.
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if n := pgCount(t, dsn, `WITH d AS (DELETE FROM lexical_docs WHERE message_id IN (SELECT id FROM messages WHERE seq = 1) RETURNING 1) SELECT COUNT(*) FROM d`); n != 1 {
		t.Fatalf("deleted %d lexical entries, want 1", n)
	}
	before := pgCount(t, dsn, `SELECT COUNT(*) FROM embeddings`)
	if err := e.Reindex(ctx, true); err != nil {
		t.Fatal(err)
	}
	if n := pgCount(t, dsn, `SELECT COUNT(*) FROM lexical_docs`); n != 2 {
		t.Fatalf("%d lexical entries after Reindex, want 2", n)
	}
	if n := pgCount(t, dsn, `SELECT COUNT(*) FROM embeddings`); n != 2 || before != 2 {
		t.Fatalf("%d embeddings after Reindex (%d before), want 2", n, before)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// topHit returns the id of the first-ranked hit of res, "" for none.
func topHit(res *recall.Result) string {
	for _, h := range res.Hits {
		if h.Reason == recall.ReasonHit && h.Rank == 1 {
			return h.MessageID
		}
	}
	return ""
}

// TestPostgresErasureObservations: on Postgres the observer's work on an
// erased turn goes with it: after DeleteMessages of the turn, and after
// DeleteThread, no row of any table (observations, reflections, the
// journal's memoized model calls, memctx previews, lexical entries…)
// holds its text.
func TestPostgresErasureObservations(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	srv := openaitest.New(t, openaitest.WithChat(observerModel))
	e := enginetest.MustOpen(t, engine.Config{Postgres: dsn, RecentN: 4,
		Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv), Threshold: 50, ChunkTokens: 60}})
	for _, th := range []struct{ thread, id, secret string }{{"t", "secret", "tangerinequartz"}, {"t2", "other", "obsidianfalcon"}} {
		msgs := []engine.Message{{ID: th.id, Role: engine.RoleUser, Content: "my safe word is " + th.secret}}
		for i := range 20 {
			role := engine.RoleUser
			if i%2 == 0 {
				role = engine.RoleAssistant
			}
			msgs = append(msgs, engine.Message{Role: role, Content: fmt.Sprintf("%s turn %d about ordinary things", role, i)})
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: th.thread, ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	for _, th := range []string{"t", "t2"} {
		res, err := e.Observe(ctx, th, observe.Options{Force: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Observations) == 0 {
			t.Fatalf("no observation of %s", th)
		}
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", Query: "what is my safe word", Recall: &recall.Options{}}); err != nil {
		t.Fatal(err)
	}
	found := rowsHolding(t, dsn, "tangerinequartz")
	for _, table := range []string{"observations", "journal", "messages", "lexical_docs"} {
		if !slices.ContainsFunc(found, func(s string) bool { return strings.HasPrefix(s, table+":") }) {
			t.Fatalf("before the erasure the secret is not in %s (%v): the check below could not fail", table, found)
		}
	}
	if _, err := e.DeleteMessages(ctx, "secret"); err != nil {
		t.Fatal(err)
	}
	if found := rowsHolding(t, dsn, "tangerinequartz", stem(t, "tangerinequartz")); len(found) > 0 {
		t.Errorf("after DeleteMessages the erased text is in %v", found)
	}
	if _, err := e.DeleteThread(ctx, "t2"); err != nil {
		t.Fatal(err)
	}
	if found := rowsHolding(t, dsn, "obsidianfalcon", stem(t, "obsidianfalcon")); len(found) > 0 {
		t.Errorf("after DeleteThread the erased text is in %v", found)
	}
}

// TestPostgresConcurrentToolCalls: tool applications at once on one
// engine, more than the pool's default connections (each holds the
// journal's key lock on a connection of its own while the application
// runs on another), all complete.
func TestPostgresConcurrentToolCalls(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e := openPostgres(t, pgtest.DSN(t))
	appendUser(t, e, "t1", "u1", "I moved to Porto")
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.HandleToolCall(ctx, fmt.Sprintf("run%d", i), "t1", "", openaitest.ToolCall(fmt.Sprintf("call_%d", i), tools.UpdateWorkingMemoryName, fmt.Sprintf(`{"city":"Porto %d"}`, i)))
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestPostgresCheckLexicalStats: BM25 statistics rows that disagree with
// the lexical entries (a document count, a document frequency) make Check
// and the full check report the resource, naming mnemo reindex; Reindex
// recomputes them, after which Check is clean.
func TestPostgresCheckLexicalStats(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	e := enginetest.MustOpen(t, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}})
	appendUser(t, e, "t1", "u1", "first message about sailing")
	appendUser(t, e, "t1", "u1", "second message about rowing")
	appendUser(t, e, "t2", "u2", "a message of another resource")
	if err := e.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if n := pgCount(t, dsn, `WITH u AS (UPDATE lexical_stats SET docs = docs + 1 WHERE resource_id = 'u1' RETURNING 1) SELECT COUNT(*) FROM u`); n != 1 {
		t.Fatalf("changed %d lexical_stats rows, want 1", n)
	}
	if n := pgCount(t, dsn, `WITH u AS (UPDATE lexical_df SET df = df + 3 WHERE resource_id = 'u1' AND term = $1 RETURNING 1) SELECT COUNT(*) FROM u`, stem(t, "sailing")); n != 1 {
		t.Fatalf("changed %d lexical_df rows, want 1", n)
	}
	for _, full := range []bool{false, true} {
		err := e.CheckWith(ctx, engine.CheckOptions{Full: full})
		var ce *engine.CheckError
		if !errors.As(err, &ce) || !errors.Is(err, engine.ErrInconsistent) || len(ce.Problems) != 1 {
			t.Fatalf("CheckWith(full %v) = %v, want one problem", full, err)
		}
		p := ce.Problems[0]
		for _, want := range []string{"resource u1", "stored 3 documents", "recounted 2", "1 document frequency wrong", "mnemo reindex"} {
			if !strings.Contains(p, want) {
				t.Fatalf("CheckWith(full %v) problem %q lacks %q", full, p, want)
			}
		}
		if strings.Contains(p, "u2") {
			t.Fatalf("problem %q names another resource", p)
		}
	}
	if err := e.Reindex(ctx, false); err != nil {
		t.Fatal(err)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatalf("Check after Reindex = %v", err)
	}
}

// TestPostgresTagsAnswerTypesAtOpen: lexical entries whose answer types
// are not tagged (atypes NULL: a database migrated from schema version 2)
// are tagged from the messages' text when an engine opens the database,
// and the per-resource counts follow; a "When" question then ranks the
// turn holding a time expression first.
func TestPostgresTagsAnswerTypesAtOpen(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	cfg := engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}}
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	appendUser(t, e, "t1", "u1", "we talked about the support group")
	appendUser(t, e, "t1", "u1", "I went to the support group yesterday")
	appendUser(t, e, "t1", "u1", "the support group was lovely")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	tagged := `SELECT COUNT(*) FROM lexical_docs WHERE atypes IS NOT NULL`
	if n := pgCount(t, dsn, tagged); n != 3 {
		t.Fatalf("%d entries tagged after the appends, want 3", n)
	}
	pgCount(t, dsn, `WITH d AS (UPDATE lexical_docs SET atypes = NULL RETURNING 1) SELECT COUNT(*) FROM d`)
	if n := pgCount(t, dsn, `SELECT time_docs FROM lexical_stats WHERE resource_id = 'u1'`); n != 0 {
		t.Fatalf("time_docs = %d with no entry tagged, want 0", n)
	}
	e = enginetest.MustOpen(t, cfg)
	if n := pgCount(t, dsn, tagged); n != 3 {
		t.Fatalf("%d entries tagged after open, want 3", n)
	}
	if n := pgCount(t, dsn, `SELECT time_docs FROM lexical_stats WHERE resource_id = 'u1'`); n != 1 {
		t.Fatalf("time_docs = %d after open, want 1 (\"yesterday\")", n)
	}
	res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "u1", Query: "When did I go to the support group?", Options: recall.Options{Mode: recall.ModeLexical, TopK: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if top := topHit(res); !slices.ContainsFunc(res.Hits, func(h recall.Hit) bool { return h.MessageID == top && h.Seq == 2 }) {
		t.Fatalf("When question after open: %+v; want seq 2 (yesterday) first", res.Hits)
	}
}

// TestPostgresCheckFullDigests: on Postgres the full check compares every
// message with its stored digest too, and reports a message altered
// outside mnemo by thread and seq (never its text) as database damage; the
// quick check does not read the texts.
func TestPostgresCheckFullDigests(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	e := enginetest.MustOpen(t, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}})
	appendUser(t, e, "t1", "u1", "first message about sailing")
	appendUser(t, e, "t1", "u1", "second message about rowing")
	if err := e.CheckWith(ctx, engine.CheckOptions{Full: true}); err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, dsn, `UPDATE messages SET content = 'second message about rowinG' WHERE thread_id = 't1' AND seq = 2`)
	defer pgtest.Exec(t, dsn, `UPDATE messages SET content = 'second message about rowing' WHERE thread_id = 't1' AND seq = 2`)
	if err := e.Check(ctx); err != nil {
		t.Fatalf("quick check: %v", err)
	}
	err := e.CheckWith(ctx, engine.CheckOptions{Full: true})
	var ce *engine.CheckError
	if !errors.As(err, &ce) || !errors.Is(err, engine.ErrDatabaseCorrupt) || len(ce.Problems) > 0 ||
		len(ce.Database) != 1 || !strings.Contains(ce.Database[0], "message 2 of thread t1") || strings.Contains(ce.Database[0], "rowing") {
		t.Fatalf("full check: %v", err)
	}
}
