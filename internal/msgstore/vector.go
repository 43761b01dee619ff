package msgstore

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/pgvector/pgvector-go"

	"github.com/mnemo-go/mnemo/recall"
)

// EncodeVector returns v as little-endian float32s, the layout of
// embeddings.vector.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// DecodeVector parses a little-endian float32 blob of dims values; a blob of
// another length returns an error wrapping recall.ErrDimension.
func DecodeVector(b []byte, dims int) ([]float32, error) {
	if len(b) != 4*dims {
		return nil, fmt.Errorf("%w: blob of %d bytes for %d dims", recall.ErrDimension, len(b), dims)
	}
	return decodeInto(make([]float32, dims), b), nil
}

// decodeInto decodes the little-endian float32 values of b into v
// (len(b) = 4·len(v)) and returns v.
func decodeInto(v []float32, b []byte) []float32 {
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// vecCell is a scan destination for embeddings.vector: a little-endian
// float32 blob on SQLite, a pgvector vector on Postgres.
type vecCell struct {
	pg   bool
	blob []byte
	vec  pgvector.Vector
}

// dest is the pointer to pass to Scan.
func (c *vecCell) dest() any {
	if c.pg {
		return &c.vec
	}
	return &c.blob
}

// decode returns the scanned vector if it has dims values; otherwise an
// error wrapping recall.ErrDimension.
func (c *vecCell) decode(dims int) ([]float32, error) {
	if !c.pg {
		return DecodeVector(c.blob, dims)
	}
	v := c.vec.Slice()
	if len(v) != dims {
		return nil, fmt.Errorf("%w: vector of %d values for %d dims", recall.ErrDimension, len(v), dims)
	}
	return v, nil
}

// vectorArg is v as the store's dialect stores it in embeddings.vector.
func (s *Store) vectorArg(v []float32) any {
	if s.pg() {
		return pgvector.NewVector(v)
	}
	return EncodeVector(v)
}

// unixMilli is a stored time (milliseconds since the epoch) in UTC.
func unixMilli(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
