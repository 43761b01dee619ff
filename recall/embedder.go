package recall

import "context"

// Embedder turns texts into vectors for the vector channel.
//
// Implementations are safe for concurrent use.
type Embedder interface {
	// ID names the embedder and its model, e.g. "hash-384" or
	// "openai:text-embedding-3-small". Stored embeddings are keyed by it, so
	// two embedders whose vectors are not comparable must not share an ID.
	ID() string
	// Dims is the length of every vector Embed returns.
	Dims() int
	// Embed returns one L2-normalised vector of Dims() float32s per text, in
	// order. It returns an error, and no vectors, when any text fails.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// InProcess is implemented by an Embedder that computes its vectors in
// this process (HashEmbedder, use-lite): it cannot stall on an endpoint,
// so EmbedQuery gives it no deadline of its own (and a search no timer).
type InProcess interface {
	Embedder
	// InProcess marks the embedder; it does nothing.
	InProcess()
}
