package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestDamageMarkObserverHeld: the background observer holds while a
// record of damage is beside mnemo.db and starts again once it is
// removed, as the outbox drainer does. Thread a's model call waits while
// thread b is queued behind it; the record is written (another process's
// check); a's answer, arriving after, is not stored, and b is not sent to
// the model while the record is there. Once the record is removed, b is
// observed, and so is a (a new walk of the threads left due), without a
// new append. Before, the observer stopped for good at b ("background
// observer stopped"): neither was observed until a restart, nor any
// thread appended to after the record was removed.
//
// SQLite only: the record is beside mnemo.db.
func TestDamageMarkObserverHeld(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	release := make(chan struct{})
	var first sync.Once
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		first.Do(func() { <-release })
		return observerModel(req)
	}))
	logs := &logCount{}
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, RecentN: 2, Logger: logs.logger(),
		Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv), Threshold: 20, Background: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	appendTurns(t, e, "a", 12)
	waitFor(t, "a's model call", func() bool { return srv.Count("/v1/chat/completions") > 0 })
	appendTurns(t, e, "b", 12) // queued behind a
	path := filepath.Join(dir, engine.DatabaseFile)
	if err := store.RecordDamage(path, time.Now(), "database disk image is malformed (11)"); err != nil { // another process's check
		t.Fatal(err)
	}
	waitFor(t, "Ping to refuse once the record is read again", func() bool { return errors.Is(e.Ping(ctx), engine.ErrDatabaseCorrupt) })
	close(release) // a's answer arrives after the damage was found
	waitFor(t, "the observer to hold", func() bool { return logs.count("background observer held: the database file is known damaged") > 0 })
	time.Sleep(store.DamageMarkRecheck / 2)
	observed := func(thread string) int {
		t.Helper()
		obs, err := e.Observations(ctx, observe.Filter{ThreadID: thread})
		if err != nil {
			t.Fatal(err)
		}
		return len(obs)
	}
	if got, want := srv.Count("/v1/chat/completions"), 1; got != want {
		t.Fatalf("model calls while the record is there: %d, want %d (a's, begun before it)", got, want)
	}
	if a, b := observed("a"), observed("b"); a+b > 0 {
		t.Fatalf("observations stored while the record is there: a %d, b %d; want none", a, b)
	}
	if _, err := store.RemoveDamageMark(path); err != nil { // a full check elsewhere
		t.Fatal(err)
	}
	waitFor(t, "b to be observed once the record is removed", func() bool { return observed("b") > 0 })
	waitFor(t, "a to be observed once the record is removed", func() bool { return observed("a") > 0 })
	if got, want := logs.count("background observer held"), 1; got != want {
		t.Errorf("'background observer held' logged %d times, want %d", got, want)
	}
}

// TestReplacedDrainerHeldSaysReplaced: the outbox drainer held because
// mnemo.db was replaced under the engine says so in its log line, not
// that the file is known damaged (it said "known damaged": the operator
// looked for damage that was not there, and for a record whose removal
// would never resume it).
//
// SQLite only: the data directory's file.
func TestReplacedDrainerHeldSaysReplaced(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, engine.DatabaseFile)
	emb := &heldEmbedder{entered: make(chan struct{}, 1)} // catchup_test.go
	release := emb.setHold("the ferry left at noon m1")
	logs := &logCount{}
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: emb, Logger: logs.logger()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("m1", "the ferry left at noon m1")}}); err != nil {
		t.Fatal(err)
	}
	<-emb.entered // the drainer's batch waits for the embedder
	backup := filepath.Join(t.TempDir(), "backup.db")
	vacuumInto(t, path, backup)
	if err := os.Rename(backup, path); err != nil { // a restore under the running engine
		t.Fatal(err)
	}
	waitReplaced(t, e)
	release()
	waitFor(t, "the drainer to hold", func() bool { return logs.count("outbox drain held") > 0 })
	if got, want := logs.count("outbox drain held: the database file was replaced while this process had it open"), 1; got != want {
		t.Errorf("held lines naming the replacement: %d, want %d", got, want)
	}
	if n := logs.count("known damaged"); n > 0 {
		t.Errorf("%d lines say the file is known damaged; it was replaced, not damaged", n)
	}
}
