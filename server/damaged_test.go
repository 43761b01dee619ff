package server_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
)

// damagedMarker is the text of the message whose page damagedDir garbles.
const damagedMarker = "zanzibar-lighthouse-keeper-secret"

// damagedDir stores alice's thread "dmg-a" (60 messages, one of them
// holding damagedMarker) and bob's thread "dmg-b" into a new directory,
// closes it (the WAL checkpointed into mnemo.db) and garbles the header
// of the messages leaf page that holds the marker, the way a stray write
// does: SQLite answers SQLITE_CORRUPT to every read that reaches the page.
func damagedDir(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	for th, res := range map[string]string{"dmg-a": "res-alice", "dmg-b": "res-bob"} {
		var msgs []engine.Message
		for i := range 60 {
			text := fmt.Sprintf("%s message %d about the weather in a town by the sea, %s", th, i, strings.Repeat("with words that take room ", 4))
			if th == "dmg-a" && i == 30 {
				text = "the " + damagedMarker + " said the refund was approved"
			}
			msgs = append(msgs, engine.Message{Role: engine.RoleUser, Content: text})
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: th, ResourceID: res, Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, engine.DatabaseFile)
	page := enginetest.PageHolding(t, path, damagedMarker)
	if name := pageOwner(t, path, page); name != "messages" {
		t.Fatalf("the marker's page %d belongs to %q, want messages", page, name)
	}
	enginetest.GarblePage(t, path, page)
	return dir
}

// pageOwner names the table or index that page (1-based) of the sound
// file at path belongs to (SQLite's dbstat).
func pageOwner(t *testing.T, path string, page int) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var name string
	if err := db.QueryRow(`SELECT name FROM dbstat WHERE pageno = ?`, page).Scan(&name); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestDamagedDatabaseAnswers: a read that meets a damaged page of mnemo.db
// answers 503 "database-damaged" (it was "unavailable", which a client
// retries) with the damaged-database detail and no
// Retry-After (the file does not heal), as /healthz does from then on,
// never 500 "internal", and the answer holds no text of the page; reads
// that miss the page still answer; appends are refused with the same 503
// (nothing stored), while erasures still run. Before, the read was a 500
// "internal" and appends went on into the damaged file with 200.
func TestDamagedDatabaseAnswers(t *testing.T) {
	dir := damagedDir(t)
	e, err := engine.Open(context.Background(), engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatalf("open of the damaged directory: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	h := newHarnessFor(t, true, server.Config{}, e)

	damaged := func(r response, what string) {
		t.Helper()
		if r.status != http.StatusServiceUnavailable {
			t.Fatalf("%s: status %d, want 503; body %s", what, r.status, r.body)
		}
		p := r.problem(t)
		if p.Type != server.ProblemTypeBase+"database-damaged" || p.Title != "Database damaged" || p.Detail != server.DatabaseDamagedDetail {
			t.Fatalf("%s: problem %+v, want database-damaged with the damaged-database detail", what, p)
		}
		if ra := r.header.Get("Retry-After"); ra != "" {
			t.Errorf("%s: Retry-After %q on a damage that does not heal", what, ra)
		}
		body := strings.ReplaceAll(string(r.body), p.Instance, "") // the request's own path
		for _, leak := range []string{damagedMarker, "dmg-b", "res-bob", "weather", "malformed", dir} {
			if strings.Contains(body, leak) {
				t.Errorf("%s: answer holds %q: %s", what, leak, r.body)
			}
		}
	}

	h.ok("GET", "/healthz", "/healthz", "", nil, 200)
	damaged(h.do("GET", "/v1/threads/dmg-a/messages", aliceToken, nil), "read of the damaged page")
	damaged(h.do("POST", "/v1/context", aliceToken, map[string]any{"threadId": "dmg-a", "runId": "run-dmg", "recentN": 100}), "context over the damaged page")
	damaged(h.do("POST", "/v1/search", aliceToken, map[string]any{"query": "zanzibar lighthouse keeper refund"}), "search hitting the damaged page")
	damaged(h.do("GET", "/healthz", "", nil), "healthz after the damage")

	// bob's thread lies on other pages: its reads answer.
	var page struct {
		Messages []struct{ Content string } `json:"messages"`
	}
	h.ok("GET", "/v1/threads/{thread}/messages", "/v1/threads/dmg-b/messages", bobToken, nil, 200).decode(t, &page)
	if len(page.Messages) != 60 {
		t.Fatalf("bob's thread: %d messages, want 60", len(page.Messages))
	}

	// Appends are refused, to a sound thread as to a new one: nothing stored.
	damaged(h.do("POST", "/v1/threads/dmg-b/messages", bobToken, map[string]any{"messages": []map[string]any{{"role": "user", "content": "after the damage"}}}), "append after the damage")
	damaged(h.do("POST", "/v1/threads/dmg-new/messages", bobToken, map[string]any{"messages": []map[string]any{{"role": "user", "content": "after the damage"}}}), "append of a new thread")
	h.ok("GET", "/v1/threads/{thread}/messages", "/v1/threads/dmg-b/messages", bobToken, nil, 200).decode(t, &page)
	if len(page.Messages) != 60 {
		t.Fatalf("bob's thread after the refused append: %d messages, want 60", len(page.Messages))
	}
	if r := h.do("GET", "/v1/threads/dmg-new/messages", bobToken, nil); r.status != http.StatusNotFound {
		t.Fatalf("the refused append's new thread: status %d; body %s", r.status, r.body)
	}
	// An erasure still runs (nothing erased may stay readable).
	h.ok("DELETE", "/v1/threads/{thread}", "/v1/threads/dmg-b", opsToken, nil, 200)
}

// TestDescribePostgresDamage: Postgres's damaged data (SQLSTATE XX001
// data_corrupted, XX002 index_corrupted) is the same lasting 503 with the
// Postgres advice, not a 500 "internal"; another XX error stays internal.
func TestDescribePostgresDamage(t *testing.T) {
	for code, want := range map[string]int{"XX001": 503, "XX002": 503, "XX000": 500} {
		err := fmt.Errorf("engine: read: %w", &pgconn.PgError{Code: code, Message: "invalid page in block 7 of relation base/5/16384"})
		p := server.Describe(err)
		if p.Status != want || (want == 503) != (p.Detail == server.PostgresDamagedDetail) {
			t.Errorf("SQLSTATE %s: %+v, want status %d", code, p, want)
		}
		if strings.Contains(p.Detail, "block 7") {
			t.Errorf("SQLSTATE %s: detail shows the server's message: %s", code, p.Detail)
		}
	}
}
