package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
)

// filesContaining returns the files under dir whose bytes contain tok.
func filesContaining(t *testing.T, dir, tok string) []string {
	t.Helper()
	var hits []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		// A file that vanished between the directory listing and its read
		// (bleve removing a segment its background merge replaced) holds
		// nothing any more: what matters is what stays on disk.
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(tok)) {
			hits = append(hits, strings.TrimPrefix(p, dir))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// drainEvents returns the events buffered in ch.
func drainEvents(ch chan engine.Event) []engine.Event {
	var out []engine.Event
	for {
		select {
		case ev := <-ch:
			out = append(out, ev)
		default:
			return out
		}
	}
}

func hasEvent(evs []engine.Event, r engine.EventReason) bool {
	for _, ev := range evs {
		if ev.Reason == r {
			return true
		}
	}
	return false
}

// secretToken is planted in erased turns; the file scan looks for it. It is
// lowercase alphanumeric so the English analyzer indexes it unchanged.
const secretToken = "zqxwvplughsecret"

// eraseFixture is a thread t (resource r) of 8 turns, with the secret in
// turn 3 (user), turn 5 (a large tool result stored by reference) and an
// observation of turns 3-4, a run whose memctx recorded turn 3, and a second
// resource r2 that must stay untouched.
func eraseFixture(t *testing.T, be enginetest.Backend, cfg engine.Config) *engine.Engine {
	t.Helper()
	ctx := context.Background()
	e := be.MustOpen(t, cfg)
	big := strings.Repeat("lorem ipsum dolor ", 2000) + " " + secretToken + " tail"
	msgs := []engine.Message{
		user("m1", "we talked about the garden and tomatoes"),
		user("m2", "the weather was cold in march"),
		user("m3", "my bank pin is "+secretToken+" keep it safe"),
		{ID: "m4", Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: "lookup", Arguments: []byte(`{"q":"pin"}`)}}},
		{ID: "m5", Role: engine.RoleTool, ToolCallID: "c1", Content: big},
		user("m6", "let us plan the trip to lisbon"),
		user("m7", "trains are better than planes"),
		user("m8", "what was my pin again?"),
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "u", ResourceID: "r2", Messages: []engine.Message{
		user("o1", "another resource talks about pins and gardens"),
	}}); err != nil {
		t.Fatal(err)
	}
	db := engine.ConnOf(e)
	for _, q := range []string{
		`INSERT INTO observations (id, thread_id, resource_id, from_seq, to_seq, level, content, created_at) VALUES ('ob1','t','r',1,2,'observation','user gardens',1)`,
		`INSERT INTO observations (id, thread_id, resource_id, from_seq, to_seq, level, content, created_at, retired_at) VALUES ('ob2','t','r',3,4,'observation','pin is ` + secretToken + `',1,2)`,
		`INSERT INTO observations (id, thread_id, resource_id, from_seq, to_seq, level, content, sources, created_at) VALUES ('rf1','t','r',1,4,'reflection','condensed: pin ` + secretToken + `','["ob1","ob2"]',2)`,
		`INSERT INTO journal (scope, key, output, created_at) VALUES ('memo', '` + observe.MemoPrefix("t") + `1-4', 'memo says ` + secretToken + `', 1)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-1", ThreadID: "t", RecentN: 2,
		Query: "my bank pin is " + secretToken, Recall: &recall.Options{TopK: 3}}); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestDeleteMessages(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		events := make(chan engine.Event, 16)
		cfg := be.Config(t, engine.Config{Events: events})
		e := eraseFixture(t, be, cfg)

		rec, err := e.Journal().MemCtx(ctx, "run-1")
		if err != nil {
			t.Fatal(err)
		}
		if !recalled(rec, "m3") {
			t.Fatalf("fixture: run-1 did not recall m3: %+v", rec.Recalled)
		}
		res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: secretToken, Options: recall.Options{TopK: 5}})
		if err != nil || len(res.Hits) == 0 {
			t.Fatalf("fixture: search before erasure: %v, %d hits", err, len(res.Hits))
		}
		if len(storedCopies(t, be, e, secretToken)) == 0 {
			t.Fatal("fixture: the token is in no file before erasure; the scan proves nothing")
		}

		out, err := e.DeleteMessages(ctx, "m3", "m5", "nope")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Join(out.Messages, ","), "m3,m5"; got != want {
			t.Fatalf("erased %s, want %s", got, want)
		}
		if got, want := strings.Join(out.NotFound, ","), "nope"; got != want {
			t.Fatalf("notFound %s, want %s", got, want)
		}
		if got, want := strings.Join(out.Invalidated, ","), "ob2,rf1"; got != want {
			t.Fatalf("invalidated %s, want %s", got, want)
		}
		if out.MemCtxScrubbed != 1 || out.Embeddings != 2 {
			t.Fatalf("memctx scrubbed %d, embeddings %d; want 1, 2", out.MemCtxScrubbed, out.Embeddings)
		}

		t.Run("Physical", func(t *testing.T) {
			if hits := storedCopies(t, be, e, secretToken); len(hits) > 0 {
				t.Fatalf("the erased token is still in %v", hits)
			}
		})
		t.Run("Search", func(t *testing.T) {
			res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: secretToken + " pin bank safe", Options: recall.Options{TopK: 10, MessageRange: recall.Range{Before: 3, After: 3}}})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range res.Hits {
				if h.MessageID == "m3" || h.MessageID == "m5" {
					t.Fatalf("erased %s found by search", h.MessageID)
				}
			}
		})
		t.Run("Fetch", func(t *testing.T) {
			ms, err := e.MessagesByID(ctx, "", "m3", "m5")
			if err != nil || len(ms) != 0 {
				t.Fatalf("fetch by id: %v, %d messages", err, len(ms))
			}
			// ErrMessageNotFound: it was a string-only error.
			if _, err := e.FullContent(ctx, "m5"); !errors.Is(err, engine.ErrMessageNotFound) {
				t.Fatalf("full content of an erased tool result: %v, want ErrMessageNotFound", err)
			}
			all, err := e.Messages(ctx, "t", 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(all), 6; got != want {
				t.Fatalf("messages=%d, want %d", got, want)
			}
		})
		t.Run("MemCtx", func(t *testing.T) {
			raw, err := e.Journal().RawMemCtx(ctx, "run-1")
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(raw, []byte(secretToken)) {
				t.Fatalf("memctx still quotes the erased turn: %s", raw)
			}
			rec, err := e.Journal().MemCtx(ctx, "run-1")
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rec.Recalled {
				if r.MessageID == "m3" && r.Preview != engine.ErasedPreview {
					t.Fatalf("m3 preview %q, want %q", r.Preview, engine.ErasedPreview)
				}
			}
			if !recalled(rec, "m3") {
				t.Fatal("the reference to m3 was removed; replay can no longer report it")
			}
		})
		t.Run("Replay", func(t *testing.T) {
			_, err := e.Replay(ctx, "run-1", engine.ReplayOptions{})
			var div *engine.DivergenceError
			if !errors.As(err, &div) {
				t.Fatalf("replay after erasure: %v, want a DivergenceError", err)
			}
			if !strings.Contains(div.Error(), "m3") {
				t.Fatalf("divergence does not name m3: %v", div)
			}
		})
		t.Run("Observations", func(t *testing.T) {
			obs, err := e.Observations(ctx, observe.Filter{ThreadID: "t", All: true})
			if err != nil {
				t.Fatal(err)
			}
			state := map[string]string{}
			for _, o := range obs {
				switch {
				case o.InvalidatedAt != nil:
					state[o.ID] = "invalidated"
				case o.RetiredAt != nil:
					state[o.ID] = "retired"
				default:
					state[o.ID] = "live"
				}
			}
			if got, want := fmt.Sprint(state), "map[ob1:live ob2:invalidated rf1:invalidated]"; got != want {
				t.Fatalf("observations %s, want %s", got, want)
			}
			if _, err := e.Journal().Recorded(ctx, journal.ScopeMemo, observe.MemoPrefix("t")+"1-4"); !errors.Is(err, journal.ErrNotFound) {
				t.Fatalf("memo entry survived: %v", err)
			}
		})
		t.Run("Untouched", func(t *testing.T) {
			ms, err := e.MessagesByID(ctx, "", "m1", "m4", "m6", "o1")
			if err != nil || len(ms) != 4 {
				t.Fatalf("survivors: %v, %d of 4", err, len(ms))
			}
			res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r2", Query: "gardens", Options: recall.Options{TopK: 3}})
			if err != nil || len(res.Hits) != 1 {
				t.Fatalf("other resource: %v, %d hits", err, len(res.Hits))
			}
		})
		t.Run("ContextAfterErasure", func(t *testing.T) {
			// m5 (the tool result) is gone: its call m4 is dropped as unpaired,
			// so the context stays valid for the provider.
			c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-2", ThreadID: "t", RecentN: 10})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range c.Messages {
				if m.MessageID == "m3" || m.MessageID == "m4" || m.MessageID == "m5" {
					t.Fatalf("context holds %s after erasure", m.MessageID)
				}
			}
			if len(c.MemCtx.Dropped) != 1 || c.MemCtx.Dropped[0].MessageID != "m4" || c.MemCtx.Dropped[0].Reason != "unpaired-tool-call" {
				t.Fatalf("dropped %+v, want m4 unpaired-tool-call", c.MemCtx.Dropped)
			}
		})
		t.Run("SeqsNotReused", func(t *testing.T) {
			r, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", Messages: []engine.Message{user("m9", "new turn")}})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := r.Seqs[0], int64(9); got != want {
				t.Fatalf("seq=%d, want %d", got, want)
			}
			mustCheck(t, e)
		})
		t.Run("Events", func(t *testing.T) {
			evs := drainEvents(events)
			if !hasEvent(evs, engine.EventErased) || !hasEvent(evs, engine.EventInvalidated) {
				t.Fatalf("events %+v, want erased and invalidated", evs)
			}
		})
		t.Run("Idempotent", func(t *testing.T) {
			again, err := e.DeleteMessages(ctx, "m3")
			if err != nil {
				t.Fatal(err)
			}
			if len(again.Messages) != 0 || len(again.NotFound) != 1 {
				t.Fatalf("second erasure %+v", again)
			}
			mustCheck(t, e)
		})
		t.Run("Reopen", func(t *testing.T) {
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			cfg.Events = nil
			e2, err := engine.Open(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer e2.Close()
			mustCheck(t, e2)
			if ms, _ := e2.MessagesByID(ctx, "", "m3"); len(ms) != 0 {
				t.Fatal("erased message back after reopen")
			}
		})
	})
}

func recalled(rec *journal.MemCtx, id string) bool {
	for _, r := range rec.Recalled {
		if r.MessageID == id {
			return true
		}
	}
	return false
}

func TestDeleteThread(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		events := make(chan engine.Event, 16)
		e := eraseFixture(t, be, engine.Config{Events: events})
		db := engine.ConnOf(e)
		for _, q := range []string{
			`INSERT INTO working_memory (scope, mode, content, version, updated_at) VALUES ('thread:t', 'markdown', 'pin ` + secretToken + `', 1, 1)`,
			`INSERT INTO working_memory_history (scope, version, content, updated_at) VALUES ('thread:t', 1, 'pin ` + secretToken + `', 1)`,
			`INSERT INTO working_memory (scope, mode, content, version, updated_at) VALUES ('thread:u', 'markdown', 'keep me', 1, 1)`,
			`INSERT INTO journal (scope, key, output, created_at) VALUES ('tool', '["run-1","t","","c7"]', 'updated ` + secretToken + `', 1)`,
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		out, err := e.DeleteThread(ctx, "t")
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) != 8 || len(out.Threads) != 1 || out.WorkingMemory != 2 {
			t.Fatalf("result %+v", out)
		}
		if hits := storedCopies(t, be, e, secretToken); len(hits) > 0 {
			t.Fatalf("the erased token is still in %v", hits)
		}
		if _, err := e.GetThread(ctx, "t"); !errors.Is(err, engine.ErrThreadNotFound) {
			t.Fatalf("thread after deletion: %v", err)
		}
		if _, err := e.DeleteThread(ctx, "t"); !errors.Is(err, engine.ErrThreadNotFound) {
			t.Fatalf("second deletion: %v, want ErrThreadNotFound", err)
		}
		var n int
		db.QueryRowContext(ctx, `SELECT COUNT(*) FROM working_memory WHERE scope = 'thread:u'`).Scan(&n)
		if n != 1 {
			t.Fatal("another thread's working memory was deleted")
		}
		// The id starts a new thread.
		r, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("", "fresh start")}})
		if err != nil || r.Seqs[0] != 1 || !r.Created {
			t.Fatalf("re-created thread: %v %+v", err, r)
		}
		mustCheck(t, e)
		if evs := drainEvents(events); !hasEvent(evs, engine.EventErased) {
			t.Fatalf("events %+v", evs)
		}
	})
}

func TestDeleteResource(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := eraseFixture(t, be, engine.Config{})
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t2", ResourceID: "r", Messages: []engine.Message{user("", "second thread "+secretToken)}}); err != nil {
			t.Fatal(err)
		}
		if _, err := engine.ConnOf(e).ExecContext(ctx, `INSERT INTO working_memory (scope, mode, content, version, updated_at) VALUES ('resource:r', 'markdown', ?, 1, 1)`, secretToken); err != nil {
			t.Fatal(err)
		}
		out, err := e.DeleteResource(ctx, "r")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Join(out.Threads, ","), "t,t2"; got != want || len(out.Messages) != 9 || out.WorkingMemory != 1 {
			t.Fatalf("threads %s (want %s), %d messages, wm %d", got, want, len(out.Messages), out.WorkingMemory)
		}
		if hits := storedCopies(t, be, e, secretToken); len(hits) > 0 {
			t.Fatalf("the erased token is still in %v", hits)
		}
		mustCheck(t, e)
		ths, err := e.ListThreads(ctx, "r")
		if err != nil || len(ths) != 0 {
			t.Fatalf("threads left: %v %d", err, len(ths))
		}
		res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r2", Query: "gardens", Options: recall.Options{TopK: 3}})
		if err != nil || len(res.Hits) != 1 {
			t.Fatalf("other resource: %v, %d hits", err, len(res.Hits))
		}
		empty, err := e.DeleteResource(ctx, "nobody")
		if err != nil || len(empty.Messages) != 0 {
			t.Fatalf("empty resource: %v %+v", err, empty)
		}
		mustCheck(t, e)
	})
}

func TestDeleteInvalid(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		for name, f := range map[string]func() error{
			"NoIDs":         func() error { _, err := e.DeleteMessages(ctx); return err },
			"PathID":        func() error { _, err := e.DeleteMessages(ctx, "../../etc/passwd"); return err },
			"ThreadNUL":     func() error { _, err := e.DeleteThread(ctx, "t\x00"); return err },
			"ResourceSlash": func() error { _, err := e.DeleteResource(ctx, "a/b"); return err },
		} {
			t.Run(name, func(t *testing.T) {
				if err := f(); !errors.Is(err, engine.ErrInvalidInput) {
					t.Fatalf("err=%v, want ErrInvalidInput", err)
				}
			})
		}
	})
}

// TestEraseResumesAfterCrash simulates a crash between the erasure's commit
// and its purge: the marker and the outbox rows are there, the index still
// holds the documents. Open must complete the purge.
//
// SQLite only: the purge is of the data directory's derived index files;
// on Postgres the indexes are rows deleted in the erasure's transaction.
func TestEraseResumesAfterCrash(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
		user("a", "harmless"), user("b", "secret "+secretToken),
	}}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	// What the erasure transaction commits, without the purge that follows.
	for _, q := range []string{
		`DELETE FROM embeddings WHERE message_id = 'b'`,
		`DELETE FROM messages WHERE id = 'b'`,
		`UPDATE threads SET message_count = 1, bytes = (SELECT SUM(length(content) + length(metadata)) FROM messages WHERE thread_id = 't') WHERE id = 't'`,
		`INSERT INTO journal (scope, key, thread_id, resource_id, output, created_at) VALUES ('erased', 't:2', 't', 'r', x'', 1)`,
		`INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES ('delete', 'b', 'r', 1)`,
		`INSERT INTO journal (scope, key, output, created_at) VALUES ('erasing', 'x', '{}', 1)`,
	} {
		if _, err := engine.DBOf(e).ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// Close drains nothing more: the drainer may have run; keep the index
	// holding the document by closing right away, then check the premise.
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	events := make(chan engine.Event, 8)
	e, err = engine.Open(ctx, engine.Config{Dir: dir, Events: events})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if hits := filesContaining(t, dir, secretToken); len(hits) > 0 {
		t.Fatalf("after reopen the erased token is still in %v", hits)
	}
	var n int
	engine.DBOf(e).QueryRowContext(ctx, `SELECT COUNT(*) FROM journal WHERE scope = 'erasing'`).Scan(&n)
	if n != 0 {
		t.Fatalf("%d erasure markers left", n)
	}
	if evs := drainEvents(events); !hasEvent(evs, engine.EventEraseResumed) {
		t.Fatalf("events %+v, want erase-resumed", evs)
	}
	mustCheck(t, e)
}

// TestErasePurgeCost reports what the physical purge costs as the index
// grows (the whole bleve index is rewritten by each erasure). SQLite only:
// Postgres has no index files to purge.
func TestErasePurgeCost(t *testing.T) {
	sizes := []int{1000}
	if testing.Short() {
		sizes = []int{200}
	}
	if os.Getenv("MNEMO_PURGE_COST") != "" {
		sizes = []int{1000, 10000, 50000}
	}
	ctx := context.Background()
	for _, n := range sizes {
		e := enginetest.MustOpen(t, engine.Config{})
		for start := 0; start < n; start += 1000 {
			var msgs []engine.Message
			for i := start; i < min(start+1000, n); i++ {
				msgs = append(msgs, user(fmt.Sprintf("m%d", i), fmt.Sprintf("message %d about topic %d and item %d", i, i%97, i%13)))
			}
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		out, err := e.DeleteMessages(ctx, "m7")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("erase 1 of %d messages: %s (purge %s)", n, time.Since(start).Round(time.Millisecond), out.Purge.Round(time.Millisecond))
	}
}

// gateEmbedder blocks every Embed call until gate is closed, so a test can
// erase a message while the drainer holds it between lexical indexing and
// embedding.
type gateEmbedder struct {
	recall.HashEmbedder
	gate    chan struct{}
	entered chan struct{}
}

// ID is not hash-384's: on SQLite hash-384's vectors are derived (computed
// when read), and the drainer embeds them only for loaded resources; a
// gated embedder stands for one whose vectors are stored (use-lite,
// OpenAI), which the drainer embeds before storing.
func (g *gateEmbedder) ID() string { return "gate-384" }

func (g *gateEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.HashEmbedder.Embed(ctx, texts)
}

// TestEraseBeatsLateIndexUpdate erases a message while the outbox drainer
// is embedding it: the late embedding must not be stored, and the message
// must be in neither index afterwards.
func TestEraseBeatsLateIndexUpdate(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		emb := &gateEmbedder{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
		e := be.MustOpen(t, engine.Config{Embedder: emb})
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("late", "a late secret "+secretToken)}}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-emb.entered:
		case <-time.After(10 * time.Second):
			t.Fatal("the drainer never embedded")
		}
		go func() {
			time.Sleep(100 * time.Millisecond)
			close(emb.gate)
		}()
		if _, err := e.DeleteMessages(ctx, "late"); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := engine.ConnOf(e).QueryRowContext(ctx, `SELECT COUNT(*) FROM embeddings`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("embeddings after erasure: %d (%v)", n, err)
		}
		res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: secretToken, Options: recall.Options{TopK: 3}})
		if err != nil || len(res.Hits) != 0 {
			t.Fatalf("search after erasure: %v %+v", err, res)
		}
		if hits := storedCopies(t, be, e, secretToken); len(hits) > 0 {
			t.Fatalf("the erased token is still in %v", hits)
		}
		mustCheck(t, e)
	})
}

// TestEventsNeverBlock: a full (here unbuffered, unread) events channel
// never blocks an erasure; the event is dropped and counted.
func TestEventsNeverBlock(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{Events: make(chan engine.Event)})
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("a", "hello")}}); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := e.DeleteMessages(ctx, "a")
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("erasure blocked on the events channel")
		}
		if e.DroppedEvents() < 1 {
			t.Fatalf("dropped %d events, want at least 1", e.DroppedEvents())
		}
	})
}

// TestEraseDuringObservation erases a turn while the observer is waiting for
// the model on a range that holds it: the erasure cancels that obsolete
// call (ErrObserveCancelled), nothing it would have derived is recorded, and
// observing again later distils the remaining turns without the erased text.
func TestEraseDuringObservation(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		entered, release := make(chan struct{}, 1), make(chan struct{})
		srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			select {
			case entered <- struct{}{}:
				<-release // only the first call waits
			default:
			}
			return observerModel(req)
		}))
		e := be.MustOpen(t, engine.Config{RecentN: 2, Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv), Threshold: 10, ChunkTokens: 4000}})
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
			user("o1", "first turn about gardens"), user("o2", "my secret is "+secretToken), user("o3", "third turn"),
			user("o4", "fourth turn"), user("o5", "fifth turn"),
		}}); err != nil {
			t.Fatal(err)
		}
		obsDone := make(chan error, 1)
		go func() {
			_, err := e.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true})
			obsDone <- err
		}()
		select {
		case <-entered:
		case <-time.After(10 * time.Second):
			t.Fatal("the observer never called the model")
		}
		eraseDone := make(chan error, 1)
		go func() {
			_, err := e.DeleteMessages(ctx, "o2")
			eraseDone <- err
		}()
		if err := <-eraseDone; err != nil {
			t.Fatal(err)
		}
		close(release)
		if err := <-obsDone; !errors.Is(err, engine.ErrObserveCancelled) {
			t.Fatalf("Observe = %v, want ErrObserveCancelled", err)
		}
		entered <- struct{}{} // later calls do not wait
		if _, err := e.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true}); err != nil {
			t.Fatal(err)
		}
		obs, err := e.Observations(ctx, observe.Filter{ThreadID: "t", All: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(obs) == 0 {
			t.Fatal("the observer stored nothing after the erasure")
		}
		for _, o := range obs {
			if strings.Contains(o.Content, secretToken) {
				t.Fatalf("observation %s keeps the erased text: %q", o.ID, o.Content)
			}
		}
		if hits := storedCopies(t, be, e, secretToken); len(hits) > 0 {
			t.Fatalf("the erased token is still in %v", hits)
		}
	})
}

// armedGate blocks Embed calls only once armed (the query embedding of a
// LoadContext, not the drainer's).
type armedGate struct {
	recall.HashEmbedder
	armed   atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (g *armedGate) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if g.armed.Load() {
		select {
		case g.entered <- struct{}{}:
		default:
		}
		<-g.release
	}
	return g.HashEmbedder.Embed(ctx, texts)
}

// TestEraseDuringLoadContext erases a recent turn while LoadContext waits
// for the query embedding: the memctx record it then writes must not keep
// the erased preview or query.
func TestEraseDuringLoadContext(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		emb := &armedGate{entered: make(chan struct{}, 1), release: make(chan struct{})}
		e := be.MustOpen(t, engine.Config{Embedder: emb})
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
			user("l1", "an older turn about gardens"), user("l2", "my secret is "+secretToken),
		}}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		emb.armed.Store(true)
		loadDone := make(chan error, 1)
		go func() {
			_, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-race", ThreadID: "t", RecentN: 1, Recall: &recall.Options{TopK: 2}})
			loadDone <- err
		}()
		select {
		case <-emb.entered:
		case <-time.After(10 * time.Second):
			t.Fatal("LoadContext never embedded its query")
		}
		eraseDone := make(chan error, 1)
		go func() {
			_, err := e.DeleteMessages(ctx, "l2")
			eraseDone <- err
		}()
		time.Sleep(100 * time.Millisecond)
		emb.armed.Store(false)
		close(emb.release)
		if err := <-loadDone; err != nil {
			t.Fatal(err)
		}
		if err := <-eraseDone; err != nil {
			t.Fatal(err)
		}
		raw, err := e.Journal().RawMemCtx(ctx, "run-race")
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte(secretToken)) {
			t.Fatalf("memctx keeps the erased turn: %s", raw)
		}
		if hits := storedCopies(t, be, e, secretToken); len(hits) > 0 {
			t.Fatalf("the erased token is still in %v", hits)
		}
	})
}

// TestFileHoldsAcrossChunks is SQLite only: it tests the file scan of the physical erasure check.
func TestFileHoldsAcrossChunks(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	data := bytes.Repeat([]byte{'.'}, 3<<20)
	pat := []byte("needle-straddling-the-boundary")
	copy(data[1<<20-10:], pat) // crosses the first 1 MiB chunk boundary
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pats [][]byte
		want bool
	}{
		{[][]byte{pat}, true},
		{[][]byte{[]byte("absent"), pat}, true},
		{[][]byte{[]byte("absent")}, false},
		{nil, false},
	} {
		got, err := engine.FileHolds(p, tc.pats)
		if err != nil || got != tc.want {
			t.Fatalf("FileHolds(%q) = %v, %v; want %v", tc.pats, got, err, tc.want)
		}
	}
}

// TestFileHoldsManyPatterns: beyond a few patterns the scan hashes one
// window per byte for all of them (residue.go); it finds a pattern of any
// length across a chunk boundary, at the start and at the end of the
// file, and nothing that is absent, however many patterns share a window.
func TestFileHoldsManyPatterns(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	data := bytes.Repeat([]byte("abcdefghijklmnopqrstuvwxyz."), 3<<20/27)
	copy(data[1<<20-20:], "erased-text-straddling-the-boundary-of-a-chunk")
	copy(data, "erased-at-the-very-start")
	copy(data[len(data)-22:], "erased-at-the-very-end")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var absent [][]byte
	for i := range 300 {
		absent = append(absent, []byte(fmt.Sprintf("erased-text-never-stored-%03d", i)))
	}
	absent = append(absent, []byte("abcdefghijklmnopqrstuvwxyz.abcdefghijklmnopqrstuvwxyz-"), []byte("erased-text-straddling-the-boundary-of-a-chunk!"))
	for _, tc := range []struct {
		name string
		add  []byte
		want bool
	}{
		{"absent", nil, false},
		{"straddling", []byte("erased-text-straddling-the-boundary-of-a-chunk"), true},
		{"start", []byte("erased-at-the-very-start"), true},
		{"end", []byte("erased-at-the-very-end"), true},
		{"short", []byte("xyz.abcdefghijk"), true},
	} {
		pats := slices.Clone(absent)
		if tc.add != nil {
			pats = append(pats, tc.add)
		}
		if got, err := engine.FileHolds(p, pats); err != nil || got != tc.want {
			t.Errorf("%s: FileHolds = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

// TestFileHoldsCancelled: the residue scan stops with the context's error
// (it reads the whole database file, gigabytes for a large store).
func TestFileHoldsCancelled(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, bytes.Repeat([]byte("x"), 3<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := engine.FileHoldsCtx(ctx, p, [][]byte{[]byte("needle")}); !errors.Is(err, context.Canceled) {
		t.Fatalf("FileHolds with a cancelled context: %v, want context.Canceled", err)
	}
}
