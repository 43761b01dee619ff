package engine_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// garbleStoredIndex overwrites, in place, the first entry of the stored
// fields' index of the zap segment file at path (the 8 bytes the footer's
// stored-index offset points at; zapx v17's footer ends with that offset,
// the sections' offset, chunk mode, version and CRC: 8+8+4+4+4 bytes). The
// file stays mapped by bleve, which sees the new bytes; a merge that copies
// the segment's stored documents then slices past its end and panics in
// scorch's merger goroutine. Searches and batches do not read them.
func garbleStoredIndex(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	var off [8]byte
	if _, err := f.ReadAt(off[:], fi.Size()-28); err != nil {
		t.Fatal(err)
	}
	at := int64(binary.BigEndian.Uint64(off[:]))
	if at <= 0 || at+8 > fi.Size() {
		t.Fatalf("%s: stored index offset %d out of the file's %d bytes: not a zapx v17 segment?", path, at, fi.Size())
	}
	if _, err := f.WriteAt([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, at); err != nil {
		t.Fatal(err)
	}
}

// waitReason returns the first event of reason from events, failing the
// test (with what) when none comes within damageBound.
func waitReason(t *testing.T, events chan engine.Event, reason engine.EventReason, what string) engine.Event {
	t.Helper()
	bound := time.After(damageBound)
	for {
		select {
		case ev := <-events:
			if ev.Reason == reason {
				return ev
			}
		case <-bound:
			t.Fatalf("no %s event within %s: %s", reason, damageBound, what)
		}
	}
}

// TestIdleDamageRecovered: damage that scorch's merger finds in the
// background, after the drain that gave it its work has ended, is
// recovered with no further append (idx45 #1, from walk43). The damage is
// real: the live segment files of a live engine's index are garbled in
// place, and a merge of them panics in scorch's merger goroutine
// (recall.onAsyncError marks the index damaged). The merge's work comes
// from batches the test indexes directly while it holds the drain, as the
// drainer's last batch before an idle spell: no outbox row, no kick. Before,
// the drainer slept until the next append (or the next failure's backoff):
// an idle mnemo serve kept the damaged index, every search failing on
// it, and /healthz said ok. Now the damage wakes the drainer, which
// quarantines and rebuilds the index (EventQuarantined, EventRebuild), and
// IndexUnavailable reports it until then.
//
// SQLite only: it damages the bleve index's segment files.
func TestIdleDamageRecovered(t *testing.T) {
	ctx := context.Background()
	events := make(chan engine.Event, 256)
	e, err := engine.Open(ctx, engine.Config{Dir: t.TempDir(), Embedder: recall.HashEmbedder{}, Events: events})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for i := range 4 {
		msg := user(fmt.Sprint("m", i), fmt.Sprintf("zebrafold porto note %d", i))
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{msg}}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, seg := range liveSegments(t, e) {
		garbleStoredIndex(t, seg)
	}
	drainEvents(events)

	release := e.HoldDrain()
	for i := 0; engine.LexicalDamaged(e) == nil; i++ {
		if i == 500 {
			release()
			t.Fatal("no merge met a garbled segment in 500 batches: the test no longer exercises the merger's damage")
		}
		doc := recall.Doc{ID: fmt.Sprint("x", i), ThreadID: "t", ResourceID: "r", Seq: int64(100 + i), Role: "user", Content: "filler"}
		if err := engine.IndexLexical(e, []recall.Doc{doc}); err != nil && !errors.Is(err, recall.ErrCorrupt) {
			release()
			t.Fatal(err)
		}
	}
	uerr := e.IndexUnavailable()
	release()
	if !errors.Is(uerr, engine.ErrIndexUnavailable) || !errors.Is(uerr, recall.ErrCorrupt) {
		t.Errorf("IndexUnavailable with the damage found and not recovered: %v, want ErrIndexUnavailable naming the damage", uerr)
	}

	idle := "the damage was found by scorch's merger after the last drain, and nothing woke the drainer"
	waitReason(t, events, engine.EventQuarantined, idle)
	waitReason(t, events, engine.EventRebuild, idle)
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.IndexUnavailable(); err != nil {
		t.Errorf("IndexUnavailable after the rebuild: %v", err)
	}
	if ok, got := searchFinds(ctx, e, "zebrafold", "m0", "m1", "m2", "m3"); !ok {
		t.Errorf("search after the rebuild: %s", got)
	}
}
