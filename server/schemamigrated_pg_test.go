package server_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/server"
)

// TestAPISchemaMigrated: once a newer build has migrated the schema under
// a running server (its schema_version row, as a later migration commits
// it), an append answers 503 saying so, which a load balancer sends to
// another server, rather than a 500 internal error or a stored message.
func TestAPISchemaMigrated(t *testing.T) {
	dsn, srv := postgresServer(t)
	pgtest.Exec(t, dsn, `INSERT INTO schema_version (version, applied_at) VALUES ($1, 0)`, pgstore.SchemaVersion+1)
	body := `{"resourceId":"r1","messages":[{"role":"user","content":"yesterday I bought trains"}]}`
	req := httptest.NewRequest("POST", "http://127.0.0.1/v1/threads/t1/messages", bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "a newer mnemo build migrated the database's schema") {
		t.Fatalf("append after the migration: %d %s, want 503 saying the schema was migrated", rec.Code, rec.Body.String())
	}
}

// TestHealthSchemaMigrated: GET /healthz answers 503 with the append's
// detail once a newer build migrated the schema, so a load balancer stops
// sending traffic every write of which this server refuses; before the
// migration it is 200 ok. Before, it said {"status":"ok"} (walk41 #3).
func TestHealthSchemaMigrated(t *testing.T) {
	dsn, srv := postgresServer(t)
	health := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1/healthz", nil))
		return rec
	}
	if rec := health(); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"ok"`) {
		t.Fatalf("healthz before the migration: %d %s, want 200 ok", rec.Code, rec.Body.String())
	}
	pgtest.Exec(t, dsn, `INSERT INTO schema_version (version, applied_at) VALUES ($1, 0)`, pgstore.SchemaVersion+1)
	if rec := health(); rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "a newer mnemo build migrated the database's schema") {
		t.Fatalf("healthz after the migration: %d %s, want 503 saying the schema was migrated", rec.Code, rec.Body.String())
	}
}

// postgresServer is a server on an engine opened on a test schema of its
// own (pgtest.DSN, which skips without MNEMO_TEST_POSTGRES), and that
// schema's DSN.
func postgresServer(t *testing.T) (string, *server.Server) {
	t.Helper()
	dsn := pgtest.DSN(t)
	e, err := engine.Open(context.Background(), engine.Config{Postgres: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	srv, err := server.New(server.Config{Engine: e, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return dsn, srv
}
