package server_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/server"
)

// TestAPIBackendTerminated: when the Postgres server ends the engine's
// connections (a restart, a failover, pg_terminate_backend: FATAL 57P01
// "terminating connection due to administrator command"), the requests
// whose statements it ends answer 503 with Retry-After, not 500, and the
// pool recovers. The requests' statements are held on the server by a
// lock on the threads table, so they are running when their backends are
// ended (before, the test ended idle connections and hoped a request met
// one; since the pool checks an idle connection the server closed before
// using it, such a request finds a fresh one and answers 404). Only this
// test's connections are ended: they carry their own application_name.
func TestAPIBackendTerminated(t *testing.T) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	app := "mnemo-terminated-" + hex.EncodeToString(b[:])
	dsn := pgtest.DSN(t)
	e, err := engine.Open(context.Background(), engine.Config{Postgres: dsn + "&application_name=" + app})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	srv, err := server.New(server.Config{Engine: e, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	get := func() *recorder {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", "/v1/threads/t1", nil)
		rec := newRecorder()
		srv.Handler().ServeHTTP(rec, req)
		return rec
	}
	if rec := get(); rec.code != http.StatusNotFound {
		t.Fatalf("GET /v1/threads/t1 before: %d, want 404", rec.code)
	}
	ctx := context.Background()
	side, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer side.Close(ctx)
	tx, err := side.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "LOCK TABLE threads IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	const n = 4
	recs := make(chan *recorder, n)
	for range n {
		go func() { recs <- get() }()
	}
	// A request's statement waits for the lock (the others may wait for
	// a connection of the pool, or in the engine), then every backend so
	// waiting is ended.
	waiting := `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`
	for deadline := time.Now().Add(30 * time.Second); ; {
		var k int
		if err := tx.QueryRow(ctx, waiting, app).Scan(&k); err != nil {
			t.Fatal(err)
		}
		if k > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no request waits for the lock after 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var ended int
	if err := tx.QueryRow(ctx, `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND wait_event_type = 'Lock'`, app).Scan(&ended); err != nil || ended == 0 {
		t.Fatalf("ended %d backends (%v), want some", ended, err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	unavailable := 0
	for i := range n {
		switch rec := <-recs; {
		case rec.code == http.StatusServiceUnavailable && rec.hdr.Get("Retry-After") != "":
			unavailable++
		case rec.code != http.StatusNotFound:
			t.Errorf("request %d: %d, Retry-After %q; want 404, or 503 with Retry-After", i, rec.code, rec.hdr.Get("Retry-After"))
		}
	}
	if unavailable < ended {
		t.Errorf("%d requests answered 503 with Retry-After, want at least the %d whose backends were ended", unavailable, ended)
	}
	for i := 0; get().code != http.StatusNotFound; i++ {
		if i == 10 {
			t.Fatal("the pool did not recover after the backends were ended")
		}
	}
}
