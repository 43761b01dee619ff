package recall

import (
	"context"
	"fmt"
	"slices"
)

// threadMarks are the store's marks of a resource's threads, or the error
// reading them.
type threadMarks struct {
	marks []ThreadMark
	err   error
}

// readMarks starts reading the store's marks of s's threads (caller holds
// mu, so that no write to s is applied meanwhile) and returns where they
// will be delivered: a load reads them while it decodes the snapshot file
// (the query, ~8 ms at 1,000 threads, runs beside the decoding; issue 14).
func (s *shard) readMarks(ctx context.Context, src SnapshotSource) <-chan threadMarks {
	out := make(chan threadMarks, 1)
	go func() {
		var tm threadMarks
		tm.err = src.ThreadMarks(ctx, s.resource, func(m ThreadMark) error {
			tm.marks = append(tm.marks, m)
			return nil
		})
		loadMark("thread marks (beside)")
		out <- tm
	}()
	return out
}

// catchUp brings the shard read from a snapshot (caller holds mu) up to
// date with the store (snapshot.go) and returns how many messages changed.
// marks are the store's thread marks (readMarks, read since mu is held);
// vectorless lists the snapshot's messages without a vector.
func (s *shard) catchUp(ctx context.Context, src SnapshotSource, emb Embedder, lex *Lexical, tm threadMarks, vectorless []string) (int, error) {
	if tm.err != nil {
		return 0, fmt.Errorf("recall: threads of %s: %w", s.resource, tm.err)
	}
	marks := tm.marks
	need := vectorless
	changed := 0
	put := func(d *Doc) error {
		s.putDoc(d, lex)
		need = append(need, d.ID)
		changed++
		return nil
	}
	seen := make(map[string]bool, len(marks))
	for _, m := range marks {
		seen[m.ThreadID] = true
		th := s.threads[m.ThreadID]
		var last int64
		if len(th) > 0 {
			last = th[len(th)-1].doc.Seq
		}
		if int64(len(th)) == m.Messages && last == m.LastSeq {
			continue
		}
		before := changed
		if int64(len(th)) <= m.Messages && m.LastSeq > last {
			if err := src.ThreadDocs(ctx, s.resource, m.ThreadID, last, put); err != nil {
				return 0, fmt.Errorf("recall: catch up %s: %w", m.ThreadID, err)
			}
		}
		if int64(len(th)+changed-before) == m.Messages {
			continue
		}
		// A message of the snapshot is gone: read the thread again.
		n, err := s.dropThread(ctx, m.ThreadID)
		if err != nil {
			return 0, err
		}
		changed += n
		if err := src.ThreadDocs(ctx, s.resource, m.ThreadID, 0, put); err != nil {
			return 0, fmt.Errorf("recall: catch up %s: %w", m.ThreadID, err)
		}
	}
	for t := range s.threads {
		if !seen[t] {
			n, err := s.dropThread(ctx, t)
			if err != nil {
				return 0, err
			}
			changed += n
		}
	}
	return changed, s.catchUpVectors(ctx, src, emb, need)
}

// catchUpVectors reads the stored vectors of ids (caller holds mu).
func (s *shard) catchUpVectors(ctx context.Context, src SnapshotSource, emb Embedder, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for _, id := range ids {
		delete(s.damaged, id) // damaged again below if still so
	}
	if err := src.MessageVectors(ctx, emb.ID(), ids, s.storedVector(ctx, emb)); err != nil {
		return fmt.Errorf("recall: load vectors of %s: %w", s.resource, err)
	}
	return nil
}

// dropThread removes the messages of thread (caller holds mu) and returns
// how many. It stops with ctx's error, checked every dropCheck messages,
// the thread then half removed: its callers (catchUp, through
// fromSnapshot) reset the shard on error. A thread of 30,000 messages took
// 0.5-2.8 s to drop, in an erasure's purge that its context could not
// stop.
func (s *shard) dropThread(ctx context.Context, thread string) (int, error) {
	th := slices.Clone(s.threads[thread])
	for i := len(th) - 1; i >= 0; i-- { // the last first: each removal shifts nothing
		if (len(th)-1-i)%dropCheck == 0 {
			if err := ctx.Err(); err != nil {
				return 0, fmt.Errorf("recall: catch up %s: %w", thread, err)
			}
		}
		s.removeDoc(ctx, th[i].doc.ID)
	}
	delete(s.threads, thread)
	return len(th), nil
}

// dropCheck is how many messages dropThread removes between two checks of
// its context.
const dropCheck = 256
