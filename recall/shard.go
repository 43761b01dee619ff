package recall

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/philippgille/chromem-go"
)

// entry is one message in a shard.
type entry struct {
	doc   Doc
	terms []uint32 // ids (shard.stats) of the analysed terms of doc.Text(), repeats kept
	// vslot is 1 + the entry's slot in the shard's vecIndex, which holds
	// its L2-normalised vector; 0 while it has none.
	vslot int
	// ord numbers the entry within its shard (never reused while the
	// shard is loaded): per-query scratch is indexed by it.
	ord int
	// atypes holds the answer types whose expressions the entry's text
	// holds (answertype.go).
	atypes uint8
	// ref is the period the text's first relative date points to
	// (reldates.go), resolved against doc.CreatedAt; n == 0 for none.
	ref dayRange
	// prev is the message before this one in its thread (by seq), nil for
	// the first: this turn is also matched through it
	// (Tuning.ContextWeight).
	prev *entry
	// next is the message after this one in its thread, nil for the last
	// (shard.after).
	next *entry
}

// shard is the in-memory state of one resource: its messages (for filters,
// exact BM25 statistics and range neighbours), its vectors (vx) and, with
// Tuning.ExactVectors, the chromem-go collection of the exact scan. It is
// loaded from the Source on the resource's first search and kept up to date
// by Index.Add afterwards.
type shard struct {
	loadMu sync.Mutex // serialises loading
	mu     sync.RWMutex
	loaded bool

	resource string
	loc      *time.Location      // the resource's time zone (Config.Location; UTC by default)
	docs     docIndex            // by message id (shard_docs.go)
	threads  map[string][]*entry // by seq
	stats    bm25Stats
	post     postings            // the lexical channel's inverted index
	ords     int                 // entries ever put since the load (entry.ord)
	exact    bool                // Tuning.ExactVectors: col is kept
	col      *chromem.Collection // nil unless exact
	vx       *vecIndex           // the vectors; nil until the first
	text     *arena              // the entries' contents and term ids
	off      offHeap             // a snapshot load's large arrays, the entries' among them (offheap.go)
	// contentSums and termSums check the blocks of the snapshot's
	// contents and term ids on first use (snapshot_blocks.go; nil: none).
	contentSums, termSums *blockSums
	// damaged holds the messages whose stored embedding was skipped at
	// load because it had the wrong length or a value not finite; putVector clears an entry.
	damaged map[string]bool
	// topics holds each thread's vector sum (topic.go).
	topics map[string]*topic
	// typeDF counts the messages carrying each answer type (answertype.go).
	typeDF [numTypes]int
	// lexScratch keeps the lexical channel's scratch between searches
	// (lexicalPostings, scratchSlot).
	lexScratch scratchSlot[lexScratch]
	// qmarks remembers which entries' contents hold a "?" (qmark.go).
	qmarks qmarks

	// pending is the snapshot file the shard was just filled from, whose
	// vector part is still to verify (guarded by loadMu); unverified is
	// set until the check passes (snapshot_verify.go).
	pending    *snapFile
	unverified atomic.Bool
	// loadedBy is closed (and cleared) by the first search after a load
	// from a snapshot: the vector part's check waits for it (verifyLater).
	loadedBy atomic.Pointer[chan struct{}]
	// stamp is the identity of the snapshot file s maps, nil when it maps
	// none (snapshot_fault.go).
	stamp *fileStamp

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
	s.lexScratch.drop()
	s.qmarks.drop()
	s.vx.free()
	s.text.free()
	s.off.free()
	s.threads, s.col, s.vx, s.text, s.damaged, s.topics = nil, nil, nil, nil, nil, nil
	s.contentSums, s.termSums = nil, nil
	s.docs = docIndex{}
	s.stats, s.post = bm25Stats{}, postings{}
	s.stamp.release()
	s.stamp = nil
}

// errNoEmbed is the embedding function given to chromem: recall always
// passes vectors, so chromem must never embed (its nil default would call
// OpenAI over the network).
var errNoEmbed = errors.New("recall: chromem asked to embed; vectors are always supplied")

func noEmbed(context.Context, string) ([]float32, error) { return nil, errNoEmbed }

// newShard returns the unloaded shard of resource, whose dates are days of
// zone loc (nil: UTC); exact keeps a chromem-go collection of its vectors
// (Tuning.ExactVectors).
func newShard(resource string, loc *time.Location, exact bool) *shard {
	return &shard{resource: resource, loc: zone(loc), exact: exact}
}

// reset empties the shard (caller holds mu).
func (s *shard) reset() error {
	s.docs = docIndex{}
	s.threads = map[string][]*entry{}
	s.stats, s.post = bm25Stats{}, postings{loc: s.loc}
	s.ords = 0
	s.damaged, s.topics = nil, nil
	s.typeDF = [numTypes]int{}
	s.lexScratch.drop()
	s.qmarks.drop()
	s.vx.free()
	s.text.free()
	s.off.free()
	s.vx, s.col, s.text = nil, nil, &arena{}
	s.contentSums, s.termSums = nil, nil
	s.stamp.release()
	s.stamp = nil
	if !s.exact {
		return nil
	}
	db := chromem.NewDB()
	col, err := db.CreateCollection(s.resource, nil, noEmbed)
	if err != nil {
		return fmt.Errorf("recall: create collection %s: %w", s.resource, err)
	}
	s.col = col
	return nil
}

// load fills the shard from src (caller holds loadMu). A stored embedding
// of the wrong length (or not finite) is skipped and its message recorded in s.damaged:
// the message stays searchable lexically, and the Index reports it
// (Config.Damaged) so that it is embedded again.
func (s *shard) load(ctx context.Context, src Source, emb Embedder, lex *Lexical) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loadLocked(ctx, src, emb, lex)
}

// loadLocked is load with s.mu held.
func (s *shard) loadLocked(ctx context.Context, src Source, emb Embedder, lex *Lexical) error {
	if err := s.reset(); err != nil {
		return err
	}
	err := src.ResourceDocs(ctx, s.resource, func(d *Doc) error {
		s.putDoc(d, lex)
		return nil
	})
	if err != nil {
		return fmt.Errorf("recall: load messages of %s: %w", s.resource, err)
	}
	err = src.ResourceVectors(ctx, s.resource, emb.ID(), s.storedVector(ctx, emb))
	if err != nil {
		return fmt.Errorf("recall: load vectors of %s: %w", s.resource, err)
	}
	s.loaded = true
	return nil
}

// storedVector returns the function that takes a stored embedding of one
// of the shard's messages (caller holds mu): a vector of the wrong length,
// or with a value that is not finite (NaN or ±Inf: bytes damaged in the
// file; every embedder's vectors are finite, the OpenAI client's checked),
// is skipped and its message recorded in s.damaged. Kept, a non-finite
// vector scored NaN for every query, so its message left the vector
// channel without a word.
func (s *shard) storedVector(ctx context.Context, emb Embedder) func(string, []float32) error {
	return func(id string, v []float32) error {
		e := s.docs.get(id)
		if e == nil {
			return nil // an embedding whose message is gone: Check reports it
		}
		if len(v) != emb.Dims() || !finite(v) {
			if s.damaged == nil {
				s.damaged = map[string]bool{}
			}
			s.damaged[id] = true
			return nil
		}
		return s.putVector(ctx, id, v)
	}
}

// putDoc adds or replaces d (caller holds mu). The entry's content and
// term ids are kept in s.text.
func (s *shard) putDoc(d *Doc, lex *Lexical) *entry {
	doc := *d
	doc.Content = s.text.string(d.Content)
	terms := s.text.uint32s(s.stats.termIDs(lex.Terms(d.Text())))
	bits := answerBits(d.Text())
	ref := relativeDate(d.Text(), d.CreatedAt, s.loc)
	s.countTypes(bits, 1)
	if old := s.sound(s.docs.get(d.ID)); old != nil {
		s.stats.remove(old.terms)
		s.countTypes(old.atypes, -1)
		s.post.remove(old)
		s.text.eraseEntry(old)
		s.qmarks.forget(old.ord)
		if s.off.owns(unsafe.Pointer(old)) {
			kept := doc // old lies off the heap: its new fields' memory is kept (offheap.go)
			s.off.holdFor(unsafe.Pointer(old), &kept)
		}
		old.doc, old.terms, old.atypes, old.ref = doc, terms, bits, ref
		s.stats.add(old.terms)
		s.post.add(old)
		return old
	}
	e := &entry{doc: doc, terms: terms, ord: s.ords, atypes: bits, ref: ref}
	s.ords++
	s.docs.put(e)
	s.stats.add(e.terms)
	s.post.add(e)
	th := s.threads[d.ThreadID]
	i, _ := slices.BinarySearchFunc(th, d.Seq, bySeq)
	th = slices.Insert(th, i, e)
	if i > 0 {
		e.prev, th[i-1].next = th[i-1], e
	}
	if i+1 < len(th) {
		e.next, th[i+1].prev = th[i+1], e
	}
	s.post.link(e, e.prev, e.next)
	s.threads[d.ThreadID] = th
	return e
}

// bySeq orders a thread's entries (s.threads) by seq.
func bySeq(e *entry, seq int64) int {
	switch {
	case e.doc.Seq < seq:
		return -1
	case e.doc.Seq > seq:
		return 1
	}
	return 0
}

// indexIn returns e's index in th (a thread's entries, in seq order), or
// -1: a binary search by seq, not a scan, so that removing a thread's n
// entries one by one is not O(n²) (dropping a thread of 30,000 took 2-3 s
// of an erasure's purge, which no context could stop).
func indexIn(th []*entry, e *entry) int {
	if i, ok := slices.BinarySearchFunc(th, e.doc.Seq, bySeq); ok && th[i] == e {
		return i
	}
	return slices.Index(th, e)
}

// removeDoc deletes id (caller holds mu).
func (s *shard) removeDoc(ctx context.Context, id string) {
	e := s.sound(s.docs.get(id)) // its bytes are read, then zeroed
	if e == nil {
		return
	}
	s.docs.remove(e)
	delete(s.damaged, id)
	s.stats.remove(e.terms)
	s.countTypes(e.atypes, -1)
	s.post.remove(e)
	s.text.eraseEntry(e)
	s.qmarks.forget(e.ord)
	e.doc.Content, e.terms = "", nil
	th := s.threads[e.doc.ThreadID]
	if i := indexIn(th, e); i >= 0 {
		if i+1 < len(th) {
			th[i+1].prev = e.prev
		}
		if i > 0 {
			th[i-1].next = e.next
		}
		s.post.link(e.prev, e.next)
		s.threads[e.doc.ThreadID] = slices.Delete(th, i, i+1)
	}
	e.prev, e.next = nil, nil
	if e.vslot != 0 {
		if s.col != nil {
			_ = s.col.Delete(ctx, nil, nil, id)
		}
		s.topicAdd(e.doc.ThreadID, s.vx.vector(e), -1)
		s.vx.remove(e)
	}
}

// putVector adds or replaces the vector of id (caller holds mu).
func (s *shard) putVector(ctx context.Context, id string, v []float32) error {
	e := s.docs.get(id)
	if e == nil {
		return nil
	}
	v = normalised(v)
	if s.col != nil {
		// A copy: the collection keeps it, and the slab's row moves.
		doc := chromem.Document{ID: strings.Clone(id), Embedding: slices.Clone(v), Metadata: map[string]string{"thread": e.doc.ThreadID}}
		if err := s.col.AddDocument(ctx, doc); err != nil {
			return fmt.Errorf("recall: add vector %s: %w", id, err)
		}
	}
	if s.vx == nil {
		s.vx = newVecIndex(len(v))
	}
	s.topicAdd(e.doc.ThreadID, s.vx.vector(e), -1)
	s.vx.put(e, v)
	s.topicAdd(e.doc.ThreadID, v, 1)
	delete(s.damaged, id)
	return nil
}

// finite reports whether every value of v is finite: x*0 is 0 for a
// finite x and NaN for NaN or ±Inf, and NaN survives the sum.
func finite(v []float32) bool {
	var z float32
	for _, x := range v {
		z += x * 0
	}
	return z == 0
}

// normalised returns v when its L2 norm is 1 (as every embedder's is),
// else a normalised copy (chromem would make one too, and both must score
// the same values).
func normalised(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if math.Abs(sum-1) < 1e-5 || sum == 0 {
		return v
	}
	n := math.Sqrt(sum)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
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

// after returns the message after e in its thread (by seq), or nil
// (caller holds mu for reading).
func (s *shard) after(e *entry) *entry {
	if e == nil {
		return nil
	}
	return e.next
}

// neighbours returns the entries of thread with seq in [from, to] (caller
// holds mu for reading).
func (s *shard) neighbours(thread string, from, to int64) []*entry {
	th := s.threads[thread]
	i, _ := slices.BinarySearchFunc(th, from, bySeq)
	var out []*entry
	for ; i < len(th) && th[i].doc.Seq <= to; i++ {
		out = append(out, th[i])
	}
	return out
}
