package msgstore

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

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

// unixMilli is a stored time (milliseconds since the epoch) in UTC.
func unixMilli(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
