package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestVacuumSQLite: on SQLite, Vacuum rewrites the database file: after a
// large thread is erased (secure_delete zeroed its pages, which stay in
// the file as free pages) the file shrinks, and the memory left reads the
// same. A closed engine answers ErrClosed.
func TestVacuumSQLite(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{Dir: t.TempDir(), Embedder: recall.HashEmbedder{}})
	pad := strings.Repeat("lorem ipsum dolor sit amet ", 40)
	for i := range 40 {
		var msgs []engine.Message
		for j := range 25 {
			msgs = append(msgs, engine.Message{Role: engine.RoleUser, Content: fmt.Sprintf("big %d %d %s", i, j, pad)})
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "big", ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "kept", ResourceID: "r", Messages: []engine.Message{{Role: engine.RoleUser, Content: "the one message kept"}}}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DeleteThread(ctx, "big"); err != nil {
		t.Fatal(err)
	}
	res, err := e.Vacuum(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != "sqlite" || len(res.Tables) != 1 || res.Tables[0].Name != engine.DatabaseFile {
		t.Fatalf("result %+v, want one entry for %s", res, engine.DatabaseFile)
	}
	if v := res.Tables[0]; v.BytesAfter >= v.BytesBefore || v.BytesAfter <= 0 {
		t.Errorf("the file went from %d to %d bytes, want it to shrink", v.BytesBefore, v.BytesAfter)
	}
	msgs, err := e.Messages(ctx, "kept", 1, 1)
	if err != nil || len(msgs) != 1 || msgs[0].Content != "the one message kept" {
		t.Fatalf("kept thread after vacuum: %v, %v", msgs, err)
	}
	e.Close()
	if _, err := e.Vacuum(ctx, false); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("Vacuum after Close: %v, want ErrClosed", err)
	}
}

// TestVacuumPostgres: on Postgres, Vacuum vacuums every table an erasure
// touches (plain, then full) and reports their sizes; after an erased
// thread VACUUM FULL shrinks messages, and the memory left reads the same.
// It skips without MNEMO_TEST_POSTGRES.
func TestVacuumPostgres(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	e, err := engine.Open(ctx, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	pad := strings.Repeat("lorem ipsum dolor sit amet ", 20)
	for i := range 20 {
		var msgs []engine.Message
		for j := range 25 {
			msgs = append(msgs, engine.Message{Role: engine.RoleUser, Content: fmt.Sprintf("big %d %d %s", i, j, pad)})
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "big", ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "kept", ResourceID: "r", Messages: []engine.Message{{Role: engine.RoleUser, Content: "the one message kept"}}}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DeleteThread(ctx, "big"); err != nil {
		t.Fatal(err)
	}
	res, err := e.Vacuum(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Backend != "postgres" || res.Full || len(res.Tables) != len(pgstore.ErasedTables) {
		t.Fatalf("plain vacuum: %+v", res)
	}
	// A snapshot of another session on the shared server may keep the
	// dead rows a while (pgstore's TestVacuumErasedText): retry.
	deadline := time.Now().Add(time.Minute)
	for {
		if res, err = e.Vacuum(ctx, true); err != nil {
			t.Fatal(err)
		}
		m := res.Tables[1]
		if m.Name != "messages" || !res.Full {
			t.Fatalf("full vacuum: %+v", res)
		}
		if m.BytesAfter < m.BytesBefore {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("VACUUM FULL of messages: %d -> %d bytes, want it to shrink", m.BytesBefore, m.BytesAfter)
		}
		time.Sleep(200 * time.Millisecond)
	}
	msgs, err := e.Messages(ctx, "kept", 1, 1)
	if err != nil || len(msgs) != 1 || msgs[0].Content != "the one message kept" {
		t.Fatalf("kept thread after vacuum: %v, %v", msgs, err)
	}
}
