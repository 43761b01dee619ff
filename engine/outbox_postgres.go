package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/recall"
)

// This file is the outbox drainer's work on Postgres. There the outbox
// only owes embeddings (a model call, which stays out of the append's
// transaction): lexical entries are written with the messages, and an
// erasure's vectors and lexical entries go with its rows (ON DELETE
// CASCADE), so nothing is left to remove. Every engine process on the
// database drains the one outbox: rows are claimed with a lease
// (msgstore.ClaimOutbox, FOR UPDATE SKIP LOCKED), so two drainers never
// embed the same rows, and the rows of a drainer that died fall due again
// when its lease ends.

// releaseWait bounds releaseRows: a server that does not answer leaves
// the rows to their lease.
const releaseWait = 2 * time.Second

// outboxLease is how long a claimed batch stays invisible to the other
// drainers: longer than embedding a batch takes.
const outboxLease = 2 * time.Minute

// claimOutbox claims the next batch of due rows for this drainer. The
// lease's end, which stamps the rows, is jittered by up to a second so
// that two claims rarely share a stamp. When the claim fails on a lost
// connection, whatever it may have claimed on the server (its answer
// lost) is released by that stamp (msgstore.ReleaseClaim), so those rows
// do not wait for the lease to end; a database still down leaves them to
// it.
func (e *Engine) claimOutbox(ctx context.Context) ([]msgstore.OutboxRow, error) {
	now := e.outboxNow()
	until := now.Add(outboxLease + time.Duration(rand.N(1000))*time.Millisecond)
	rows, err := e.ms.ClaimOutbox(ctx, now, until, outboxBatch)
	if err != nil {
		if e.Unavailable(err) && ctx.Err() == nil {
			e.releaseClaim(ctx, until)
		}
		return nil, fmt.Errorf("engine: %w", err)
	}
	return rows, nil
}

// outboxNow is the time of the outbox's claims and of the sync's count
// of held rows on Postgres: time.Now, or a test's clock (SetOutboxClock).
func (e *Engine) outboxNow() time.Time {
	if f := e.idx.clock.Load(); f != nil {
		return (*f)()
	}
	return time.Now()
}

// releaseClaim releases what a claim that failed on a lost connection
// stamped until (msgstore.ReleaseClaim), within releaseWait. The release
// may itself meet a pooled connection lost with the first (each is found
// lost only when used): it is tried again then, a few times.
func (e *Engine) releaseClaim(ctx context.Context, until time.Time) {
	ctx, cancel := context.WithTimeout(ctx, releaseWait)
	defer cancel()
	var err error
	for range 4 {
		var n int64
		if n, err = e.ms.ReleaseClaim(ctx, until, time.Now()); err == nil {
			e.log.Debug("outbox claim lost with its connection: rows released", "rows", n)
			return
		}
		if !e.Unavailable(err) {
			break
		}
	}
	e.log.Debug("outbox claim lost with its connection: rows left to their lease", "err", err)
}

// embedRows computes and stores the embeddings the rows owe, and deletes
// the rows in the transaction that stores the vectors. A message erased
// since it was queued is skipped (its row is done); a message with a
// vector by the current embedder already is not embedded again. When the
// embedder fails, the rows are deferred with backoff (deferRows).
//
// A lost connection to the database (Unavailable) is not the rows' fault:
// they are given back, due at once, with no attempt counted, and the
// error returned, so the drainer backs off (runOutbox) and embeds them
// when the database answers again. Deferred instead, rows in flight at
// each of a few outages waited minutes after the last (backoff doubles
// per attempt), and SyncIndexes, which does not wait for deferred rows,
// returned with their embeddings missing.
func (e *Engine) embedRows(ctx context.Context, rows []msgstore.OutboxRow) error {
	err := e.embedRowsOnce(ctx, rows)
	switch {
	case err == nil || ctx.Err() != nil:
		return err
	case e.Unavailable(err):
		e.releaseRows(rows)
		return err
	}
	// Retried after the backoff rather than when the lease ends.
	return e.deferRows(ctx, rows, err)
}

// embedRowsOnce is one attempt of embedRows.
func (e *Engine) embedRowsOnce(ctx context.Context, rows []msgstore.OutboxRow) error {
	ids := make([]string, 0, len(rows))
	for _, r := range rows {
		if r.Op != opDel {
			ids = append(ids, r.MessageID)
		}
	}
	emb := e.embedder()
	e.idx.hookBeforeRead()
	read, err := e.ms.MessagesByID(ctx, "", ids) // also once Close has begun (its batch in flight)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	msgs, err := messagesFromRows(read, nil)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	have, err := e.ms.Vectors(ctx, emb.ID(), emb.Dims(), ids)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	// A vector is stored only while its message still has the text read
	// here (NewVectors.Sources), so the vector of an erased text never
	// becomes the embedding of a message stored again under its id with
	// other text meanwhile (its own row embeds its new text).
	var texts, todo []string
	var sources []msgstore.VectorSource
	for i := range msgs {
		if have[msgs[i].ID] == nil {
			d := docOf(&msgs[i])
			texts, todo = append(texts, d.Text()), append(todo, d.ID)
			sources = append(sources, msgstore.SourceOf(&read[i]))
		}
	}
	if len(todo) == 0 {
		return e.doneRows(ctx, rows)
	}
	vecs, err := emb.Embed(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("%d vectors for %d texts", len(vecs), len(texts))
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // shutting down: the lease ends, the rows fall due again
		}
		return e.deferRows(ctx, rows, fmt.Errorf("%w: %w", recall.ErrEmbed, err))
	}
	for _, v := range vecs {
		if len(v) != emb.Dims() {
			return fmt.Errorf("engine: %w: embedder %s returned %d dims, want %d", recall.ErrDimension, emb.ID(), len(v), emb.Dims())
		}
	}
	err = e.ms.StoreVectors(ctx, msgstore.NewVectors{Embedder: emb.ID(), Dims: emb.Dims(), IDs: todo, Vectors: vecs, Sources: sources}, outboxIDs(rows))
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	return nil
}

// releaseRows gives back rows this drainer claimed and did not finish
// because it is stopping (Close) or lost its connection: another
// process's drainer, this one's next drain, or this database's next
// engine, embeds them at once instead of after outboxLease. A failure
// leaves them to the lease's end.
func (e *Engine) releaseRows(rows []msgstore.OutboxRow) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseWait)
	defer cancel()
	if err := e.ms.ReleaseOutbox(ctx, outboxIDs(rows), time.Now()); err != nil {
		e.log.Warn("outbox rows left to their lease", "rows", len(rows), "err", err)
	}
}

// syncPollInterval is how often syncPostgres looks whether the rows other
// drainers hold are done.
const syncPollInterval = 20 * time.Millisecond

// syncPostgres is SyncIndexes on Postgres: it drains what is due, then
// waits while other drainers hold claimed rows (LeasedOutbox), draining
// again as rows fall due (a lease that ended), until none is held or ctx
// ends. When it begins to wait it publishes EventOutboxWait (the rows
// held, their lease's end): a process killed while embedding leaves its
// rows to the lease, 2 minutes, and mnemo check printed nothing for that
// long.
func (e *Engine) syncPostgres(ctx context.Context) error {
	for waiting := false; ; waiting = true {
		// now is read before the drain: a row held at now is counted
		// below, one not held at now was due at the drain and drained.
		// Read after it, a lease that ended between the drain and the
		// count left its row pending and uncounted, and the sync
		// returned with it undrained (TestPostgresCheckSaysOutboxWait
		// failed so, now and then: "1 outbox row still pending";
		// TestPostgresSyncDrainsLeaseEndedMidSync ends the lease at that
		// step on every run, through the synced hook and the outbox's
		// clock).
		now := e.outboxNow()
		if _, err := e.drainOutbox(ctx, nil); err != nil {
			return err
		}
		hook(&e.idx.synced)
		n, err := e.ms.LeasedOutbox(ctx, now)
		if err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		if n == 0 {
			return nil
		}
		if !waiting {
			until, err := e.ms.OutboxLeaseEnd(ctx, now)
			if err != nil {
				return fmt.Errorf("engine: %w", err)
			}
			e.publish(Event{Reason: EventOutboxWait, Count: int(n), Until: until,
				Detail: fmt.Sprintf("waiting for %s another drainer claimed, until it finishes them or their lease ends (%s at the latest)", count(n, "outbox row", "outbox rows"), until.Format(time.RFC3339))})
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(syncPollInterval):
		}
	}
}
