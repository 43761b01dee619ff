//go:build amd64 && !purego

package recall

import "golang.org/x/sys/cpu"

// haveDots8 reports whether dots8AVX2 (dot8_amd64.s) can run on this CPU.
var haveDots8 = cpu.X86.HasAVX2

// dots8AVX2 computes out[r] = Σ_i q[i]·codes[r·stride+i] for r < rows;
// stride is a multiple of 32, values in [-127, 127]. Implemented in
// dot8_amd64.s.
//
//go:noescape
func dots8AVX2(q *int8, codes *int8, stride int, rows int, out *int32)

// dots8 computes out[r] = Σ_i q[i]·codes[r·len(q)+i] for every row of
// codes (len(q) a multiple of 32, values in [-127, 127]).
func dots8(q, codes []int8, out []int32) {
	rows := len(out)
	if rows == 0 {
		return
	}
	if !haveDots8 {
		dots8Go(q, codes, out)
		return
	}
	dots8AVX2(&q[0], &codes[0], len(q), rows, &out[0])
}

// colDots8AVX2 computes, for r < 32·blocks, out[r] = Σ_k lo(w[k])·
// cols[offs[2k]+r] + hi(w[k])·cols[offs[2k+1]+r] (lo, hi: w[k]'s low and
// high int16). Implemented in coldots8_amd64.s.
//
//go:noescape
func colDots8AVX2(cols *int8, offs *int, w *int32, pairs int, blocks int, out *int32)

// colDots8 computes out[r] = Σ_k weight(k)·cols[offs[k]+r] for r <
// len(out) (a multiple of 32), with the query's non-zero columns in pairs
// (colQuery); codes and weights in [-127, 127].
func colDots8(cols []int8, cq *colQuery, out []int32) {
	if len(out) == 0 || len(cq.w) == 0 {
		clear(out)
		return
	}
	if !haveDots8 {
		colDots8Go(cols, cq, out)
		return
	}
	colDots8AVX2(&cols[0], &cq.offs[0], &cq.w[0], len(cq.w), len(out)/32, &out[0])
}

// scoreMaskAVX2 sets bit b of mask[g], for g < groups, when
// float32(dots[8g+b])·|scales[8g+b]| > floor. Implemented in
// scoremask_amd64.s.
//
//go:noescape
func scoreMaskAVX2(dots *int32, scales *float32, groups int, floor float32, mask *uint8)

// scoreMask sets mask[g] (len(dots)/8 of them; len(dots) = len(scales), a
// multiple of 8) to the rows of group g whose score float32(dots[r])·
// |scales[r]| is above floor, bit r%8 for row r.
func scoreMask(dots []int32, scales []float32, floor float32, mask []uint8) {
	if len(dots) == 0 {
		return
	}
	if !haveDots8 {
		scoreMaskGo(dots, scales, floor, mask)
		return
	}
	scoreMaskAVX2(&dots[0], &scales[0], len(dots)/8, floor, &mask[0])
}
