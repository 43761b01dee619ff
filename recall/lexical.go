package recall

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
	bolt "go.etcd.io/bbolt"
)

// Field names in the bleve documents.
const (
	fieldText     = "text"     // name + content, AnalyzerName
	fieldResource = "resource" // keyword, for scope
	fieldThread   = "thread"   // keyword, for scope thread
)

// lexDoc is the document bleve indexes for one message. Only the fields the
// lexical query needs are indexed: the text, and the resource and thread
// for scope (keywords, not stored, no term vectors). Role, seq, created time
// and metadata filters are evaluated by recall itself over the resource's
// messages (exact and before topK, see Index.Search), so indexing them in
// bleve would only slow ingestion down.
type lexDoc struct {
	Text     string `json:"text"`
	Resource string `json:"resource"`
	Thread   string `json:"thread"`
}

// Lexical is the on-disk lexical index: bleve, scorch, BM25 scoring, the
// AnalyzerName analyzer (Fold, then bleve's "en": unicode tokenizer,
// possessive filter, lowercase, English stop words, Porter stemmer).
//
// It is safe for concurrent use. Close releases the directory; calling it
// more than once is safe (bleve itself panics on a second Close).
type Lexical struct {
	mu       sync.RWMutex
	idx      bleve.Index
	analyzer analysis.Analyzer
	path     string
	closed   bool
	damage   damageState  // see damage.go
	persist  persistState // see persist.go

	// merging is closed when the last ForceMerge Purge asked for returned
	// (nil: none asked yet); guarded by mergeMu. A Purge whose context
	// ended leaves its merge with scorch, which refuses another ("force
	// merge already in progress") until that one is done.
	mergeMu sync.Mutex
	merging chan struct{}
}

func newMapping() *mapping.IndexMappingImpl {
	im := bleve.NewIndexMapping()
	im.DefaultAnalyzer = AnalyzerName
	// BM25 only works on scorch (NewMemOnly silently falls back to TF-IDF);
	// see ../shared/DEPENDENCIES.md §3.
	im.ScoringModel = index.BM25Scoring
	text := bleve.NewTextFieldMapping()
	text.Analyzer = AnalyzerName
	text.Store = false
	text.IncludeTermVectors = false
	text.IncludeInAll = false
	kw := func() *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Store = false
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt(fieldText, text)
	dm.AddFieldMappingsAt(fieldResource, kw())
	dm.AddFieldMappingsAt(fieldThread, kw())
	// No "_all" composite field: every field is left out of it
	// (IncludeInAll false) and every query names its field, yet bleve
	// built, merged and persisted an empty _all field for each message
	// (~40 % of zapx's per-document processing in the ingest profile).
	// An index built before keeps its stored mapping and its empty _all:
	// the same hits and scores (TestLexicalWithoutAll).
	dm.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())
	im.DefaultMapping = dm
	return im
}

// OpenLexical opens the bleve index at path, creating it when path does not
// exist. An existing directory that bleve cannot open returns an error
// matching ErrCorrupt (quarantine it and rebuild); one built with another
// analyzer than AnalyzerName (an older mnemo) returns ErrStaleIndex (remove
// it and rebuild). path "" makes an in-memory
// scorch index (for tests and scratch evaluations; still BM25).
func OpenLexical(path string) (*Lexical, error) {
	l := &Lexical{path: path}
	l.damage.init()
	l.register() // damage.go: before bleve starts its goroutines
	idx, err := l.open()
	if err != nil {
		l.unregister()
		return nil, err
	}
	if derr := l.Damaged(); derr != nil {
		// Damage reported while opening (scorch's merger failed at once).
		l.unregister()
		_ = closeIndex(idx)
		return nil, derr
	}
	l.idx = idx
	l.registerPersister(idx) // damage.go
	l.analyzer = idx.Mapping().AnalyzerNamed(AnalyzerName)
	return l, nil
}

// open opens or creates the bleve index of OpenLexical and checks its
// mapping.
func (l *Lexical) open() (bleve.Index, error) {
	path := l.path
	var (
		idx bleve.Index
		err error
	)
	switch {
	case path == "":
		idx, err = bleve.NewUsing("", newMapping(), scorch.Name, scorch.Name, nil)
	default:
		if _, serr := os.Stat(path); errors.Is(serr, os.ErrNotExist) {
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return nil, fmt.Errorf("recall: create %s: %w", filepath.Dir(path), err)
			}
			idx, err = bleve.NewUsing(path, newMapping(), scorch.Name, scorch.Name, lexicalConfig())
			if err == nil {
				if err = l.persistNew(idx); err != nil { // persist.go
					_ = closeIndex(idx)
				}
			}
			if err != nil {
				// What the failed creation wrote (an index_meta.json and
				// no store/root.bolt on a full disk) would be taken for a
				// damaged index by the next open, quarantined, and the
				// creation tried again: a quarantine directory a command.
				_ = os.RemoveAll(path)
			}
		} else {
			idx, err = openExisting(path)
			if errors.Is(err, bolt.ErrTimeout) {
				return nil, fmt.Errorf("%w: %s: its lock file (store/root.bolt) was not free within %s", ErrLocked, path, BoltTimeout)
			}
			if NoSpace(err) {
				return nil, fmt.Errorf("recall: open lexical index %s: %w", path, err) // not damage (damage.go)
			}
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
			}
		}
		if err == nil {
			keepPrivate(path) // an index an older build made 0644 too
		}
	}
	if err != nil {
		return nil, fmt.Errorf("recall: open lexical index %s: %w", path, err)
	}
	im, ok := idx.Mapping().(*mapping.IndexMappingImpl)
	if !ok || im.ScoringModel != index.BM25Scoring {
		idx.Close()
		return nil, fmt.Errorf("%w: %s: not a BM25 index", ErrCorrupt, path)
	}
	if im.DefaultAnalyzer != AnalyzerName {
		idx.Close()
		return nil, fmt.Errorf("%w: %s: built with analyzer %q, want %q", ErrStaleIndex, path, im.DefaultAnalyzer, AnalyzerName)
	}
	if idx.Mapping().AnalyzerNamed(AnalyzerName) == nil {
		idx.Close()
		return nil, fmt.Errorf("recall: analyzer %q missing", AnalyzerName)
	}
	return idx, nil
}

// openExisting opens an index and checks that it answers a query: a
// directory with damaged segments may open and fail only on first use. The
// live segments' checksums are verified before bleve reads them.
func openExisting(path string) (idx bleve.Index, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic while opening: %v", r)
		}
	}()
	if err := verifySnapshotChecksums(path); err != nil { // verify.go
		return nil, err
	}
	idx, err = bleve.OpenUsing(path, lexicalConfig())
	if err != nil {
		return nil, err
	}
	if _, err := idx.DocCount(); err != nil {
		idx.Close()
		return nil, err
	}
	req := bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), 1, 0, false)
	if _, err := idx.Search(req); err != nil {
		idx.Close()
		return nil, err
	}
	return idx, nil
}

// Path returns the directory of the index ("" in memory).
func (l *Lexical) Path() string { return l.path }

// Terms returns the analysed terms of text (AnalyzerName: folded (Fold),
// lowercased, stop words removed, Porter-stemmed), in order, repeats kept.
func (l *Lexical) Terms(text string) []string {
	ts := l.analyzer.Analyze([]byte(text))
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		out = append(out, string(t.Term))
	}
	return out
}

// Index adds or replaces docs in one bleve batch. On return the batch is
// persisted (scorch waits for persistence unless the index is in memory).
// Errors: ErrClosed after Close; an error matching ErrCorrupt once the
// index is damaged (Damaged); bleve's.
func (l *Lexical) Index(docs []Doc) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return ErrClosed
	}
	b := l.idx.NewBatch()
	for i := range docs {
		d := &docs[i]
		if err := b.Index(d.ID, lexDoc{Text: d.Text(), Resource: d.ResourceID, Thread: d.ThreadID}); err != nil {
			return fmt.Errorf("recall: index message %s: %w", d.ID, err)
		}
	}
	if err := l.batch(b); err != nil {
		return fmt.Errorf("recall: index batch of %d: %w", len(docs), err)
	}
	return nil
}

// Delete removes ids (absent ids are ignored). Errors: ErrClosed after
// Close; an error matching ErrCorrupt once the index is damaged (Damaged);
// bleve's.
func (l *Lexical) Delete(ids []string) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return ErrClosed
	}
	b := l.idx.NewBatch()
	for _, id := range ids {
		b.Delete(id)
	}
	if err := l.batch(b); err != nil {
		return fmt.Errorf("recall: delete %d messages: %w", len(ids), err)
	}
	return nil
}

// Count returns the number of indexed messages. Errors: ErrClosed after
// Close; an error matching ErrCorrupt once the index is damaged (Damaged);
// bleve's.
func (l *Lexical) Count() (n uint64, err error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return 0, ErrClosed
	}
	err = l.guardRead(context.Background(), func() (err error) {
		n, err = l.idx.DocCount()
		return err
	})
	return n, err
}

// IDs returns the ids of every indexed message (for consistency checks).
// It reads every document, so it is also the deepest check of the segment
// files: damage found on the way is returned as an error matching
// ErrCorrupt (see Damaged).
func (l *Lexical) IDs(ctx context.Context) (map[string]bool, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return nil, ErrClosed
	}
	var n uint64
	err := l.guardRead(ctx, func() (err error) {
		n, err = l.idx.DocCount()
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, n)
	const page = 10000
	for from := 0; ; from += page {
		req := bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), page, from, false)
		req.SortBy([]string{"_id"})
		var res *bleve.SearchResult
		err := l.guardRead(ctx, func() (err error) {
			res, err = l.idx.SearchInContext(ctx, req)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("recall: list lexical ids: %w", err)
		}
		for _, h := range res.Hits {
			out[h.ID] = true
		}
		if len(res.Hits) < page {
			return out, nil
		}
	}
}

// Close closes the index; later calls return nil. Closing a damaged index
// does not panic: a panic inside bleve is returned as an error.
func (l *Lexical) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	defer l.unregister()
	return closeIndex(l.idx)
}

// keepPrivate makes the index_meta.json bleve just wrote in the index
// directory at path readable by its owner only (0600), as every other
// file of a data directory is: bleve writes it 0666 less the umask
// (0644 under the usual 022), where its segments and root.bolt are 0600.
// It holds no text (the mapping and the store's options), so a failure
// to change the mode is not an error of the creation.
func keepPrivate(path string) {
	_ = os.Chmod(filepath.Join(path, "index_meta.json"), 0o600)
}
