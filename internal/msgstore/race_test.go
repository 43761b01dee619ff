package msgstore_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// This file races connections of two pools (as two engine processes would
// be) on one database: appends to one thread, one message id stored by
// two appends, and two outbox drainers.

// appendOne appends message id to thread (of resource r1, created when
// absent) as the engine does: read the head, look the id up, store it at
// the next seq, advance the thread; all in one transaction. stored is
// false when the id was already stored (an idempotent repeat); seq is the
// message's seq either way. After storing the message, it calls held
// (when not nil) and keeps the transaction open for hold.
func appendOne(ctx context.Context, s *msgstore.Store, thread, id string, held func(), hold time.Duration) (seq int64, stored bool, err error) {
	err = s.Tx(ctx, func(tx *store.Tx) error {
		now := time.UnixMilli(1000)
		head, ok, err := s.ThreadHead(ctx, tx, thread)
		if err != nil {
			return err
		}
		if !ok {
			head.ResourceID = "r1"
			if err := s.CreateThread(ctx, tx, msgstore.NewThread{ID: thread, ResourceID: "r1", Start: now, Active: now}); err != nil {
				return err
			}
		}
		ap, err := s.Appender(ctx, tx)
		if err != nil {
			return err
		}
		d, ok, err := ap.Lookup(ctx, id)
		if err != nil || ok {
			seq = d.Seq
			return err
		}
		seq, stored = head.LastSeq+1, true
		m := msgstore.Message{ID: id, ThreadID: thread, ResourceID: "r1", Seq: seq, Role: "user", Content: id, Metadata: "{}", CreatedAt: now, Tokens: 1}
		if err := ap.Insert(ctx, m, "d"); err != nil {
			return err
		}
		if err := ap.QueueIndex(ctx, id, "r1", now); err != nil {
			return err
		}
		if held != nil {
			held()
		}
		time.Sleep(hold)
		return s.AdvanceThread(ctx, tx, msgstore.ThreadAdvance{ID: thread, LastSeq: seq, Stored: 1, Latest: now, Active: now,
			Bytes: int64(len(m.Content) + len(m.Metadata))})
	})
	return seq, stored, err
}

// twoStores opens two pools on one new database.
func twoStores(t *testing.T, b backend) [2]*msgstore.Store {
	place := b.Place(t)
	return [2]*msgstore.Store{msgstore.New(b.OpenDB(t, place)), msgstore.New(b.OpenDB(t, place))}
}

// TestConcurrentAppends: appends to one new thread from connections of
// two pools get unique, gap-free seqs, and the thread is created once.
func TestConcurrentAppends(t *testing.T) { forEachBackend(t, testConcurrentAppends) }

func testConcurrentAppends(t *testing.T, b backend) {
	ctx := context.Background()
	stores := twoStores(t, b)
	const writers, each = 6, 8
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	var mu sync.Mutex
	var got []int64
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				seq, _, err := appendOne(ctx, stores[w%2], "t", fmt.Sprintf("w%d-%d", w, i), nil, 0)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				got = append(got, seq)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("append: %v", err)
	}
	slices.Sort(got)
	for i, seq := range got {
		if seq != int64(i+1) {
			t.Fatalf("seqs %v: want 1..%d, unique and gap-free", got, writers*each)
		}
	}
	th, err := stores[0].Thread(ctx, "t")
	if err != nil || th.LastSeq != writers*each || th.MessageCount != writers*each {
		t.Fatalf("Thread = %+v, %v; want last seq and count %d", th, err, writers*each)
	}
}

// TestRacingIdempotentAppend: two appends of one message id to different
// threads, from two pools, the second starting while the first holds its
// transaction: the second waits and finds the first's message (an
// idempotent repeat that names the first's thread and seq), never a
// constraint error, and one row is stored.
func TestRacingIdempotentAppend(t *testing.T) { forEachBackend(t, testRacingIdempotentAppend) }

func testRacingIdempotentAppend(t *testing.T, b backend) {
	ctx := context.Background()
	stores := twoStores(t, b)
	if _, _, err := appendOne(ctx, stores[1], "t2", "seed", nil, 0); err != nil {
		t.Fatal(err)
	}
	first, holding := make(chan error, 1), make(chan struct{})
	go func() {
		_, stored, err := appendOne(ctx, stores[0], "t1", "same", func() { close(holding) }, 300*time.Millisecond)
		if err == nil && !stored {
			err = fmt.Errorf("first append did not store")
		}
		first <- err
	}()
	select { // the first has stored the id and holds its transaction
	case <-holding:
	case err := <-first:
		t.Fatalf("first append: %v", err)
	}
	var d msgstore.StoredDigest
	var found bool
	err := stores[1].Tx(ctx, func(tx *store.Tx) error {
		if _, _, err := stores[1].ThreadHead(ctx, tx, "t2"); err != nil {
			return err
		}
		ap, err := stores[1].Appender(ctx, tx)
		if err != nil {
			return err
		}
		d, found, err = ap.Lookup(ctx, "same")
		return err
	})
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err != nil || !found || d.ThreadID != "t1" || d.Seq != 1 {
		t.Fatalf("second append's Lookup = %+v, %v, %v; want the first's message (t1, seq 1)", d, found, err)
	}
	if ms, err := stores[0].MessagesByID(ctx, "", []string{"same"}); err != nil || len(ms) != 1 {
		t.Fatalf("stored %d rows of the id, %v", len(ms), err)
	}
}

// TestClaimOutbox: two drainers on two pools claim the outbox in batches
// at once; each row is claimed by exactly one of them, and a claimed row
// falls due again when its lease ends.
func TestClaimOutbox(t *testing.T) { forEachBackend(t, testClaimOutbox) }

func testClaimOutbox(t *testing.T, b backend) {
	ctx := context.Background()
	stores := twoStores(t, b)
	const n = 300
	for i := range n {
		if _, _, err := appendOne(ctx, stores[0], fmt.Sprintf("t%d", i%3), fmt.Sprintf("m%03d", i), nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	now, until := time.UnixMilli(2000), time.UnixMilli(60_000)
	claimed := make([][]int64, 4)
	var wg sync.WaitGroup
	errs := make(chan error, len(claimed))
	for d := range claimed {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				rows, err := stores[d%2].ClaimOutbox(ctx, now, until, 7)
				if err != nil {
					errs <- err
					return
				}
				if len(rows) == 0 {
					return
				}
				for _, r := range rows {
					claimed[d] = append(claimed[d], r.ID)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var all []int64
	for _, c := range claimed {
		all = append(all, c...)
	}
	slices.Sort(all)
	if len(all) != n || len(slices.Compact(slices.Clone(all))) != n {
		t.Fatalf("claimed %d rows, %d distinct; want each of %d once", len(all), len(slices.Compact(slices.Clone(all))), n)
	}
	if due, err := stores[0].DueOutbox(ctx, now, n); err != nil || len(due) != 0 {
		t.Fatalf("DueOutbox while leased: %d rows, %v", len(due), err)
	}
	if leased, err := stores[0].LeasedOutbox(ctx, now); err != nil || leased != n {
		t.Fatalf("LeasedOutbox = %d, %v; want %d", leased, err, n)
	}
	if leased, err := stores[0].LeasedOutbox(ctx, until); err != nil || leased != 0 {
		t.Fatalf("LeasedOutbox when the lease ends = %d, %v; want 0", leased, err)
	}
	if end, err := stores[1].OutboxLeaseEnd(ctx, now); err != nil || !end.Equal(time.UnixMilli(until.UnixMilli())) {
		t.Fatalf("OutboxLeaseEnd = %v, %v; want %v", end, err, until)
	}
	if end, err := stores[1].OutboxLeaseEnd(ctx, until); err != nil || !end.IsZero() {
		t.Fatalf("OutboxLeaseEnd when the lease ends = %v, %v; want the zero time", end, err)
	}
	if err := stores[0].DeferOutbox(ctx, []msgstore.Deferral{{ID: all[0], Op: msgstore.OpIndex, NotBefore: until}}); err != nil {
		t.Fatal(err)
	}
	if leased, err := stores[1].LeasedOutbox(ctx, now); err != nil || leased != n-1 {
		t.Fatalf("LeasedOutbox after a deferral = %d, %v; want %d (a deferred row is not held)", leased, err, n-1)
	}
	if due, err := stores[1].ClaimOutbox(ctx, until, until.Add(time.Minute), n); err != nil || len(due) != n || due[0].ID != all[0] || due[0].Op != msgstore.OpIndex {
		t.Fatalf("ClaimOutbox after the lease: %d rows, %v; want %d from id %d", len(due), err, n, all[0])
	}
}

// TestAppendWaitsForErasure: an append to a thread that an erasure on
// another pool is erasing waits for the erasure to commit and then starts
// the thread anew (seq 1); the erasure neither fails on the late message
// nor leaves it behind.
func TestAppendWaitsForErasure(t *testing.T) { forEachBackend(t, testAppendWaitsForErasure) }

func testAppendWaitsForErasure(t *testing.T, b backend) {
	ctx := context.Background()
	stores := twoStores(t, b)
	for i := range 3 {
		if _, _, err := appendOne(ctx, stores[0], "t1", fmt.Sprintf("old%d", i), nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	erasing, erased := make(chan struct{}), make(chan error, 1)
	go func() {
		s := stores[0]
		erased <- s.Tx(ctx, func(tx *store.Tx) error {
			_, msgs, err := s.ErasedOfThread(ctx, tx, "t1")
			if err != nil {
				return err
			}
			close(erasing)
			time.Sleep(300 * time.Millisecond) // the append arrives now
			if _, err := s.EraseMessages(ctx, tx, msgs, time.UnixMilli(5000)); err != nil {
				return err
			}
			return s.DeleteThread(ctx, tx, "t1")
		})
	}()
	select {
	case <-erasing:
	case err := <-erased:
		t.Fatalf("erasure: %v", err)
	}
	seq, stored, err := appendOne(ctx, stores[1], "t1", "late", nil, 0)
	if err := <-erased; err != nil {
		t.Fatalf("erasure: %v", err)
	}
	if err != nil || !stored || seq != 1 {
		t.Fatalf("append during the erasure = seq %d, stored %v, %v; want seq 1 of a new thread", seq, stored, err)
	}
	th, err := stores[0].Thread(ctx, "t1")
	if err != nil || th.LastSeq != 1 || th.MessageCount != 1 {
		t.Fatalf("Thread after = %+v, %v; want one message", th, err)
	}
	if ms, err := stores[0].Messages(ctx, "t1", 0, 10); err != nil || len(ms) != 1 || ms[0].ID != "late" {
		t.Fatalf("messages after = %+v, %v; want the late one alone", ms, err)
	}
}

// TestShrinkCountsLateAppend: an erasure of messages by id and an append
// to the same thread on another pool, racing: the thread's bytes, which
// ShrinkThread recounts from the stored messages, stay exact. On Postgres
// the erasure holds the thread's lock from ErasedByID on, so the append
// waits for it; without that lock the append would hold the thread's row
// while ShrinkThread's UPDATE waits for it, and the UPDATE's recount,
// planned before the append committed, would miss the new message.
func TestShrinkCountsLateAppend(t *testing.T) { forEachBackend(t, testShrinkCountsLateAppend) }

func testShrinkCountsLateAppend(t *testing.T, b backend) {
	ctx := context.Background()
	stores := twoStores(t, b)
	for i := range 3 {
		if _, _, err := appendOne(ctx, stores[0], "t1", fmt.Sprintf("old%d", i), nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	erasing, appending := make(chan struct{}), make(chan struct{})
	erased, appended := make(chan error, 1), make(chan error, 1)
	go func() {
		s := stores[0]
		erased <- s.Tx(ctx, func(tx *store.Tx) error {
			msgs, err := s.ErasedByID(ctx, tx, []string{"old0"})
			if err != nil {
				return err
			}
			close(erasing)
			select { // the append holds the thread, or waits for this erasure
			case <-appending:
			case <-time.After(300 * time.Millisecond):
			}
			if _, err := s.EraseMessages(ctx, tx, msgs, time.UnixMilli(5000)); err != nil {
				return err
			}
			return s.ShrinkThread(ctx, tx, "t1", len(msgs))
		})
	}()
	<-erasing
	go func() {
		_, _, err := appendOne(ctx, stores[1], "t1", "late", func() { close(appending) }, 300*time.Millisecond)
		appended <- err
	}()
	if err := <-erased; err != nil {
		t.Fatalf("erasure: %v", err)
	}
	if err := <-appended; err != nil {
		t.Fatalf("append: %v", err)
	}
	th, err := stores[0].Thread(ctx, "t1")
	if err != nil || th.LastSeq != 4 || th.MessageCount != 3 {
		t.Fatalf("Thread after = %+v, %v; want last seq 4, 3 messages", th, err)
	}
	if wrong, err := stores[0].WrongThreadBytes(ctx); err != nil || len(wrong) != 0 {
		t.Fatalf("WrongThreadBytes = %+v, %v; want none", wrong, err)
	}
}
