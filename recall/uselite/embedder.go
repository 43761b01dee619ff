package uselite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"sync"

	"github.com/mnemo-go/mnemo/recall"
)

// ID is the embedder id of use-lite; stored embeddings are keyed by it.
const ID = "use-lite"

// Dims is the length of every use-lite vector.
const Dims = modelDims

// DefaultChunkRows is the default number of token rows (summed over texts)
// one forward pass stacks. Larger chunks make the matrix products more
// efficient; 512 rows (about 40 texts of 12 tokens) keep one worker's
// buffers near 10 MB.
const DefaultChunkRows = 512

// Config configures Open. The zero value of every field means its default.
type Config struct {
	// Dir is the installed model directory holding model.json, vocab.json
	// and the weight shards (`mnemo models fetch use-lite` installs it as
	// <models dir>/use-lite). Required.
	Dir string
	// Workers is the number of goroutines one Embed call uses. Zero means
	// runtime.GOMAXPROCS(0).
	Workers int
	// ChunkRows is the number of token rows one forward pass stacks. Zero
	// means DefaultChunkRows. A single text longer than ChunkRows still runs
	// alone in one pass.
	ChunkRows int
}

// Embedder is the Universal Sentence Encoder lite (Cer et al. 2018,
// "Universal Sentence Encoder", arXiv:1803.11175) computed in pure Go: a
// SentencePiece tokenizer, a two-layer pre-norm transformer encoder, mean
// pooling, a tanh layer and L2 normalisation, 512 dimensions. Texts longer
// than 128 tokens are clipped to their first 128, as the graph does.
//
// An Embedder is safe for concurrent use by multiple goroutines. It holds
// about 30 MB of weights and reuses activation buffers between calls; it
// has nothing to close.
type Embedder struct {
	m         *model
	workers   int
	chunkRows int
	pool      sync.Pool // *workspace
}

var _ recall.Embedder = (*Embedder)(nil)

// Open loads the model installed in cfg.Dir. It returns an error wrapping
// ErrNotInstalled, whose text names `mnemo models fetch use-lite`, when the
// directory or a model file is absent, and one wrapping ErrBadModel when the
// files do not describe the use-lite graph.
func Open(cfg Config) (*Embedder, error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("%w: no model directory given", ErrNotInstalled)
	}
	if _, err := os.Stat(cfg.Dir); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist", ErrNotInstalled, cfg.Dir)
	}
	m, err := loadModel(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("open use-lite: %w", err)
	}
	e := &Embedder{m: m, workers: cfg.Workers, chunkRows: cfg.ChunkRows}
	if e.workers <= 0 {
		e.workers = runtime.GOMAXPROCS(0)
	}
	if e.chunkRows <= 0 {
		e.chunkRows = DefaultChunkRows
	}
	e.pool.New = func() any { return new(workspace) }
	return e, nil
}

// OpenLazy returns use-lite from cfg.Dir opened on first use
// (recall.NewLazy): no file is read until the first Embed, which fails as
// Open would (ErrNotInstalled, ErrBadModel); a failed open is tried again
// by the next Embed.
func OpenLazy(cfg Config) recall.Embedder {
	return recall.NewLazy(ID, Dims, true, func() (recall.Embedder, error) {
		e, err := Open(cfg)
		if err != nil {
			return nil, err
		}
		return e, nil
	})
}

// ID returns "use-lite".
func (e *Embedder) ID() string { return ID }

// Dims returns 512.
func (e *Embedder) Dims() int { return Dims }

// InProcess marks the embedder as computed in this process
// (recall.InProcess): a query's embedding gets no deadline of its own.
func (e *Embedder) InProcess() {}

// Tokenizer returns the model's tokenizer.
func (e *Embedder) Tokenizer() *Tokenizer { return e.m.tok }

// Embed returns one L2-normalised 512-dimensional vector per text, in
// order. An empty text (no tokens) gets the vector of an all-zero pooled
// encoding, tanh(bias) normalised, as the graph computes for an empty row of
// a batch. Embed fails only when ctx is done, and then returns no vectors.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	backing := make([]float32, len(texts)*Dims)
	tokens := make([][]int, len(texts))
	for i, t := range texts {
		out[i] = backing[i*Dims : (i+1)*Dims : (i+1)*Dims]
		ids := e.m.tok.Encode(t)
		if len(ids) > e.m.maxLen {
			ids = ids[:e.m.maxLen]
		}
		tokens[i] = ids
	}
	// Chunks of consecutive texts up to chunkRows rows each.
	type chunk struct{ from, to int }
	var chunks []chunk
	for from := 0; from < len(texts); {
		to, rows := from, 0
		for to < len(texts) && (to == from || rows+len(tokens[to]) <= e.chunkRows) {
			rows += len(tokens[to])
			to++
		}
		chunks = append(chunks, chunk{from, to})
		from = to
	}
	work := make(chan chunk)
	var wg sync.WaitGroup
	for w := 0; w < min(e.workers, len(chunks)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := e.pool.Get().(*workspace)
			defer e.pool.Put(ws)
			ws.par = 1
			if len(chunks) == 1 {
				ws.par = e.workers
			}
			for c := range work {
				if ctx.Err() != nil {
					continue
				}
				e.m.encode(ws, tokens[c.from:c.to], out[c.from:c.to])
			}
		}()
	}
	for _, c := range chunks {
		work <- c
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
