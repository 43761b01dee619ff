package recall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
	"github.com/mnemo-go/mnemo/recall"
)

// syncSource is a Source whose resource can change while the Index reads
// it (the engine's store: an erasure commits there before Index.Remove).
type syncSource struct {
	mu   sync.Mutex
	docs map[string][]recall.Doc
}

func (s *syncSource) snapshot(r string) []recall.Doc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.docs[r])
}

func (s *syncSource) ResourceDocs(_ context.Context, r string, fn func(*recall.Doc) error) error {
	docs := s.snapshot(r)
	for i := range docs {
		if err := fn(&docs[i]); err != nil {
			return err
		}
	}
	return nil
}

func (s *syncSource) ResourceVectors(_ context.Context, r, _ string, fn func(string, []float32) error) error {
	for _, d := range s.snapshot(r) {
		if err := fn(d.ID, recall.HashVector(d.Text())); err != nil {
			return err
		}
	}
	return nil
}

func (s *syncSource) update(r string, f func([]recall.Doc) []recall.Doc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs[r] = f(s.docs[r])
}

// TestSearchRacesErasure runs searches of a large resource (channels in
// parallel, with and without filters, both scopes, every mode) while
// threads are added and erased the engine's way (the store first, then
// Index.Remove) and the shard is dropped and reloaded (Forget): no search
// fails or panics, and none returns a message whose Remove had returned
// before it started. Run it with -race.
func TestSearchRacesErasure(t *testing.T) {
	ctx := context.Background()
	c, err := synth.New(synth.Config{Messages: 5000, Resources: 1})
	if err != nil {
		t.Fatal(err)
	}
	lex, err := recall.OpenLexical(t.TempDir() + "/lexical")
	if err != nil {
		t.Fatal(err)
	}
	src := &syncSource{docs: map[string][]recall.Doc{}}
	var all []recall.Doc
	for th := range c.All() {
		for i, m := range th.Messages {
			all = append(all, recall.Doc{ID: m.ID, ThreadID: th.ID, ResourceID: th.ResourceID, Seq: int64(i + 1), Role: m.Role, Name: m.Name, Content: m.Content, CreatedAt: m.CreatedAt})
		}
	}
	res := all[0].ResourceID
	src.docs[res] = all
	if err := lex.Index(all); err != nil {
		t.Fatal(err)
	}
	ix, err := recall.NewIndex(recall.Config{Lexical: lex, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })

	var (
		mu      sync.Mutex
		removed = map[string]bool{}
		live    atomic.Value // the thread being written
		done    atomic.Bool
		wg      sync.WaitGroup
		found   atomic.Int64 // searches that found a thread being written
	)
	live.Store("")
	fail := make(chan string, 16)
	report := func(format string, a ...any) {
		select {
		case fail <- fmt.Sprintf(format, a...):
		default:
		}
	}
	wg.Add(1)
	go func() { // writer: add a thread, erase it
		defer wg.Done()
		defer done.Store(true)
		for round := range 12 {
			th := fmt.Sprintf("zz-%d", round)
			var docs []recall.Doc
			var vecs [][]float32
			for k := range 4 {
				d := recall.Doc{ID: fmt.Sprintf("%s.%d", th, k), ThreadID: th, ResourceID: res, Seq: int64(k + 1), Role: []string{"user", "assistant"}[k%2],
					Content: fmt.Sprintf("the quokka lighthouse keeper %d rang at noon", k), CreatedAt: time.Unix(int64(round*10+k), 0)}
				docs = append(docs, d)
				vecs = append(vecs, recall.HashVector(d.Text()))
			}
			src.update(res, func(ds []recall.Doc) []recall.Doc { return append(ds, docs...) })
			if err := ix.Add(ctx, docs, vecs); err != nil {
				report("add: %v", err)
				return
			}
			live.Store(th)
			time.Sleep(time.Millisecond)
			ids := map[string]bool{}
			for _, d := range docs {
				ids[d.ID] = true
			}
			src.update(res, func(ds []recall.Doc) []recall.Doc {
				return slices.DeleteFunc(ds, func(d recall.Doc) bool { return ids[d.ID] })
			})
			if round%3 == 0 {
				ix.Forget() // the next search loads the store without the thread; bleve still has it
				time.Sleep(time.Millisecond)
			}
			if err := ix.Remove(ctx, slices.Sorted(func(yield func(string) bool) {
				for id := range ids {
					if !yield(id) {
						return
					}
				}
			})); err != nil {
				report("remove: %v", err)
				return
			}
			mu.Lock()
			for id := range ids {
				removed[id] = true
			}
			mu.Unlock()
		}
	}()
	filters := []string{"", `{"role":"user"}`, `{"threadId":"none"}`, `{"seq":{"$lte":2}}`}
	modes := []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid}
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; !done.Load(); i++ {
				mu.Lock()
				before := make(map[string]bool, len(removed))
				for id := range removed {
					before[id] = true
				}
				mu.Unlock()
				q := recall.Query{Text: "quokka lighthouse keeper", ResourceID: res,
					Options: recall.Options{TopK: 8, Mode: modes[i%3], MessageRange: recall.Range{Before: 1, After: 1}}}
				if f := filters[i/3%len(filters)]; f != "" {
					q.Options.Filter = json.RawMessage(f)
				}
				if i%5 == 0 {
					q.ThreadID, q.Options.Scope = live.Load().(string), recall.ScopeThread
					if q.ThreadID == "" {
						q.ThreadID = all[0].ThreadID
					}
				}
				r, err := ix.Search(ctx, q)
				if err != nil {
					report("search %+v: %v", q, err)
					return
				}
				for _, h := range r.Hits {
					if before[h.MessageID] {
						report("%s search (filter %s, scope %s): %s returned after its Remove", q.Options.Mode, q.Options.Filter, q.Options.Scope, h.MessageID)
						return
					}
					if h.ThreadID[:3] == "zz-" {
						found.Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(fail)
	for msg := range fail {
		t.Error(msg)
	}
	if found.Load() == 0 {
		t.Fatal("no search found a thread being written: the race was not exercised")
	}
}
