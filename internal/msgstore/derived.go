package msgstore

import (
	"context"
	"database/sql"

	"github.com/mnemo-go/mnemo/recall"
)

// A derived embedder's vectors are a pure function of a message's text
// that costs less to compute than to store and read back: recall's
// hash-384 (recall.HashEmbedder, 1,536 bytes a vector against a few
// microseconds of hashing). On SQLite its embeddings rows keep an empty
// blob: the row still says the message is embedded (Check, the repair at
// Open, the directory's predominant embedder read it as before), and the
// readers of vectors (ResourceVectors, MessageVectors) compute the vector
// from the stored message, as recall.Doc.Text gives it to the embedder
// (name, content and tool calls). A row written with the vector by an
// older build is read as before. Postgres keeps every vector: pgvector
// searches them in SQL.

// derived reports whether the store keeps embedder's vectors of dimension
// dims as empty blobs.
func (s *Store) derived(embedder string, dims int) bool {
	return !s.pg() && embedder == recall.HashID && dims == recall.HashDims
}

// Derived implements recall.DerivedVectors: PutVectors of embedder's
// vectors of dims values (hash-384 on SQLite) stores empty blobs and
// ignores the vectors given.
func (s *Store) Derived(embedder string, dims int) bool { return s.derived(embedder, dims) }

// derivedVector is the hash-384 vector of a stored message with that name,
// content and tool calls (stored JSON).
func derivedVector(name, content string, toolCalls sql.RawBytes) []float32 {
	d := recall.Doc{Name: name, Content: recall.WithToolCalls(content, toolCalls)}
	v, _ := recall.HashEmbedder{}.Embed(context.Background(), []string{d.Text()}) // never fails
	return v[0]
}
