package recall

import (
	"math"
	"unsafe"
)

// rowVec returns slot i's float32 vector (dims values). A row of a slab
// still holding its snapshot file's bytes (slab.fileBacked) is read from
// the file into buf (a new slice when buf is nil): the exact re-score and
// the neighbours' scores read a few hundred rows a query at random, and
// through the mapping each would bring its page, and those around it, into
// the process's resident set, until all of the file's float32 values
// (154 MB at 100k × 384) were counted in it. A read that fails falls back
// to the mapping. The row's offset is its place in the slab's memory, so
// the slab's layout stays vecindex.go's.
//
// A row of a slab mapped from a snapshot whose vector part may not be
// verified yet (snapshot_verify.go) is returned only when every value is
// a finite number within [−1, 1], as in a unit vector; otherwise a row of
// zeros (cosine 0), so that no damaged byte makes a score that is not a
// number.
func (x *vecIndex) rowVec(i int, buf []float32) []float32 {
	v := x.vec(i)
	c := x.chunks[i/chunkRows]
	if c.file == nil {
		return v
	}
	if buf == nil {
		buf = make([]float32, len(v))
	}
	buf = buf[:len(v)]
	if c.fileBacked() {
		off := int64(uintptr(unsafe.Pointer(unsafe.SliceData(v))) - uintptr(unsafe.Pointer(unsafe.SliceData(c.mem))))
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), 4*len(buf))
		if _, err := c.file.f.ReadAt(b, c.off+off); err == nil {
			v = buf
		}
	}
	for _, f := range v {
		if !(math.Abs(float64(f)) <= 1+1e-6) { // NaN too
			clear(buf)
			return buf
		}
	}
	return v
}
