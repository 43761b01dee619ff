package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// Outbox operations (outbox.op).
const (
	opIndex = msgstore.OpIndex // index the message lexically and embed it
	opEmbed = msgstore.OpEmbed // indexed lexically; embedding still owed
	opDel   = msgstore.OpDelete
)

// Outbox drain tuning.
const (
	// outboxBatch is how many outbox rows one drain step takes.
	outboxBatch = 512
	// outboxMaxBackoff caps the retry delay after failures.
	outboxMaxBackoff = 5 * time.Minute
	// outboxBaseBackoff is the first retry delay; it doubles per attempt.
	outboxBaseBackoff = time.Second
	// drainMaxBackoff caps the drainer's wait after failed drains (the
	// database unreachable): the embeddings owed are computed at most
	// this long after it answers again, or at the next append.
	drainMaxBackoff = time.Minute
	// outboxDebounce is how long the drainer waits after a kick before
	// draining, so that bursts of appends are indexed together.
	outboxDebounce = 20 * time.Millisecond
)

// backoff returns the retry delay after attempts failures.
func backoff(attempts int) time.Duration {
	d := outboxBaseBackoff
	for i := 1; i < attempts && d < outboxMaxBackoff; i++ {
		d *= 2
	}
	return min(d, outboxMaxBackoff)
}

// runOutbox is the drainer goroutine: it drains on start (catching up after
// a crash), after every kick, and when a retry falls due, on e.drainBg. It
// returns when Close closes e.drainStop: at once when idle, else after the
// batch in flight (drainOutbox), so that a one-shot command keeps the
// work its engine did (Close bounds the wait: CloseDrainWait). The first
// drain always takes one batch, even when Close has already begun: each
// open gets the catching up further.
func (e *Engine) runOutbox() {
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	failures := 0
	for {
		wait, err := e.drainOutbox(e.drainBg, e.drainStop)
		switch {
		case err != nil && e.drainBg.Err() == nil:
			failures++
			wait = e.drainFailed(failures, err)
		case err == nil && failures > 0:
			e.log.Info("outbox drain recovered", "failures", failures)
			failures = 0
		}
		if e.drainStopped() {
			return
		}
		if wait > 0 {
			timer.Reset(wait)
		}
		select {
		case <-e.drainStop:
			return
		case <-e.idx.room:
			e.retryOwed(e.drainBg) // index_space.go
		case <-e.idx.kick:
			// Let a burst of appends accumulate: one bleve batch and one
			// SQLite transaction for many messages (measured: ingest
			// throughput, BenchmarkRecallIngest).
			select {
			case <-e.drainStop:
				return
			case <-time.After(outboxDebounce):
			}
		case <-timer.C:
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// drainFailed logs the drainer's failures-th failure in a row, err, and
// returns how long to wait before draining again: backoff(failures),
// from a second doubling to drainMaxBackoff. It logs the first failure
// and then only every power of two (2, 4, 8…), with the count, so an
// outage of an hour writes about a dozen lines, not one a second; a kick
// (an append) still drains at once. Before, a failed drain was retried
// every second for as long as the database was unreachable, logging each
// time.
func (e *Engine) drainFailed(failures int, err error) time.Duration {
	wait := min(backoff(failures), drainMaxBackoff)
	if failures&(failures-1) == 0 {
		e.log.Warn("outbox drain failed", "failures", failures, "retry", wait.String(), "err", err)
	}
	return wait
}

// drainStopped reports whether Close has asked the drainer to stop.
func (e *Engine) drainStopped() bool {
	select {
	case <-e.drainStop:
		return true
	default:
		return false
	}
}

// drainOutbox processes every outbox row that is due and returns how long
// until the next deferred row falls due (0 when none is deferred). When
// stop is closed (the drainer's, at Close; nil for SyncIndexes) it returns
// after the batch in flight.
func (e *Engine) drainOutbox(ctx context.Context, stop <-chan struct{}) (time.Duration, error) {
	// The lock is taken per batch, not for the whole drain: under a steady
	// stream of appends the drain never runs dry, and holding the lock
	// throughout starved erasure (which purges under it) and Reindex.
	for {
		if stop != nil && e.backgroundHeld(&e.drainHeld, drainWorker) { // background_hold.go
			return store.DamageMarkRecheck, nil
		}
		// A caller's drain (SyncIndexes, Check) may wait here for the
		// background drainer's batch: it gives up when its ctx ends.
		if err := e.idx.drainMu.LockCtx(ctx); err != nil {
			return 0, err
		}
		err := e.recoverIfDamaged(ctx) // lexical_damage.go
		if err == nil {
			// An index that cannot write for lack of room stops the
			// drain: the rows stay owed (not read, embedded, given to
			// bleve's memory and deferred, batch after batch) until a
			// write of it succeeds (roomAgain).
			err = e.indexRefused() // index_space.go
		}
		var rows []msgstore.OutboxRow
		if err == nil {
			rows, err = e.dueOutbox(ctx)
		}
		if err == nil && len(rows) > 0 {
			err = e.applyOutbox(ctx, rows)
		}
		if err == nil && len(rows) > 0 {
			// Under the lock: a drain that waited for this batch (SyncIndexes
			// after the background drainer took the last rows) returns
			// with the batch checkpointed, not before its checkpoint.
			e.checkpointAfterDrain(ctx)
		}
		e.idx.drainMu.Unlock()
		if err != nil {
			return 0, err
		}
		if len(rows) == 0 {
			break
		}
		select {
		case <-stop: // Close: this batch is done, the rest waits for the next open
			return 0, nil
		default:
		}
		if stop != nil && len(rows) < outboxBatch {
			// The background drainer took every row that was due: what
			// came since is a stream of appends, so let it gather for a
			// debounce instead of draining it a few rows at a time, each
			// batch a write transaction in the appends' queue and a
			// bleve segment to merge.
			return outboxDebounce, nil
		}
	}
	next, ok, err := e.ms.NextOutboxDue(ctx)
	if err != nil {
		return 0, fmt.Errorf("engine: %w", err)
	}
	if !ok {
		return 0, nil
	}
	return max(time.Until(next), 10*time.Millisecond), nil
}

// checkpointAfterDrain copies the WAL into the database file after a
// drained batch (SQLite; best effort): the appends' own commits then rarely
// reach wal_autocheckpoint, whose checkpoint and its fsyncs the committing
// append paid (issue 14: the single appender sets an import's pace).
func (e *Engine) checkpointAfterDrain(ctx context.Context) {
	if drainCheckpointHook != nil {
		drainCheckpointHook(e)
	}
	if e.onPostgres() {
		return
	}
	if err := store.CheckpointPassive(ctx, e.db); err != nil && ctx.Err() == nil {
		e.log.Debug("WAL checkpoint after a drain failed", "err", err)
	}
}

// drainCheckpointHook, when set (tests), is called as a drained batch's
// checkpoint begins.
var drainCheckpointHook func(e *Engine)

// dueOutbox reads the next batch of due outbox rows; on Postgres it claims
// them (ClaimOutbox: leased to this drainer, skipped by the others).
func (e *Engine) dueOutbox(ctx context.Context) ([]msgstore.OutboxRow, error) {
	if e.onPostgres() {
		return e.claimOutbox(ctx) // outbox_postgres.go
	}
	due, err := e.ms.DueOutbox(ctx, time.Now(), outboxBatch)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return due, nil
}

// outboxIDs returns the rows' ids.
func outboxIDs(rows []msgstore.OutboxRow) []int64 {
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids
}

// applyOutbox brings the indexes up to date for rows: deletions first, then
// lexical indexing and embedding. Rows are deleted once done; a failed step
// is retried with exponential backoff. An embedder failure never holds back
// lexical indexing: the row becomes an "embed" row. A deletion of a message
// stored again since its erasure is a removal and then an indexing of the
// live message (removeRows), whenever it runs: the indexes then hold the
// live message and none of the erased text.
func (e *Engine) applyOutbox(ctx context.Context, rows []msgstore.OutboxRow) error {
	if e.onPostgres() {
		err := e.embedRows(ctx, rows) // outbox_postgres.go
		if err != nil && ctx.Err() != nil {
			e.releaseRows(rows)
		}
		return err
	}
	ix := e.idx.index()
	if ix == nil {
		return errors.New("engine: indexes are not open")
	}
	var dels, index, embed []msgstore.OutboxRow
	for _, r := range rows {
		switch r.Op {
		case opDel:
			dels = append(dels, r)
		case opEmbed:
			embed = append(embed, r)
		default:
			index = append(index, r)
		}
	}
	if len(dels) > 0 {
		again, err := e.removeRows(ctx, ix, dels)
		if err != nil {
			return err
		}
		index = append(again, index...)
	}
	for _, group := range [][]msgstore.OutboxRow{index, embed} {
		if len(group) == 0 {
			continue
		}
		if err := e.indexRows(ctx, ix, group); err != nil {
			return err
		}
	}
	return nil
}

// removeRows removes the messages of the delete rows dels from the
// indexes. The rows of messages no longer stored are done; those of
// messages stored again since their erasure (an import run again) are
// returned as index rows, for the caller to index the live message: its
// own index row may have been applied before this removal (deferred after
// a failure), which removed it with the erased text. On failure the rows
// are deferred (deferRows) and none is returned; the caller goes on with
// the batch's other rows, as the next batch would.
func (e *Engine) removeRows(ctx context.Context, ix *recall.Index, dels []msgstore.OutboxRow) (again []msgstore.OutboxRow, err error) {
	ids := make([]string, len(dels))
	var resources []string
	for i, r := range dels {
		ids[i] = r.MessageID
		if !slices.Contains(resources, r.Resource) {
			resources = append(resources, r.Resource)
		}
	}
	// The rows' resources: their shard snapshots are deleted too.
	if err := ix.Remove(ctx, ids, resources...); err != nil {
		return nil, e.lexicalFailed(ctx, dels, err)
	}
	stored, err := e.ms.StoredIDs(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	done := dels
	if len(stored) > 0 {
		done = make([]msgstore.OutboxRow, 0, len(dels))
		for _, r := range dels {
			if stored[r.MessageID] {
				r.Op = opIndex
				again = append(again, r)
			} else {
				done = append(done, r)
			}
		}
	}
	return again, e.doneRows(ctx, done)
}

// indexRows indexes (op index) or embeds (op embed) the rows' messages
// through recall's Indexer. Lexical indexing comes first and never waits
// for the embedder: stored vectors are reused, missing ones are computed
// afterwards, and when the embedder fails the rows become "embed" rows
// retried with backoff (lexical now, vector later).
func (e *Engine) indexRows(ctx context.Context, ix *recall.Index, rows []msgstore.OutboxRow) error {
	ids := make([]string, 0, len(rows))
	for _, r := range rows {
		ids = append(ids, r.MessageID)
	}
	e.idx.hookBeforeRead()
	msgs, read, err := e.messagesToIndex(ctx, ids) // fresh.go
	if err != nil {
		return err
	}
	docs := make([]recall.Doc, len(msgs))
	for i := range msgs {
		docs[i] = docOf(&msgs[i])
	}
	// Update writes the bleve batch while it embeds and stores the
	// vectors, and returns when both are durable: only then are the rows
	// deleted (a crash before leaves them queued; the next drain indexes
	// the messages again, reusing their stored vectors).
	x := recall.Indexer{Index: ix, Store: e.vectorStore(ix.Embedder(), read), Log: e.log}
	out, err := x.Update(ctx, docs, rows[0].Op != opEmbed)
	switch {
	case err != nil:
		return fmt.Errorf("engine: %w", err)
	case out.Lexical != nil:
		return e.lexicalFailed(ctx, rows, out.Lexical)
	case out.EmbedErr != nil:
		return e.embedFailed(ctx, rows, out.Owed, out.EmbedErr)
	}
	return e.doneRows(ctx, rows)
}

// hookBeforeRead runs the test hook beforeRead, if set.
func (s *indexState) hookBeforeRead() { hook(&s.beforeRead) }

// vectorStore returns where the drainer stores the vectors it computes
// for the messages it read as rows: the store, guarded for an embedder
// whose vectors are stored (not derived from the stored text, msgstore's
// Derived) by what the rows' texts are made of (guardedVectors).
func (e *Engine) vectorStore(emb recall.Embedder, rows []msgstore.Message) recall.VectorStore {
	if e.ms.Derived(emb.ID(), emb.Dims()) {
		return e.ms
	}
	sources := make(map[string]msgstore.VectorSource, len(rows))
	for i := range rows {
		sources[rows[i].ID] = msgstore.SourceOf(&rows[i])
	}
	return guardedVectors{Store: e.ms, sources: sources}
}

// guardedVectors is the drainer's recall.VectorStore for one batch: the
// store's, except that a vector is stored only while its message still
// has the name, content and tool calls its text was made of when read
// (msgstore.NewVectors.Sources). A message erased and stored again under
// its id with other text while the embedder computed the vector of the
// text read gets none (its own outbox row embeds the new text), also when
// it was stored again more than once and its text read in between
// (TestReStoredDuringEmbedding, TestReStoredTwiceDuringEmbedding): the
// vector of an erased text never becomes the embedding of a live message
// with another text. A derived embedder needs no guard: its vectors are
// computed from the stored text when read.
type guardedVectors struct {
	*msgstore.Store
	sources map[string]msgstore.VectorSource // by message id
}

// PutVectors implements recall.VectorStore: msgstore's, guarded by the
// sources read with the batch.
func (g guardedVectors) PutVectors(ctx context.Context, embedder string, dims int, ids []string, vecs [][]float32) error {
	sources := make([]msgstore.VectorSource, len(ids))
	for i, id := range ids {
		sources[i] = g.sources[id]
	}
	return g.StoreVectors(ctx, msgstore.NewVectors{Embedder: embedder, Dims: dims, IDs: ids, Vectors: vecs, Sources: sources}, nil)
}

// lexicalFailed records the lexical index's refusal cause of rows: they
// are deferred (deferRows). A refusal for lack of room is also returned
// (indexNoRoom), which ends the drain: the later batches would be refused
// too.
func (e *Engine) lexicalFailed(ctx context.Context, rows []msgstore.OutboxRow, cause error) error {
	if err := e.deferRows(ctx, rows, cause); err != nil {
		return err
	}
	if recall.NoSpace(cause) {
		return e.indexNoRoom(cause) // index_space.go
	}
	return nil
}

// embedFailed records the embedder's failure embedErr (matching
// recall.ErrEmbed) for the messages owed: their rows are deferred as
// "embed" rows (they are indexed lexically), the other rows are done.
func (e *Engine) embedFailed(ctx context.Context, rows []msgstore.OutboxRow, owedIDs []string, embedErr error) error {
	e.log.Warn("embedding failed; messages indexed lexically, embedding retried later", "n", len(owedIDs), "err", embedErr)
	owed := map[string]bool{}
	for _, id := range owedIDs {
		owed[id] = true
	}
	var done, later []msgstore.OutboxRow
	for _, r := range rows {
		if owed[r.MessageID] {
			later = append(later, r)
		} else {
			done = append(done, r)
		}
	}
	if err := e.doneRows(ctx, done); err != nil {
		return err
	}
	return e.deferRows(ctx, later, embedErr)
}

// docOf is recall's view of a stored message.
func docOf(m *Message) recall.Doc {
	content := m.Content
	if len(m.ToolCalls) > 0 {
		if b, err := jsonkey.Marshal(m.ToolCalls); err == nil { // the stored text, as the rebuild reads it
			content = recall.WithToolCalls(content, b)
		}
	}
	return recall.Doc{
		ID: m.ID, ThreadID: m.ThreadID, ResourceID: m.ResourceID, Seq: m.Seq, Role: m.Role,
		Name: m.Name, Content: content, Metadata: m.Metadata, CreatedAt: m.CreatedAt,
	}
}

// doneRows deletes finished outbox rows.
func (e *Engine) doneRows(ctx context.Context, rows []msgstore.OutboxRow) error {
	if len(rows) == 0 {
		return nil
	}
	if err := e.ms.DeleteOutbox(ctx, outboxIDs(rows)); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	return nil
}

// deferRows records a failure: attempts+1, retry after the backoff, and
// "embed" for rows whose failure was the embedder's. It returns nil so the
// drain continues with other rows; the failure is logged.
func (e *Engine) deferRows(ctx context.Context, rows []msgstore.OutboxRow, cause error) error {
	if len(rows) == 0 {
		return nil
	}
	embedOnly := errors.Is(cause, recall.ErrEmbed) || rows[0].Op == opEmbed
	now := time.Now()
	ds := make([]msgstore.Deferral, len(rows))
	for i, r := range rows {
		op := r.Op
		if op == opIndex && embedOnly {
			op = opEmbed
		}
		ds[i] = msgstore.Deferral{ID: r.ID, Op: op, NotBefore: now.Add(backoff(r.Attempts + 1))}
	}
	if err := e.ms.DeferOutbox(ctx, ds); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	e.log.Warn("index maintenance deferred", "rows", len(rows), "err", cause)
	return nil
}
