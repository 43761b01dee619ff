//go:build !amd64 || purego

package recall

// dots8 computes out[r] = Σ_i q[i]·codes[r·len(q)+i] for every row of
// codes (pure Go where no assembly kernel exists).
func dots8(q, codes []int8, out []int32) { dots8Go(q, codes, out) }

// colDots8 computes out[r] = Σ_k weight(k)·cols[offs[k]+r] for r <
// len(out) (pure Go where no assembly kernel exists).
func colDots8(cols []int8, cq *colQuery, out []int32) { colDots8Go(cols, cq, out) }
