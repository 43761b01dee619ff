//go:build !amd64 || purego

package recall

// dots8 computes out[r] = Σ_i q[i]·codes[r·len(q)+i] for every row of
// codes (pure Go where no assembly kernel exists).
func dots8(q, codes []int8, out []int32) { dots8Go(q, codes, out) }

// colDots8 computes out[r] = Σ_k weight(k)·cols[offs[k]+r] for r <
// len(out) (pure Go where no assembly kernel exists).
func colDots8(cols []int8, cq *colQuery, out []int32) { colDots8Go(cols, cq, out) }

// scoreMask sets mask[g] to the rows of group g whose score is above
// floor (pure Go where no assembly kernel exists).
func scoreMask(dots []int32, scales []float32, floor float32, mask []uint8) {
	scoreMaskGo(dots, scales, floor, mask)
}
