package recall

import (
	"context"
	"fmt"
	"sync/atomic"
)

// LazyEmbedder is an Embedder opened on first use: its ID and Dims are
// known beforehand, and the first Embed (or Load) calls the open function
// given to NewLazy, say to read a model's weights (use-lite: about 30 MB),
// so that a program that never embeds never pays for it.
//
// Concurrent first uses open it once: the others wait for that open (each
// until its own context ends). An embedder that opened is kept for good; a
// failed open is not kept: its error is returned to the calls that waited
// for it and the next use opens again, so a model installed meanwhile is
// found without a restart (each failed use then costs an open attempt). An
// open whose embedder has another ID or Dims than given fails with
// ErrDimension (wrapped) and is not kept either.
//
// A LazyEmbedder is safe for concurrent use.
type LazyEmbedder struct {
	id   string
	dims int
	open func() (Embedder, error)
	sem  chan struct{}          // one token: held while opening
	emb  atomic.Pointer[opened] // nil until opened
}

// opened holds the embedder a LazyEmbedder opened.
type opened struct{ Embedder }

var _ Embedder = (*LazyEmbedder)(nil)

// NewLazy returns an embedder of the given id and dims that open builds
// on first use. With inProcess the result implements InProcess too (as
// HashEmbedder and use-lite do: a query's embedding gets no deadline of
// its own), so give it exactly when open's embedder does. The result is a
// *LazyEmbedder, or a type embedding one when inProcess.
func NewLazy(id string, dims int, inProcess bool, open func() (Embedder, error)) Embedder {
	l := &LazyEmbedder{id: id, dims: dims, open: open, sem: make(chan struct{}, 1)}
	if inProcess {
		return lazyInProcess{l}
	}
	return l
}

// lazyInProcess is a LazyEmbedder whose embedder computes in this process.
type lazyInProcess struct{ *LazyEmbedder }

// InProcess marks the embedder as computed in this process (InProcess).
func (lazyInProcess) InProcess() {}

// Lazy returns emb's *LazyEmbedder, or nil when emb is not one NewLazy
// returned.
func Lazy(emb Embedder) *LazyEmbedder {
	switch l := emb.(type) {
	case *LazyEmbedder:
		return l
	case lazyInProcess:
		return l.LazyEmbedder
	}
	return nil
}

// ID returns the id given to NewLazy, without opening the embedder.
func (l *LazyEmbedder) ID() string { return l.id }

// Dims returns the dims given to NewLazy, without opening the embedder.
func (l *LazyEmbedder) Dims() int { return l.dims }

// Loaded reports whether the embedder has been opened.
func (l *LazyEmbedder) Loaded() bool { return l.loaded() != nil }

// loaded returns the opened embedder, nil before.
func (l *LazyEmbedder) loaded() Embedder {
	if o := l.emb.Load(); o != nil {
		return o.Embedder
	}
	return nil
}

// Embed opens the embedder if it is not open yet (see LazyEmbedder), then
// embeds texts with it. Errors: the open's, ctx's while waiting for
// another call's open, then the embedder's own.
func (l *LazyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	emb, err := l.Load(ctx)
	if err != nil {
		return nil, err
	}
	return emb.Embed(ctx, texts)
}

// Load opens the embedder now if it is not open yet and returns it. It
// waits for an open another call has started until ctx ends (ctx's error,
// wrapped); an open that has started is not interrupted by ctx.
func (l *LazyEmbedder) Load(ctx context.Context) (Embedder, error) {
	if e := l.loaded(); e != nil {
		return e, nil
	}
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("open embedder %s: %w", l.id, ctx.Err())
	}
	defer func() { <-l.sem }()
	if e := l.loaded(); e != nil {
		return e, nil
	}
	e, err := l.open()
	if err != nil {
		return nil, err
	}
	if e.ID() != l.id || e.Dims() != l.dims {
		return nil, fmt.Errorf("%w: embedder %s opened as %s with %d dimensions, want %d", ErrDimension, l.id, e.ID(), e.Dims(), l.dims)
	}
	l.emb.Store(&opened{e})
	return e, nil
}
