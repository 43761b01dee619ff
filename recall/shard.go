package recall

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/philippgille/chromem-go"
)

// entry is one message in a shard.
type entry struct {
	doc    Doc
	terms  []uint32 // ids (shard.stats) of the analysed terms of doc.Text(), repeats kept
	hasVec bool
}

// shard is the in-memory state of one resource: its messages (for filters,
// exact BM25 statistics and range neighbours) and its chromem-go collection.
// It is loaded from the Source on the resource's first search and kept up to
// date by Index.Add afterwards.
type shard struct {
	loadMu sync.Mutex // serialises loading
	mu     sync.RWMutex
	loaded bool

	resource string
	docs     map[string]*entry
	threads  map[string][]*entry // by seq
	stats    bm25Stats
	col      *chromem.Collection
	dims     int
	// damaged holds the messages whose stored embedding was skipped at
	// load because it had the wrong length; putVector clears an entry.
	damaged map[string]bool

	// Guarded by Index.mu: the search tick of the last use, and the
	// messages counted when the shard loaded (0 when not counted).
	lastUse uint64
	size    int
}

// unload drops the shard's state (Index.unloadFor has removed it from the
// index); a search that still holds it sees loaded false and loads the
// resource again.
func (s *shard) unload() {
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loaded = false
	s.docs, s.threads, s.col, s.damaged = nil, nil, nil, nil
	s.stats = bm25Stats{}
}

// errNoEmbed is the embedding function given to chromem: recall always
// passes vectors, so chromem must never embed (its nil default would call
// OpenAI over the network).
var errNoEmbed = errors.New("recall: chromem asked to embed; vectors are always supplied")

func noEmbed(context.Context, string) ([]float32, error) { return nil, errNoEmbed }

func newShard(resource string) *shard {
	return &shard{resource: resource}
}

// reset empties the shard (caller holds mu).
func (s *shard) reset() error {
	s.docs = map[string]*entry{}
	s.threads = map[string][]*entry{}
	s.stats = bm25Stats{}
	s.damaged = nil
	db := chromem.NewDB()
	col, err := db.CreateCollection(s.resource, nil, noEmbed)
	if err != nil {
		return fmt.Errorf("recall: create collection %s: %w", s.resource, err)
	}
	s.col = col
	return nil
}

// load fills the shard from src (caller holds loadMu). A stored embedding
// of the wrong length is skipped and its message recorded in s.damaged:
// the message stays searchable lexically, and the Index reports it
// (Config.Damaged) so that it is embedded again.
func (s *shard) load(ctx context.Context, src Source, emb Embedder, lex *Lexical) error {
	docs, err := src.ResourceDocs(ctx, s.resource)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.reset(); err != nil {
		return err
	}
	for i := range docs {
		s.putDoc(&docs[i], lex)
	}
	var vdocs []chromem.Document
	err = src.ResourceVectors(ctx, s.resource, emb.ID(), func(id string, v []float32) error {
		e := s.docs[id]
		if e == nil {
			return nil // an embedding whose message is gone: Check reports it
		}
		if len(v) != emb.Dims() {
			if s.damaged == nil {
				s.damaged = map[string]bool{}
			}
			s.damaged[id] = true
			return nil
		}
		vdocs = append(vdocs, chromem.Document{ID: id, Embedding: v, Metadata: map[string]string{"thread": e.doc.ThreadID}})
		e.hasVec = true
		return nil
	})
	if err != nil {
		return err
	}
	if len(vdocs) > 0 {
		if err := s.col.AddDocuments(ctx, vdocs, 2); err != nil {
			return fmt.Errorf("recall: load vectors of %s: %w", s.resource, err)
		}
	}
	s.loaded = true
	return nil
}

// putDoc adds or replaces d (caller holds mu).
func (s *shard) putDoc(d *Doc, lex *Lexical) *entry {
	if old := s.docs[d.ID]; old != nil {
		s.stats.remove(old.terms)
		old.doc = *d
		old.terms = s.stats.termIDs(lex.Terms(d.Text()))
		s.stats.add(old.terms)
		return old
	}
	e := &entry{doc: *d, terms: s.stats.termIDs(lex.Terms(d.Text()))}
	s.docs[d.ID] = e
	s.stats.add(e.terms)
	th := s.threads[d.ThreadID]
	i, _ := slices.BinarySearchFunc(th, d.Seq, func(e *entry, seq int64) int {
		switch {
		case e.doc.Seq < seq:
			return -1
		case e.doc.Seq > seq:
			return 1
		}
		return 0
	})
	s.threads[d.ThreadID] = slices.Insert(th, i, e)
	return e
}

// removeDoc deletes id (caller holds mu).
func (s *shard) removeDoc(ctx context.Context, id string) {
	e := s.docs[id]
	if e == nil {
		return
	}
	delete(s.docs, id)
	delete(s.damaged, id)
	s.stats.remove(e.terms)
	th := s.threads[e.doc.ThreadID]
	if i := slices.Index(th, e); i >= 0 {
		s.threads[e.doc.ThreadID] = slices.Delete(th, i, i+1)
	}
	if e.hasVec {
		_ = s.col.Delete(ctx, nil, nil, id)
	}
}

// putVector adds or replaces the vector of id (caller holds mu).
func (s *shard) putVector(ctx context.Context, id string, v []float32) error {
	e := s.docs[id]
	if e == nil {
		return nil
	}
	if err := s.col.AddDocument(ctx, chromem.Document{ID: id, Embedding: v, Metadata: map[string]string{"thread": e.doc.ThreadID}}); err != nil {
		return fmt.Errorf("recall: add vector %s: %w", id, err)
	}
	e.hasVec = true
	delete(s.damaged, id)
	return nil
}

// damagedIDs returns the messages of s.damaged, sorted (caller holds mu).
func (s *shard) damagedIDs() []string {
	ids := make([]string, 0, len(s.damaged))
	for id := range s.damaged {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// neighbours returns the entries of thread with seq in [from, to] (caller
// holds mu for reading).
func (s *shard) neighbours(thread string, from, to int64) []*entry {
	th := s.threads[thread]
	i, _ := slices.BinarySearchFunc(th, from, func(e *entry, seq int64) int {
		switch {
		case e.doc.Seq < seq:
			return -1
		case e.doc.Seq > seq:
			return 1
		}
		return 0
	})
	var out []*entry
	for ; i < len(th) && th[i].doc.Seq <= to; i++ {
		out = append(out, th[i])
	}
	return out
}
