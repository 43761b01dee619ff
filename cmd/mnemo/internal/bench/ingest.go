package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
)

// ingest fills the engine (or, with Reuse, recreates the kept corpus
// without ingesting) and records the ingest figures: every message
// appended, then both indexes caught up.
func (r *run) ingest(ctx context.Context) error {
	start, cpu0 := time.Now(), cpuTime()
	var calls []time.Duration
	var err error
	switch {
	case r.o.Reuse != "":
		err = r.reuse()
	case r.o.File != "":
		calls, err = r.importFile(ctx)
	default:
		calls, err = r.ingestSynthetic(ctx)
	}
	if err != nil {
		return err
	}
	rep := r.rep
	rep.Ingest.AppendSeconds = time.Since(start).Seconds()
	if err := r.e.SyncIndexes(ctx); err != nil {
		return err
	}
	elapsed := time.Since(start)
	rep.Ingest.Messages = rep.Corpus.Messages
	rep.Ingest.Seconds = elapsed.Seconds()
	rep.Ingest.CPUSeconds = (cpuTime() - cpu0).Seconds()
	rep.Ingest.MessagesPerSec = float64(rep.Corpus.Messages) / elapsed.Seconds()
	rep.Ingest.AppendCall = summarize(calls)
	if r.o.Reuse != "" {
		rep.Ingest = Ingest{}
	}
	r.logf("bench: ingest %.0f msgs/s (%.1f s)", rep.Ingest.MessagesPerSec, rep.Ingest.Seconds)
	return nil
}

// reuse recreates the synthetic corpus a kept directory recorded.
func (r *run) reuse() error {
	path := filepath.Join(r.o.Work, manifest)
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--reuse %s: not kept by a synthetic bench run: %w", r.o.Reuse, err)
	}
	var c synth.Config
	if err := json.Unmarshal(b, &c); err != nil {
		return fmt.Errorf("--reuse %s: %w", path, err)
	}
	if r.corpus, err = synth.New(c); err != nil {
		return err
	}
	r.rep.Corpus = Corpus{Source: "synthetic (reused data directory)", Messages: c.Messages, Resources: c.Resources, Threads: r.corpus.Len(), Seed: c.Seed}
	r.rep.Notes = append(r.rep.Notes, "ingest not measured: --reuse of "+r.o.Reuse)
	r.logf("bench: reusing %s (%d messages)", r.o.Reuse, c.Messages)
	return nil
}

// importFile imports Options.File and returns every Append call's time.
func (r *run) importFile(ctx context.Context) ([]time.Duration, error) {
	r.rep.Corpus = Corpus{Source: r.o.File}
	r.logf("bench: importing %s", r.o.File)
	ta := &timedAppender{e: r.e}
	res, err := importer.Import(ctx, ta, r.o.File, importer.Options{Format: r.o.Format})
	if err != nil {
		return nil, err
	}
	r.rep.Corpus.Messages, r.rep.Corpus.Resources, r.rep.Corpus.Threads = res.Messages, res.Resources, res.Threads
	r.rep.Ingest.Batch = 0 // the importer's own batching
	return ta.calls, nil
}

// ingestSynthetic generates and appends the synthetic corpus, records it
// in the manifest (for a later --reuse) and returns every Append call's
// time.
func (r *run) ingestSynthetic(ctx context.Context) ([]time.Duration, error) {
	var err error
	r.corpus, err = synth.New(synth.Config{Messages: r.o.Size, Resources: r.o.Resources, Seed: r.o.Seed})
	if err != nil {
		return nil, err
	}
	c := r.corpus.Config()
	r.rep.Corpus = Corpus{Source: "synthetic", Messages: c.Messages, Resources: c.Resources, Threads: r.corpus.Len(), Seed: c.Seed}
	r.rep.Ingest.Batch = r.o.Batch
	r.logf("bench: ingesting %d synthetic messages (%d resources, %d threads, batch %d, %d writer(s))", c.Messages, c.Resources, r.corpus.Len(), r.o.Batch, r.o.Writers)
	calls, err := ingestSynth(ctx, r.e, r.corpus, r.o, nil)
	if err != nil {
		return nil, err
	}
	if b, err := json.Marshal(c); err == nil && r.o.Scratch == nil {
		_ = os.WriteFile(filepath.Join(r.o.Work, manifest), b, 0o600) // for a later --reuse
	}
	return calls, nil
}

// ingestSynth appends the corpus's threads (those pick accepts by index;
// nil picks all) in batches, each thread by one writer (threads are dealt
// round-robin), and returns every Append call's time.
func ingestSynth(ctx context.Context, e *engine.Engine, corpus *synth.Corpus, o Options, pick func(int) bool) ([]time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chans := make([]chan synth.Thread, o.Writers)
	for i := range chans {
		chans[i] = make(chan synth.Thread, 4)
	}
	go func() {
		defer func() {
			for _, ch := range chans {
				close(ch)
			}
		}()
		n := 0
		for i := range corpus.Len() {
			if pick != nil && !pick(i) {
				continue
			}
			n++
			select {
			case chans[n%len(chans)] <- corpus.Thread(i):
			case <-ctx.Done():
				return
			}
		}
	}()
	var (
		mu    sync.Mutex
		calls []time.Duration
		first error
		wg    sync.WaitGroup
	)
	for _, ch := range chans {
		wg.Go(func() {
			mine, err := appendThreads(ctx, e, ch, o.Batch)
			mu.Lock()
			calls = append(calls, mine...)
			if err != nil && first == nil {
				first = err
			}
			mu.Unlock()
			if err != nil {
				cancel()
				for range ch {
				}
			}
		})
	}
	wg.Wait()
	return calls, first
}

// appendThreads appends the threads of ch in batches of batch messages and
// returns each Append call's time, stopping at the first error.
func appendThreads(ctx context.Context, e *engine.Engine, ch <-chan synth.Thread, batch int) ([]time.Duration, error) {
	var mine []time.Duration
	for th := range ch {
		for from := 0; from < len(th.Messages); from += batch {
			msgs := th.Messages[from:min(from+batch, len(th.Messages))]
			t0 := time.Now()
			_, err := e.Append(ctx, engine.AppendRequest{ThreadID: th.ID, ResourceID: th.ResourceID, Messages: msgs})
			mine = append(mine, time.Since(t0))
			if err != nil {
				return mine, fmt.Errorf("append %s: %w", th.ID, err)
			}
		}
	}
	return mine, nil
}

// timedAppender records the time of each Append an importer makes.
type timedAppender struct {
	e     *engine.Engine
	calls []time.Duration
}

// Append appends req to the engine and records the call's time.
func (t *timedAppender) Append(ctx context.Context, req engine.AppendRequest) (*engine.AppendResult, error) {
	t0 := time.Now()
	r, err := t.e.Append(ctx, req)
	t.calls = append(t.calls, time.Since(t0))
	return r, err
}

// fileSizes sums the sizes of base+suffix for each suffix.
func fileSizes(base string, suffixes ...string) int64 {
	var n int64
	for _, s := range suffixes {
		if fi, err := os.Stat(base + s); err == nil {
			n += fi.Size()
		}
	}
	return n
}
