package server_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/server"
)

// TestAPIBackendTerminated: when the Postgres server ends the engine's
// connections (a restart, a failover, pg_terminate_backend: FATAL 57P01
// "terminating connection due to administrator command"), the requests
// that meet a dead connection answer 503 with Retry-After, not 500, and
// the pool recovers. Only this test's connections are ended: they carry
// their own application_name.
func TestAPIBackendTerminated(t *testing.T) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	app := "mnemo-terminated-" + hex.EncodeToString(b[:])
	e, err := engine.Open(context.Background(), engine.Config{Postgres: pgtest.DSN(t) + "&application_name=" + app})
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
	unavailable := 0
	for round := range 3 {
		pgtest.Exec(t, pgtest.ServerDSN(t), "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", app)
		recs := make([]*recorder, 8)
		var wg sync.WaitGroup
		for i := range recs {
			wg.Go(func() { recs[i] = get() })
		}
		wg.Wait()
		for i, rec := range recs {
			switch {
			case rec.code == http.StatusServiceUnavailable && rec.hdr.Get("Retry-After") != "":
				unavailable++
			case rec.code != http.StatusNotFound:
				t.Fatalf("round %d, request %d after the backends were terminated: %d, Retry-After %q; want 404, or 503 with Retry-After", round, i, rec.code, rec.hdr.Get("Retry-After"))
			}
		}
	}
	if unavailable == 0 {
		t.Fatal("no request met a terminated connection: the test proves nothing")
	}
	for i := 0; get().code != http.StatusNotFound; i++ {
		if i == 10 {
			t.Fatal("the pool did not recover after the backends were terminated")
		}
	}
}
