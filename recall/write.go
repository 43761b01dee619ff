package recall

import (
	"context"
	"fmt"
	"slices"
)

// Writes: the engine's outbox drainer adds, embeds and removes messages;
// each write goes to the lexical index and to the loaded shards.

// Add indexes docs lexically (one persisted bleve batch) and updates the
// in-memory state of their resources when loaded. vecs is nil or parallel to
// docs; a nil vector means "not embedded yet" (AddVectors adds it later).
// The caller stores vectors in SQLite before calling Add, so that a resource
// loaded concurrently sees them. Errors: ErrClosed after Close; ErrDimension
// for a vector of another length than the embedder's; the lexical index's
// (Lexical.Index); ctx's.
func (ix *Index) Add(ctx context.Context, docs []Doc, vecs [][]float32) error {
	ix.wroteDocs(docs)
	wait, err := ix.addStart(ctx, docs, vecs)
	if err != nil {
		return err
	}
	return wait()
}

// wroteDocs counts one write per document towards its resource's next
// snapshot.
func (ix *Index) wroteDocs(docs []Doc) {
	for i := range docs {
		ix.snap.wrote(docs[i].ResourceID, 1)
	}
}

// addStart is Add with the bleve batch written in the background and the
// writes not counted for the snapshot schedule (wroteDocs): the loaded
// resources are updated before it returns; wait returns the batch's error
// once it is persisted (it must be called).
func (ix *Index) addStart(ctx context.Context, docs []Doc, vecs [][]float32) (wait func() error, err error) {
	if len(docs) == 0 {
		return func() error { return nil }, nil
	}
	for i := range vecs {
		if vecs[i] != nil && len(vecs[i]) != ix.emb.Dims() {
			return nil, fmt.Errorf("%w: vector of %s has %d dims, want %d", ErrDimension, docs[i].ID, len(vecs[i]), ix.emb.Dims())
		}
	}
	for i := range docs {
		if err := ix.putLoaded(ctx, &docs[i], vecs, i); err != nil {
			return nil, err
		}
	}
	done := make(chan error, 1)
	go func() { done <- ix.cfg.Lexical.Index(docs) }()
	return func() error { return <-done }, nil
}

// putLoaded puts docs[i] (and vecs[i], if any) into its resource's shard
// when loaded, guarded against a fault in its snapshot mapping
// (retryFaults: the shard is then dropped, and built again from the Source
// on its next use, which holds the document).
func (ix *Index) putLoaded(ctx context.Context, d *Doc, vecs [][]float32, i int) error {
	_, err := retryFaults(ix, func() (struct{}, error) { return struct{}{}, ix.putLoadedOnce(ctx, d, vecs, i) })
	return err
}

// putLoadedOnce is putLoaded unguarded.
func (ix *Index) putLoadedOnce(ctx context.Context, d *Doc, vecs [][]float32, i int) error {
	s := ix.loadedShard(d.ResourceID)
	if s == nil || ix.checkedShard(s) == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loaded {
		return nil
	}
	s.putDoc(d, ix.cfg.Lexical)
	if i < len(vecs) && vecs[i] != nil {
		return s.putVector(ctx, d.ID, vecs[i])
	}
	return nil
}

// AddVectors adds vectors computed after their messages were indexed
// (resource's state is updated only when loaded; SQLite holds them anyway).
// ids and vecs are parallel. Errors: as Add's.
func (ix *Index) AddVectors(ctx context.Context, resource string, ids []string, vecs [][]float32) error {
	return ix.addVectors(ctx, resource, ids, vecs, false)
}

// addVectors is AddVectors; counted says the messages' writes are counted
// for the snapshot schedule otherwise (Indexer.Update counts a message
// indexed and embedded in one call once, after its vector is stored: one
// write a message, not two, and a snapshot it makes due holds the vector).
func (ix *Index) addVectors(ctx context.Context, resource string, ids []string, vecs [][]float32, counted bool) error {
	if !counted {
		ix.snap.wrote(resource, len(ids))
	}
	_, err := retryFaults(ix, func() (struct{}, error) { return struct{}{}, ix.addVectorsOnce(ctx, resource, ids, vecs) })
	return err
}

// addVectorsOnce adds the vectors to resource's shard when loaded
// (addVectors unguarded).
func (ix *Index) addVectorsOnce(ctx context.Context, resource string, ids []string, vecs [][]float32) error {
	s := ix.loadedShard(resource)
	if s == nil || ix.checkedShard(s) == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loaded {
		return nil
	}
	for i, id := range ids {
		if len(vecs[i]) != ix.emb.Dims() {
			return fmt.Errorf("%w: vector of %s has %d dims, want %d", ErrDimension, id, len(vecs[i]), ix.emb.Dims())
		}
		if err := s.putVector(ctx, id, vecs[i]); err != nil {
			return err
		}
	}
	return nil
}

// Remove deletes ids from the lexical index, from the loaded resources and
// from the snapshot files of resources, the ids' resources,
// and of the loaded resources that held one; without resources every
// snapshot file is deleted. The files are gone when Remove returns; the
// background writer writes new ones. A resource whose shard is not loaded
// and that has a snapshot gets it rewritten instead, read from itself
// without ids, so no file holds them either. Errors: the lexical index's
// (Lexical.Delete); a snapshot file's removal or rewrite; ctx's.
func (ix *Index) Remove(ctx context.Context, ids []string, resources ...string) error {
	ix.mu.Lock()
	shards := make([]*shard, 0, len(ix.shards))
	for _, s := range ix.shards {
		shards = append(shards, s)
	}
	ix.mu.Unlock()
	touched := slices.Clone(resources)
	for _, s := range shards {
		// Guarded: a fault in the shard's mapping (its file truncated
		// after the check) drops the shard, whose rebuild from the Source
		// no longer holds ids; it killed the process before.
		touch, err := retryFaults(ix, func() (bool, error) { return ix.removeFrom(ctx, s, ids) })
		if err != nil {
			return err
		}
		if touch {
			touched = append(touched, s.resource)
		}
	}
	if len(resources) > 0 {
		slices.Sort(touched)
		touched = ix.rewriteSnapshots(ctx, slices.Compact(touched))
	}
	if err := ix.snap.scrub(touched, len(resources) == 0); err != nil {
		return fmt.Errorf("recall: remove snapshots: %w", err)
	}
	return ix.cfg.Lexical.Delete(ids)
}

// removeFrom removes ids from s when loaded, and reports whether s's
// snapshot files must go (s held one of them, or was dropped).
func (ix *Index) removeFrom(ctx context.Context, s *shard, ids []string) (bool, error) {
	if ix.checkedShard(s) == nil {
		return true, nil // dropped: its files are gone too
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loaded {
		return false, nil
	}
	held := false
	for _, id := range ids {
		held = held || s.docs.get(id) != nil
		s.removeDoc(ctx, id)
	}
	if !held {
		return false, nil
	}
	return true, s.detachFile()
}
