package recall

import "context"

// The shard cache: an Index loads each resource's shard from the Source on
// its first use and unloads the least recently searched ones beyond
// Tuning.MaxLoaded.

// shard returns the shard of resource, loading it when needed. It may be
// unloaded again by another goroutine before the caller locks it: callers
// check s.loaded under s.mu (see Search).
func (ix *Index) shard(ctx context.Context, resource string, qv []float32) (*shard, error) {
	ix.mu.Lock()
	s := ix.shards[resource]
	if s == nil {
		s = newShard(resource, ix.location(resource), ix.cfg.Tuning.ExactVectors)
		ix.shards[resource] = s
	}
	ix.tick++
	s.lastUse = ix.tick
	ix.mu.Unlock()
	fresh, changes, damaged, err := ix.ensureLoaded(ctx, s, qv)
	if err != nil {
		return nil, err
	}
	if fresh {
		// After loadMu is released: unloading takes other shards'
		// loadMu, and two loads must not wait for each other.
		ix.unloadFor(s)
		ix.snap.loaded(resource, s.sizeNow(), changes)
		if len(damaged) > 0 && ix.cfg.Damaged != nil {
			ix.cfg.Damaged(ctx, resource, damaged)
		}
	}
	return s, nil
}

// shardCheckedHook, set by the tests only, runs once lockedShard (or a
// write's checkedShard) has checked a shard's snapshot file (to change it
// after the check).
var shardCheckedHook func()

// ensureLoaded loads s unless it is loaded (loadMu held meanwhile, and
// released on a panic too: a fault reading a snapshot mapping,
// snapshot_fault.go). It reports whether it loaded s, how many of its
// messages were not in a snapshot, and its damaged messages.
func (ix *Index) ensureLoaded(ctx context.Context, s *shard, qv []float32) (fresh bool, changes int, damaged []string, err error) {
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	if s.loaded {
		return false, 0, nil, nil
	}
	if changes, err = ix.fill(ctx, s, qv); err != nil {
		return false, 0, nil, err
	}
	ix.verifyLater(s)
	loadMark("loaded")
	s.mu.RLock()
	defer s.mu.RUnlock()
	return true, changes, s.damagedIDs(), nil
}

// lockedShard returns resource's loaded shard read-locked (the caller
// unlocks s.mu), loading it again when it was unloaded meanwhile, or
// dropped because its snapshot file changed under its mapping
// (snapshot_fault.go).
func (ix *Index) lockedShard(ctx context.Context, resource string) (*shard, error) {
	return ix.lockedShardFor(ctx, resource, nil)
}

// lockedShardFor is lockedShard for a search of the query vector qv (nil
// for none): a load from a snapshot brings in the column pages its first
// pass reads beside the decoding (snapshot_prefetch.go).
func (ix *Index) lockedShardFor(ctx context.Context, resource string, qv []float32) (*shard, error) {
	for {
		s, err := ix.shard(ctx, resource, qv)
		if err != nil {
			return nil, err
		}
		s.mu.RLock()
		if s.loaded && !s.mappingChanged() {
			if shardCheckedHook != nil {
				shardCheckedHook()
			}
			return s, nil
		}
		changed := s.loaded
		s.mu.RUnlock()
		if changed {
			ix.dropChanged(s, "its file changed since it was mapped")
		}
	}
}

// unloadFor counts the freshly loaded shard s and unloads the least
// recently searched other shards while the loaded messages exceed
// Tuning.MaxLoaded.
func (ix *Index) unloadFor(s *shard) {
	s.mu.RLock()
	n := s.docs.len()
	s.mu.RUnlock()
	var victims []*shard
	ix.mu.Lock()
	if ix.shards[s.resource] == s && s.size == 0 {
		s.size = n
		ix.loaded += n
	}
	for ix.cfg.Tuning.MaxLoaded > 0 && ix.loaded > ix.cfg.Tuning.MaxLoaded {
		var v *shard
		for _, c := range ix.shards {
			if c != s && c.size > 0 && (v == nil || c.lastUse < v.lastUse) {
				v = c
			}
		}
		if v == nil {
			break
		}
		delete(ix.shards, v.resource)
		ix.loaded -= v.size
		v.size = 0
		victims = append(victims, v)
	}
	ix.mu.Unlock()
	for _, v := range victims {
		v.unload()
	}
}

// loadedShard returns resource's shard when it is loaded, else nil.
func (ix *Index) loadedShard(resource string) *shard {
	ix.mu.Lock()
	s := ix.shards[resource]
	ix.mu.Unlock()
	return s
}

// Forget drops every loaded resource, releasing its memory; the next search
// reloads from the Source (after a reindex).
func (ix *Index) Forget() {
	ix.mu.Lock()
	old := ix.shards
	ix.shards = map[string]*shard{}
	ix.loaded = 0
	ix.mu.Unlock()
	for _, s := range old {
		s.unload()
	}
}

// loadedCounts returns the number of loaded resources and the messages they
// held when they loaded.
func (ix *Index) loadedCounts() (resources, messages int) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, s := range ix.shards {
		if s.size > 0 {
			resources++
		}
	}
	return resources, ix.loaded
}

// vectorCount returns how many of resource's messages have a vector in the
// loaded collection, and how many messages it has, loading it if needed.
func (ix *Index) vectorCount(ctx context.Context, resource string) (vectors, messages int, err error) {
	s, err := ix.lockedShard(ctx, resource)
	if err != nil {
		return 0, 0, err
	}
	defer s.mu.RUnlock()
	return s.vx.len(), s.docs.len(), nil
}

// sizeNow returns the shard's messages.
func (s *shard) sizeNow() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.docs.len()
}
