package recall

// dots8Go is the pure-Go dots8: out[r] = Σ_i q[i]·codes[r·len(q)+i].
// It is the fallback without AVX2 and the reference of TestDots8.
func dots8Go(q, codes []int8, out []int32) {
	d := len(q)
	for r := range out {
		row := codes[r*d : r*d+d]
		var s0, s1, s2, s3 int32
		for i := 0; i+4 <= d; i += 4 {
			s0 += int32(q[i]) * int32(row[i])
			s1 += int32(q[i+1]) * int32(row[i+1])
			s2 += int32(q[i+2]) * int32(row[i+2])
			s3 += int32(q[i+3]) * int32(row[i+3])
		}
		out[r] = s0 + s1 + s2 + s3
	}
}

// colDots8Go is the pure-Go colDots8: out[r] = Σ over the query's
// non-zero columns j of q[j]·cols[j·chunkRows+r]. It is the fallback
// without AVX2 and the reference of TestColDots8.
func colDots8Go(cols []int8, cq *colQuery, out []int32) {
	clear(out)
	for k, w := range cq.w {
		lo, hi := int32(int16(w)), w>>16
		a := cols[cq.offs[2*k] : cq.offs[2*k]+len(out)]
		b := cols[cq.offs[2*k+1] : cq.offs[2*k+1]+len(out)]
		for r := range out {
			out[r] += lo*int32(a[r]) + hi*int32(b[r])
		}
	}
}

// scoreMaskGo is the pure-Go scoreMask: bit r%8 of mask[r/8] set when
// float32(dots[r])·|scales[r]| > floor. It is the fallback without AVX2
// and the reference of TestScoreMask.
func scoreMaskGo(dots []int32, scales []float32, floor float32, mask []uint8) {
	for g := range len(dots) / 8 {
		var m uint8
		for b := range 8 {
			if r := 8*g + b; float32(dots[r])*abs32(scales[r]) > floor {
				m |= 1 << b
			}
		}
		mask[g] = m
	}
}
