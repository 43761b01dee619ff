package engine_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// heldEmbedder is hash-384 under another id (so its vectors are stored
// and embedded by the drainer, as use-lite's are) whose Embed of a batch
// holding the held text waits while the hold is set, saying on entered
// that it does; a query's Embed runs at once.
type heldEmbedder struct {
	recall.HashEmbedder
	mu      sync.Mutex
	text    string        // the held text
	hold    chan struct{} // nil: Embed runs at once
	entered chan struct{}
}

func (h *heldEmbedder) ID() string { return "held-384" }

func (h *heldEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	h.mu.Lock()
	hold := h.hold
	if !slices.Contains(texts, h.text) {
		hold = nil
	}
	h.mu.Unlock()
	if hold != nil {
		select {
		case h.entered <- struct{}{}:
		default:
		}
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return h.HashEmbedder.Embed(ctx, texts)
}

// setHold makes an Embed of text wait until release is called.
func (h *heldEmbedder) setHold(text string) (release func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.text = text
	h.hold = make(chan struct{})
	hold := h.hold
	return func() {
		h.mu.Lock()
		h.hold = nil
		h.mu.Unlock()
		close(hold)
	}
}

// TestSearchRightAfterAppendCatchingUp: a search between an append and the
// drainer's indexing of it says, on both channels that answered, that they
// are catching up. The vector channel read "ok" there (readme1's
// measurement on mnemo serve: the first search after each of ten appends,
// 26-77 ms): its own status counts only the messages it holds, and the
// one just appended was not among them, so "ok" answered without it. The
// drainer is held here on another resource's message, so the appended one
// waits in the outbox as it does in that window.
func TestSearchRightAfterAppendCatchingUp(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		emb := &heldEmbedder{entered: make(chan struct{}, 1)}
		e, err := engine.Open(ctx, be.Config(t, engine.Config{Embedder: emb}))
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		appendTo := func(resource, thread, id, text string) {
			t.Helper()
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: resource, Messages: []engine.Message{user(id, text)}}); err != nil {
				t.Fatal(err)
			}
		}
		search := func() recall.Retrieval {
			t.Helper()
			res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "refund approved", Options: recall.Options{TopK: 5}})
			if err != nil {
				t.Fatal(err)
			}
			return res.Retrieval
		}
		appendTo("r", "t", "m1", "the parcel left the depot")
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		if got := search(); got.Lexical != recall.StatusOK || got.Vector != recall.StatusOK {
			t.Fatalf("caught up: retrieval %+v, want both ok", got)
		}
		release := holdEmbed(t, emb, "another resource's turn")
		appendTo("r2", "t2", "o1", "another resource's turn")
		select {
		case <-emb.entered:
		case <-time.After(time.Minute):
			t.Fatal("the drainer did not start embedding o1 within a minute")
		}
		appendTo("r", "t", "m2", "the refund was approved")
		got := search()
		if got.Vector == recall.StatusOK {
			t.Errorf("m2 not indexed yet: retrieval.vector = %q (it answered without m2), want it to say so", got.Vector)
		}
		if be.Name == "sqlite" && got.Lexical != recall.StatusCatchingUp {
			t.Errorf("m2 not indexed yet: retrieval.lexical = %q, want %q", got.Lexical, recall.StatusCatchingUp)
		}
		// On Postgres the append wrote m2's lexical entry; only its
		// embedding (an embed row) is owed, which the vector channel
		// counts (messages of the resource without a vector).
		if want := recall.EmbeddedStatus(2, 1); be.Name != "sqlite" && (got.Lexical != recall.StatusOK || got.Vector != want || got.Note != "") {
			t.Errorf("m2 not embedded yet: retrieval %+v, want lexical ok, vector %q, no note", got, want)
		}
		release()
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		if got := search(); got.Lexical != recall.StatusOK || got.Vector != recall.StatusOK {
			t.Fatalf("caught up again: retrieval %+v, want both ok", got)
		}
	})
}

// holdEmbed holds emb's Embed of text and releases it when the test ends,
// if the test did not.
func holdEmbed(t *testing.T, emb *heldEmbedder, text string) (release func()) {
	var once sync.Once
	r := emb.setHold(text)
	release = func() { once.Do(r) }
	t.Cleanup(release)
	return release
}

// TestSearchPendingDeletionNotCatchingUp: a resource whose only pending
// outbox row owes a deletion (an erased message whose index removal
// waits, deferred after a failure) is not "catching up": removing a
// message from the indexes cannot add a hit, so neither channel may say
// the answer could miss one, and the note says nothing of messages "not
// indexed yet". A row that owes indexing still does.
func TestSearchPendingDeletionNotCatchingUp(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := enginetest.MustOpen(t, be.Config(t, engine.Config{}))
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("m1", "the refund was approved")}}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		queue := func(op, id string) {
			t.Helper()
			later := time.Now().Add(time.Hour).UnixMilli() // deferred: the drainer leaves it
			if _, err := engine.ConnOf(e).ExecContext(ctx, `INSERT INTO outbox (op, message_id, resource_id, not_before, created_at) VALUES (?, ?, 'r', ?, 0)`, op, id, later); err != nil {
				t.Fatal(err)
			}
		}
		search := func() recall.Retrieval {
			t.Helper()
			res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: "refund approved", Options: recall.Options{TopK: 5}})
			if err != nil {
				t.Fatal(err)
			}
			return res.Retrieval
		}
		t.Cleanup(func() {
			if _, err := engine.ConnOf(e).ExecContext(ctx, `DELETE FROM outbox`); err != nil {
				t.Error(err)
			}
		})
		queue("delete", "gone")
		if got := search(); got.Lexical != recall.StatusOK || got.Vector != recall.StatusOK || got.Note != "" {
			t.Errorf("only a deletion pending: retrieval %+v, want both ok and no note", got)
		}
		queue("index", "m2") // a message no index has seen
		if got, want := search().Note, "up to 1 message of this resource not indexed yet"; got != want {
			t.Errorf("an index row pending beside the deletion: note %q, want %q", got, want)
		}
	})
}
