package msgstore_test

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// openLifecycle opens a store holding three threads: t1 of r1 (active at
// 100, default lifetime, 2 messages, 10 bytes), t2 of r1 (active at 50,
// never expires, 1 message, 5 bytes) and t3 of r2 (active at 50, its own
// lifetime of 3 s, 3 messages, 7 bytes).
func openLifecycle(t *testing.T, b backend) (*msgstore.Store, *sql.DB) {
	t.Helper()
	ctx := context.Background()
	s, pool, db := b.openStore(t)
	for _, th := range []struct {
		id, resource                string
		active, ttl, count, byteLen int64
	}{{"t1", "r1", 100, 0, 2, 10}, {"t2", "r1", 50, -1, 1, 5}, {"t3", "r2", 50, 3000, 3, 7}} {
		if _, err := db.ExecContext(ctx, `INSERT INTO threads (id, resource_id, created_at, updated_at, last_active, idle_ttl, message_count, bytes)
			VALUES (?, ?, 0, 0, ?, ?, ?, ?)`, th.id, th.resource, th.active, th.ttl, th.count, th.byteLen); err != nil {
			t.Fatal(err)
		}
	}
	return s, pool
}

func TestByActivity(t *testing.T) { forEachBackend(t, testByActivity) }

func testByActivity(t *testing.T, b backend) {
	s, _ := openLifecycle(t, b)
	for _, tc := range []struct {
		resource string
		want     []msgstore.Activity
	}{
		{"", []msgstore.Activity{
			{ThreadID: "t2", ResourceID: "r1", LastActiveMS: 50, IdleTTLMS: -1, Messages: 1, Bytes: 5},
			{ThreadID: "t3", ResourceID: "r2", LastActiveMS: 50, IdleTTLMS: 3000, Messages: 3, Bytes: 7},
			{ThreadID: "t1", ResourceID: "r1", LastActiveMS: 100, IdleTTLMS: 0, Messages: 2, Bytes: 10},
		}},
		{"r1", []msgstore.Activity{
			{ThreadID: "t2", ResourceID: "r1", LastActiveMS: 50, IdleTTLMS: -1, Messages: 1, Bytes: 5},
			{ThreadID: "t1", ResourceID: "r1", LastActiveMS: 100, IdleTTLMS: 0, Messages: 2, Bytes: 10},
		}},
		{"r9", nil},
	} {
		var got []msgstore.Activity
		if err := s.ByActivity(context.Background(), tc.resource, func(a msgstore.Activity) error {
			got = append(got, a)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("ByActivity(%q) = %+v, want %+v", tc.resource, got, tc.want)
		}
	}
	stop := errors.New("stop")
	if err := s.ByActivity(context.Background(), "", func(msgstore.Activity) error { return stop }); err != stop {
		t.Errorf("ByActivity returned %v, want fn's error", err)
	}
}

func TestUsageAndLeastActive(t *testing.T) { forEachBackend(t, testUsageAndLeastActive) }

func testUsageAndLeastActive(t *testing.T, b backend) {
	ctx := context.Background()
	s, db := openLifecycle(t, b)
	for resource, want := range map[string]msgstore.Usage{"": {Messages: 6, Bytes: 22}, "r1": {Messages: 3, Bytes: 15}, "r9": {}} {
		if got, err := s.Usage(ctx, db, resource); err != nil || got != want {
			t.Errorf("Usage(%q) = %+v, %v; want %+v", resource, got, err, want)
		}
	}
	for _, tc := range []struct {
		resource, except string
		want             msgstore.Activity
		err              error
	}{
		{"", "t2", msgstore.Activity{ThreadID: "t3", ResourceID: "r2", LastActiveMS: 50}, nil},
		{"", "t9", msgstore.Activity{ThreadID: "t2", ResourceID: "r1", LastActiveMS: 50}, nil},
		{"r1", "t2", msgstore.Activity{ThreadID: "t1", ResourceID: "r1", LastActiveMS: 100}, nil},
		{"r2", "t3", msgstore.Activity{}, msgstore.ErrNotFound},
	} {
		got, err := s.LeastActive(ctx, tc.resource, tc.except)
		if !errors.Is(err, tc.err) || (tc.err == nil && got != tc.want) {
			t.Errorf("LeastActive(%q, %q) = %+v, %v; want %+v, %v", tc.resource, tc.except, got, err, tc.want, tc.err)
		}
	}
}

func TestIdlenessInTx(t *testing.T) { forEachBackend(t, testIdlenessInTx) }

func testIdlenessInTx(t *testing.T, b backend) {
	ctx := context.Background()
	s, db := openLifecycle(t, b)
	tx, err := store.Begin(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if u, err := s.Usage(ctx, tx, "r2"); err != nil || u != (msgstore.Usage{Messages: 3, Bytes: 7}) {
		t.Errorf("Usage in tx = %+v, %v", u, err)
	}
	if err := s.SetIdleTTL(ctx, tx, "t1", 500); err != nil {
		t.Fatal(err)
	}
	if a, err := s.Idleness(ctx, tx, "t1"); err != nil || a.LastActiveMS != 100 || a.IdleTTLMS != 500 {
		t.Errorf("Idleness(t1) = %+v, %v; want active 100, lifetime 500", a, err)
	}
	if ms, err := s.LastActive(ctx, tx, "t3"); err != nil || ms != 50 {
		t.Errorf("LastActive(t3) = %d, %v; want 50", ms, err)
	}
	if _, err := s.Idleness(ctx, tx, "nope"); !errors.Is(err, msgstore.ErrNotFound) {
		t.Errorf("Idleness of an unknown thread: %v, want ErrNotFound", err)
	}
	if _, err := s.LastActive(ctx, tx, "nope"); !errors.Is(err, msgstore.ErrNotFound) {
		t.Errorf("LastActive of an unknown thread: %v, want ErrNotFound", err)
	}
}

// TestThreadRefs reads the fence keys' threads: of messages across IN-list
// chunks (once per chunk), of a thread, of a resource.
func TestThreadRefs(t *testing.T) { forEachBackend(t, testThreadRefs) }

func testThreadRefs(t *testing.T, b backend) {
	ctx := context.Background()
	s, db, _ := b.openStore(t)
	ids := seed(t, b, db, store.ChunkSize+3)
	ref := msgstore.ThreadRef{ThreadID: "t1", ResourceID: "r1"}
	for _, tc := range []struct {
		name string
		read func() ([]msgstore.ThreadRef, error)
		want []msgstore.ThreadRef
	}{
		{"messages", func() ([]msgstore.ThreadRef, error) { return s.MessageThreads(ctx, append(ids, "unknown")) },
			[]msgstore.ThreadRef{ref, ref}},
		{"unknown messages", func() ([]msgstore.ThreadRef, error) { return s.MessageThreads(ctx, []string{"unknown"}) }, nil},
		{"thread", func() ([]msgstore.ThreadRef, error) { return s.ThreadRefs(ctx, "t1") }, []msgstore.ThreadRef{ref}},
		{"unknown thread", func() ([]msgstore.ThreadRef, error) { return s.ThreadRefs(ctx, "t9") }, nil},
		{"resource", func() ([]msgstore.ThreadRef, error) { return s.ResourceThreads(ctx, "r1") }, []msgstore.ThreadRef{ref}},
	} {
		got, err := tc.read()
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}
