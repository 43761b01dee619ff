package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
)

func mustCheck(t *testing.T, e *engine.Engine) {
	t.Helper()
	if err := e.Check(context.Background()); err != nil {
		t.Fatalf("Check: %v", err)
	}
}

// TestRecallPairingWorkedExample is the worked example of issue 3: a tool
// result recalled from an older thread must come with its call, and the
// output must satisfy the provider rule.
func TestRecallPairingWorkedExample(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		toolThread(t, e, "T-old")
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "T-cur", ResourceID: "r", Messages: []engine.Message{
			{Role: "user", Content: "what was the ZEPHYR-QUOTE price for crate B?"},
		}}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		mustCheck(t, e)

		t.Run("Range1", func(t *testing.T) {
			c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "T-cur", Recall: &recall.Options{TopK: 1, Scope: recall.ScopeResource, MessageRange: recall.Range{Before: 1, After: 1}}})
			if err != nil {
				t.Fatal(err)
			}
			checkProviderRule(t, c.Messages)
			var hit *journal.Ref
			for i, r := range c.MemCtx.Recalled {
				if r.Reason == journal.ReasonHit {
					hit = &c.MemCtx.Recalled[i]
				}
			}
			if hit == nil || hit.ThreadID != "T-old" || hit.Seq != 4 {
				t.Fatalf("hit = %+v, want T-old 4 (recalled %+v, dropped %+v)", hit, c.MemCtx.Recalled, c.MemCtx.Dropped)
			}
			if hit.Score == nil || hit.Lexical == nil || hit.Vector == nil {
				t.Fatalf("hit lacks scores: %+v", hit)
			}
			var old []string
			for _, m := range c.Messages {
				if m.ThreadID == "T-old" {
					old = append(old, fmt.Sprintf("%d:%s", m.Seq, m.Reason))
				}
			}
			// Range 3–5; the group is completed by its call (2, repair).
			if got, want := strings.Join(old, ","), "2:repair,3:range,4:hit,5:range"; got != want {
				t.Fatalf("recalled %s, want %s", got, want)
			}
			if c.MemCtx.Retrieval.Lexical != "ok" || c.MemCtx.Retrieval.Vector != "ok" || c.MemCtx.Retrieval.Embedder != recall.HashID {
				t.Fatalf("retrieval %+v", c.MemCtx.Retrieval)
			}
		})
		t.Run("HitOnCall", func(t *testing.T) {
			c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "T-cur", Query: "quote crate", Recall: &recall.Options{TopK: 1, Mode: recall.ModeLexical, MessageRange: recall.Range{Before: 0, After: 1}}})
			if err != nil {
				t.Fatal(err)
			}
			checkProviderRule(t, c.Messages)
			var hits []string
			for _, r := range c.MemCtx.Recalled {
				if r.Reason == journal.ReasonHit {
					hits = append(hits, fmt.Sprintf("%s:%d", r.ThreadID, r.Seq))
				}
			}
			for _, r := range c.MemCtx.Dropped {
				if r.Reason != journal.ReasonAlreadyInRecent {
					hits = append(hits, fmt.Sprintf("dropped %s:%d %s", r.ThreadID, r.Seq, r.Reason))
				}
			}
			if got := strings.Join(hits, ","); got != "T-old:2" {
				t.Fatalf("hits %s, want T-old:2 (recalled %+v)", got, c.MemCtx.Recalled)
			}
			for _, m := range c.Messages {
				for _, tc := range m.ToolCalls {
					found := false
					for _, r := range c.Messages {
						if r.ToolCallID == tc.ID && r.ThreadID == m.ThreadID {
							found = true
						}
					}
					if !found {
						t.Fatalf("call %s without its result: %+v", tc.ID, c.Messages)
					}
				}
			}
		})
	})
}

func TestSearchAndCheck(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		for r := 0; r < 2; r++ {
			for th := 0; th < 3; th++ {
				var msgs []engine.Message
				for i := 0; i < 5; i++ {
					msgs = append(msgs, engine.Message{Role: []string{"user", "assistant"}[i%2], Content: fmt.Sprintf("note %d about the kiwi harvest in orchard %d", i, th), Metadata: map[string]any{"i": i}})
				}
				if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: fmt.Sprintf("r%d-t%d", r, th), ResourceID: fmt.Sprintf("r%d", r), Messages: msgs}); err != nil {
					t.Fatal(err)
				}
			}
		}
		mustCheck(t, e)
		res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r1", Query: "kiwi orchard 2", Options: recall.Options{TopK: 4, Filter: []byte(`{"metadata.i":{"$gte":3}}`)}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 4 {
			t.Fatalf("%d hits, want 4", len(res.Hits))
		}
		for _, h := range res.Hits {
			if !strings.HasPrefix(h.ThreadID, "r1-") || h.Seq < 4 {
				t.Fatalf("hit %+v outside resource r1 or filter", h)
			}
		}
		_, err = e.Search(ctx, engine.SearchRequest{ResourceID: "r1", Query: "kiwi", Options: recall.Options{Filter: []byte(`{"seq":{"$like":1}}`)}})
		var fe *recall.FilterError
		if !errors.As(err, &fe) || fe.Op != "$like" {
			t.Fatalf("bad filter: err=%v", err)
		}
		if err := e.Reindex(ctx, false); err != nil {
			t.Fatal(err)
		}
		mustCheck(t, e)
		res2, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r1", Query: "kiwi orchard 2", Options: recall.Options{TopK: 4, Filter: []byte(`{"metadata.i":{"$gte":3}}`)}})
		if err != nil {
			t.Fatal(err)
		}
		for i := range res.Hits {
			if res.Hits[i].MessageID != res2.Hits[i].MessageID {
				t.Fatalf("after reindex hit %d is %s, was %s", i, res2.Hits[i].MessageID, res.Hits[i].MessageID)
			}
		}
	})
}

// TestLexicalQuarantine damages the bleve directory: reopening moves it to
// quarantine, rebuilds from SQLite, and recall works again.
//
// SQLite only: it damages the bleve index's files.
func TestLexicalQuarantine(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	toolThread(t, e, "T-old")
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	lex := filepath.Join(dir, engine.LexicalDir)
	ents, err := os.ReadDir(lex)
	if err != nil || len(ents) == 0 {
		t.Fatalf("lexical dir: %v %d", err, len(ents))
	}
	for _, ent := range ents {
		p := filepath.Join(lex, ent.Name())
		if !ent.IsDir() {
			if err := os.WriteFile(p, []byte("garbage, not an index"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	e = enginetest.MustOpen(t, engine.Config{Dir: dir})
	q, err := os.ReadDir(filepath.Join(dir, engine.QuarantineDir))
	if err != nil || len(q) != 1 {
		t.Fatalf("quarantine: %v, %d entries", err, len(q))
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, e)
	res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "ZEPHYR-QUOTE", Options: recall.Options{TopK: 1, Mode: recall.ModeLexical}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].Seq != 4 {
		t.Fatalf("after rebuild: %+v", res.Hits)
	}
}

// TestQuarantineBlockedPath: a file where the data directory holds a
// directory of the indexes (index, or quarantine beside a damaged index)
// used to fail every open ("rename …: not a directory"); it is moved into
// quarantine (or aside) and the index rebuilt from SQLite.
//
// SQLite only: it damages the data directory's files.
func TestQuarantineBlockedPath(t *testing.T) {
	for _, name := range []string{"index", "quarantine"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := closedDir(t, "T-old")
			blockIndexPath(t, dir, name)
			e := enginetest.MustOpen(t, engine.Config{Dir: dir})
			if err := e.SyncIndexes(ctx); err != nil {
				t.Fatal(err)
			}
			mustCheck(t, e)
			res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "ZEPHYR-QUOTE", Options: recall.Options{TopK: 1, Mode: recall.ModeLexical}})
			if err != nil || len(res.Hits) != 1 || res.Hits[0].Seq != 4 {
				t.Fatalf("after rebuild: %+v, %v", res.Hits, err)
			}
		})
	}
}

// blockIndexPath puts a regular file at dir/name: in place of the index
// directory, or of the quarantine with the lexical index garbled.
func blockIndexPath(t *testing.T, dir, name string) {
	t.Helper()
	if name == "index" {
		if err := os.RemoveAll(filepath.Join(dir, "index")); err != nil {
			t.Fatal(err)
		}
	} else if err := os.WriteFile(filepath.Join(dir, engine.LexicalDir, "index_meta.json"), []byte("garbage{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// blockingEmbedder never returns: the drainer is stuck after the commit,
// before any index update, which is where the writer is killed.
type blockingEmbedder struct{}

func (blockingEmbedder) ID() string { return recall.HashID }
func (blockingEmbedder) Dims() int  { return recall.HashDims }
func (blockingEmbedder) Embed(ctx context.Context, _ []string) ([][]float32, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestOutboxWriterProcess is the writer run in a subprocess by
// TestOutboxConvergesAfterKill; it does nothing in a normal run.
func TestOutboxWriterProcess(t *testing.T) {
	st, ok := enginetest.ParseStore(os.Getenv("MNEMO_OUTBOX_WRITER_STORE"))
	if !ok {
		t.Skip("subprocess helper")
	}
	ctx := context.Background()
	e, err := engine.Open(ctx, st.Config(engine.Config{Embedder: blockingEmbedder{}}))
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	for i := 0; ; i++ {
		_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
			{Role: "user", Content: fmt.Sprintf("message %d about walrus number %d", i, i)},
		}})
		if err != nil {
			fmt.Println("append:", err)
			os.Exit(2)
		}
		fmt.Println("appended", i)
	}
}

// TestOutboxConvergesAfterKill kills (SIGKILL) a writer that committed
// messages whose index updates never ran; reopening converges: every
// committed message is in both indexes.
func TestOutboxConvergesAfterKill(t *testing.T) {
	enginetest.ForEachBackend(t, testOutboxConvergesAfterKill)
}

func testOutboxConvergesAfterKill(t *testing.T, be enginetest.Backend) {
	if testing.Short() {
		t.Skip("subprocess")
	}
	st := be.NewStore(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestOutboxWriterProcess$")
	cmd.Env = childEnv(t, "MNEMO_OUTBOX_WRITER_STORE="+st.String())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<16)
	var seen string
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(seen, "appended 30\n") && time.Now().Before(deadline) {
		n, err := out.Read(buf)
		seen += string(buf[:n])
		if err != nil {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if !strings.Contains(seen, "appended 30\n") {
		t.Fatalf("writer output: %q", seen)
	}
	e := be.MustOpen(t, st.Config(engine.Config{}))
	ctx := context.Background()
	if be.Name == enginetest.Postgres.Name {
		endLeases(t, e) // the killed writer's, which would hold its claimed rows for outboxLease (2 min)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, e)
	ms, err := e.Messages(ctx, "t", 1, 1<<30)
	if err != nil || len(ms) < 31 {
		t.Fatalf("stored %d messages (%v), want ≥ 31", len(ms), err)
	}
	last := ms[len(ms)-1]
	n, _ := strconv.Atoi(strings.Fields(last.Content)[1])
	res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "walrus " + strconv.Itoa(n), Options: recall.Options{TopK: 1}})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].MessageID != last.ID {
		t.Fatalf("last committed message not recalled: %+v %v", res, err)
	}
}

// TestEmbedderDownLexicalNowVectorLater runs the engine against an
// OpenAI-compatible fake whose embeddings endpoint fails: appends succeed,
// messages are recalled lexically at once, and once the endpoint recovers
// the outbox embeds them and the vector channel finds them.
func TestEmbedderDownLexicalNowVectorLater(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		srv := openaitest.New(t, openaitest.Lenient())
		var down atomic.Bool
		srv.SetEmbed(func(req openaitest.EmbedRequest) ([][]float32, error) {
			if down.Load() {
				return nil, &openaitest.StatusError{Status: 503, Message: "embedding service down"}
			}
			return openaitest.HashEmbed(16)(req)
		})
		c := srv.Config()
		emb, err := recall.NewOpenAIEmbedder(ctx, recall.OpenAIConfig{BaseURL: c.BaseURL, APIKey: openaitest.DefaultAPIKey, Model: "m", Retries: -1})
		if err != nil {
			t.Fatal(err)
		}
		down.Store(true)
		e := be.MustOpen(t, engine.Config{Embedder: emb})
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
			{Role: "user", Content: "the pelican ate a herring"},
			{Role: "assistant", Content: "herring is good for pelicans"},
		}}); err != nil {
			t.Fatalf("append with the embedder down: %v", err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "pelican herring", Options: recall.Options{TopK: 2}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 2 || res.Retrieval.Vector == "ok" {
			t.Fatalf("embedder down: hits %d, retrieval %+v", len(res.Hits), res.Retrieval)
		}
		if err := e.Check(ctx); !errors.Is(err, engine.ErrInconsistent) {
			t.Fatalf("Check with embeddings owed: %v", err)
		}
		down.Store(false)
		// The rows are deferred with backoff (1 s first); the drainer retries.
		deadline := time.Now().Add(10 * time.Second)
		for {
			res, err = e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "pelican herring", Options: recall.Options{TopK: 2, Mode: recall.ModeVector}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 2 && res.Retrieval.Vector == "ok" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("vector channel never caught up: %+v", res)
			}
			time.Sleep(50 * time.Millisecond)
		}
		mustCheck(t, e)
	})
}
