package recall

import (
	"context"
	"fmt"
	"log/slog"
)

// VectorStore keeps the vectors an Indexer computes, one per message and
// embedder, so that a resource's shard loads them (Source.ResourceVectors)
// instead of embedding its messages again. The engine's message store
// implements it over the embeddings table.
type VectorStore interface {
	// Vectors returns the vectors stored by embedder for ids that have
	// dims values; an id without one (none stored, or a damaged one) is
	// absent from the map.
	Vectors(ctx context.Context, embedder string, dims int, ids []string) (map[string][]float32, error)
	// PutVectors stores vecs[i] (dims values) as the embedding of ids[i]
	// by embedder, all or none; a message that is not stored (erased
	// meanwhile) gets none.
	PutVectors(ctx context.Context, embedder string, dims int, ids []string, vecs [][]float32) error
}

// DerivedVectors is implemented by a VectorStore that keeps no vectors of
// some embedders and computes them from the stored message when read
// (the engine's message store on SQLite: hash-384's rows hold an empty
// blob). For
// such an embedder its PutVectors records ids as embedded and ignores vecs
// (nil or shorter than ids), and Indexer.Update computes vectors only for
// the documents of resources loaded in memory, which a later load would
// not see (issue 14: during an import no resource is loaded, and hashing
// every message for nothing was ~3 % of the ingest's CPU and 7 % of its
// allocations).
type DerivedVectors interface {
	// Derived reports whether embedder's vectors of dims values are
	// computed from the stored messages instead of stored.
	Derived(embedder string, dims int) bool
}

// Indexer is the embed-and-index pipeline: it brings both channels of an
// Index up to date for stored documents. Lexical indexing comes first and
// never waits for the embedder: stored vectors are reused, the missing ones
// are computed afterwards, stored through Store, and added to the loaded
// vector collections. The caller keeps the durable queue of what is owed
// (the engine's outbox) and retries what Update reports as not done.
type Indexer struct {
	// Index is the index updated; required.
	Index *Index
	// Store keeps the vectors computed; required.
	Store VectorStore
	// Log receives the warnings of failures that are not the caller's to
	// handle (a loaded collection that refused vectors, which is then
	// reloaded); nil discards them.
	Log *slog.Logger
}

// Indexed reports what Indexer.Update did when it returned no error.
type Indexed struct {
	// Lexical is the lexical index's refusal of the documents; when it is
	// set nothing else was done.
	Lexical error
	// Owed are the ids of the documents whose embedding failed (EmbedErr,
	// which matches ErrEmbed): they were indexed lexically when asked, and
	// have no vector yet.
	Owed []string
	// EmbedErr is the embedding failure behind Owed (it matches ErrEmbed); nil when Owed is empty.
	EmbedErr error
	// Embedded counts the vectors computed and stored now (0: every
	// document had one stored already).
	Embedded int
}

// Update indexes docs lexically when lexical is set (with their stored
// vectors), embeds those without a stored vector, stores the vectors and
// adds them to the loaded collections. The lexical index's batch is written
// (analysed, built and persisted by bleve) while the vectors are computed
// and stored, and Update returns once both are done: everything it reports
// done is durable. An error is returned when the stored vectors cannot be
// read or the new ones stored, when the embedder returns vectors of another
// dimension (matching ErrDimension), or when ctx ends while embedding; the
// failures the caller retries later are reported in Indexed (a lexical
// refusal first: the documents are indexed again, their vectors reused).
func (x *Indexer) Update(ctx context.Context, docs []Doc, lexical bool) (Indexed, error) {
	emb := x.Index.Embedder()
	ids := make([]string, len(docs))
	for i := range docs {
		ids[i] = docs[i].ID
	}
	vecs, err := x.Store.Vectors(ctx, emb.ID(), emb.Dims(), ids)
	if err != nil {
		return Indexed{}, err
	}
	wait := func() error { return nil }
	if lexical {
		list := make([][]float32, len(docs))
		for i := range docs {
			list[i] = vecs[docs[i].ID]
		}
		if wait, err = x.Index.addStart(ctx, docs, list); err != nil {
			return Indexed{Lexical: err}, nil
		}
	}
	var todo []int
	for i := range docs {
		if vecs[docs[i].ID] == nil {
			todo = append(todo, i)
		}
	}
	var out Indexed
	if len(todo) > 0 {
		out, err = x.embed(ctx, docs, todo, lexical)
	}
	// Always waited for, even when embedding failed: the batch must not be
	// written after Update returns (an erasure may follow at once).
	lerr := wait()
	if lexical {
		// Counted once done (vectors stored): a snapshot due now holds them.
		x.Index.wroteDocs(docs)
	}
	switch {
	case err != nil:
		return Indexed{}, err
	case lerr != nil:
		return Indexed{Lexical: lerr}, nil
	}
	return out, nil
}

// embed computes, stores and adds the vectors of docs[todo]; counted says
// Add counted their writes for the snapshot schedule.
func (x *Indexer) embed(ctx context.Context, docs []Doc, todo []int, counted bool) (Indexed, error) {
	emb := x.Index.Embedder()
	if d, ok := x.Store.(DerivedVectors); ok && d.Derived(emb.ID(), emb.Dims()) {
		return x.embedDerived(ctx, docs, todo, counted)
	}
	texts := make([]string, len(todo))
	ids := make([]string, len(todo))
	for j, i := range todo {
		texts[j], ids[j] = docs[i].Text(), docs[i].ID
	}
	out, err := emb.Embed(ctx, texts)
	if err == nil && len(out) != len(texts) {
		err = fmt.Errorf("%d vectors for %d texts", len(out), len(texts))
	}
	if err != nil {
		if ctx.Err() != nil {
			return Indexed{}, ctx.Err() // shutting down: nothing is owed more than before
		}
		return Indexed{Owed: ids, EmbedErr: fmt.Errorf("%w: %w", ErrEmbed, err)}, nil
	}
	for j := range out {
		if len(out[j]) != emb.Dims() {
			return Indexed{}, fmt.Errorf("%w: embedder %s returned %d dims, want %d", ErrDimension, emb.ID(), len(out[j]), emb.Dims())
		}
	}
	if err := x.Store.PutVectors(ctx, emb.ID(), emb.Dims(), ids, out); err != nil {
		return Indexed{}, err
	}
	x.addVectors(ctx, docs, todo, out, counted)
	return Indexed{Embedded: len(out)}, nil
}

// embedDerived is embed for a derived embedder (DerivedVectors): the rows
// are stored first, then only the documents of the resources loaded at
// that moment are embedded, and added to them. A resource loaded after the
// rows are stored reads their vectors (the Source computes them), and one
// loading meanwhile is waited for by addVectors (the shard's lock), as in
// embed.
func (x *Indexer) embedDerived(ctx context.Context, docs []Doc, todo []int, counted bool) (Indexed, error) {
	emb := x.Index.Embedder()
	ids := make([]string, len(todo))
	for j, i := range todo {
		ids[j] = docs[i].ID
	}
	if err := x.Store.PutVectors(ctx, emb.ID(), emb.Dims(), ids, nil); err != nil {
		return Indexed{}, err
	}
	byRes := map[string][]int{} // resource -> indexes in docs
	for _, i := range todo {
		byRes[docs[i].ResourceID] = append(byRes[docs[i].ResourceID], i)
	}
	for res, is := range byRes {
		if !counted {
			x.Index.snap.wrote(res, len(is))
		}
		if x.Index.loadedShard(res) == nil {
			continue
		}
		if err := x.embedLoaded(ctx, docs, is); err != nil {
			return Indexed{}, err
		}
	}
	return Indexed{Embedded: len(todo)}, nil
}

// embedLoaded embeds docs[is] (one loaded resource's, with a derived
// embedder: their rows are stored) and adds the vectors to the resource.
func (x *Indexer) embedLoaded(ctx context.Context, docs []Doc, is []int) error {
	emb := x.Index.Embedder()
	texts := make([]string, len(is))
	for j, i := range is {
		texts[j] = docs[i].Text()
	}
	out, err := emb.Embed(ctx, texts)
	if err == nil && len(out) != len(texts) {
		err = fmt.Errorf("%d vectors for %d texts", len(out), len(texts))
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// Stored as embedded: the resource reloads them on next use.
		x.Index.Forget()
		return nil
	}
	x.addVectors(ctx, docs, is, out, true)
	return nil
}

// addVectors adds the stored vectors out (of docs[todo]) to their
// resources' loaded collections. A collection that refuses them is
// forgotten: it reloads the stored vectors on next use.
func (x *Indexer) addVectors(ctx context.Context, docs []Doc, todo []int, out [][]float32, counted bool) {
	byRes := map[string][]int{} // resource -> indexes in todo
	for j, i := range todo {
		byRes[docs[i].ResourceID] = append(byRes[docs[i].ResourceID], j)
	}
	for res, js := range byRes {
		rids, rvecs := make([]string, len(js)), make([][]float32, len(js))
		for k, j := range js {
			rids[k], rvecs[k] = docs[todo[j]].ID, out[j]
		}
		if err := x.Index.addVectors(ctx, res, rids, rvecs, counted); err != nil {
			// The vectors are stored: the resource reloads them on
			// next use. Log and go on.
			if x.Log != nil {
				x.Log.Warn("add vectors to loaded collection", "resource", res, "err", err)
			}
			x.Index.Forget()
		}
	}
}
