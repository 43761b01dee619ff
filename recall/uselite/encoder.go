package uselite

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// workspace holds the activation buffers of one forward pass. Buffers grow
// to the largest chunk seen and are reused; a workspace is used by one
// goroutine at a time.
type workspace struct {
	x, h, qkv, attn, res, ff []float32
	scores                   []float32
	// par is how many goroutines each matrix product may use: Embed sets
	// it above 1 only when one chunk makes up the whole call (a single
	// query), so the chunk-level workers never oversubscribe the cores.
	par int
}

// grow returns buf resized to n, reallocating only when it is too small.
func grow(buf []float32, n int) []float32 {
	if cap(buf) < n {
		return make([]float32, n)
	}
	return buf[:n]
}

// span is one text's rows in a chunk: rows [start, start+n).
type span struct{ start, n int }

// encode runs the graph on a chunk of tokenised texts and writes one
// L2-normalised modelDims vector per text into out. Every token list must
// already be clipped to m.maxLen.
//
// The texts are stacked row-wise, so every dense layer is one matrix product
// over the whole chunk; attention runs per text on its own rows, which is
// what the reference graph computes for a padded batch (padding keys get a
// -1e9 bias, hence exactly zero weight).
func (m *model) encode(ws *workspace, tokens [][]int, out [][]float32) {
	spans := make([]span, len(tokens))
	rows := 0
	for i, t := range tokens {
		spans[i] = span{rows, len(t)}
		rows += len(t)
	}
	// h and res also hold the pooled and final vectors, one row per text
	// (more rows than tokens when texts are empty).
	ws.x = grow(ws.x, rows*modelDims)
	ws.h = grow(ws.h, max(rows, len(tokens))*modelDims)
	ws.res = grow(ws.res, max(rows, len(tokens))*modelDims)
	ws.attn = grow(ws.attn, rows*modelDims)
	ws.qkv = grow(ws.qkv, rows*3*modelDims)
	ws.ff = grow(ws.ff, rows*ffnDims)
	ws.scores = grow(ws.scores, m.maxLen*m.maxLen)

	// Input: the graph adds the scattered embeddings to the scattered
	// (embeddings + timing signal), i.e. e + (e + s), in that order
	// (Encode/Scatter + Layer_0/AddTimingSignal/Scatter).
	x := ws.x[:rows*embedDims]
	for i, t := range tokens {
		for p, id := range t {
			if id < 0 || id >= m.vocabRows {
				id = unknownID
			}
			e := m.embeddings[id*embedDims : (id+1)*embedDims]
			s := m.timing[p*embedDims : (p+1)*embedDims]
			row := x[(spans[i].start+p)*embedDims:][:embedDims]
			for j := range row {
				row[j] = e[j] + (e[j] + s[j])
			}
		}
	}

	cur := x
	for li := range m.layers {
		cur = m.layer(ws, &m.layers[li], cur, rows, spans)
	}

	// Mean pooling, the tanh layer and L2 normalisation (hidden_layers).
	pooled := ws.h[:len(tokens)*modelDims]
	for i, sp := range spans {
		dst := pooled[i*modelDims:][:modelDims]
		clear(dst)
		for r := sp.start; r < sp.start+sp.n; r++ {
			src := cur[r*modelDims:][:modelDims]
			for j := range dst {
				dst[j] += src[j]
			}
		}
		div := float32(max(sp.n, 1))
		for j := range dst {
			dst[j] /= div
		}
	}
	final := ws.res[:len(tokens)*modelDims]
	matmul(final, pooled, len(tokens), m.tanhW, m.tanhB, ws.par)
	for i := range tokens {
		v := final[i*modelDims:][:modelDims]
		var ss float32
		for j := range v {
			v[j] = float32(math.Tanh(float64(v[j])))
			ss += v[j] * v[j]
		}
		inv := float32(1 / math.Sqrt(float64(max(ss, m.l2Epsilon))))
		o := out[i]
		for j := range v {
			o[j] = v[j] * inv
		}
	}
}

// layer runs one pre-norm transformer layer on x ([rows, l.in]) and returns
// its output ([rows, modelDims]), which lives in ws.x.
func (m *model) layer(ws *workspace, l *layer, x []float32, rows int, spans []span) []float32 {
	in := l.in
	// Residual branch: the raw input, projected to modelDims by Layer_0's
	// AdjustResidualInput dense layer.
	res := ws.res[:rows*modelDims]
	if l.adjW != nil {
		matmul(res, x, rows, *l.adjW, l.adjB, ws.par)
	} else {
		copy(res, x)
	}

	h := ws.h[:rows*in]
	m.layerNorm(h, x, rows, in, l.lnAttnScale, l.lnAttnBias)
	qkv := ws.qkv[:rows*3*in]
	matmul(qkv, h, rows, l.qkvW, l.qkvB, ws.par)
	attn := ws.attn[:rows*in]
	hd := in / l.heads
	for r := 0; r < rows; r++ {
		q := qkv[r*3*in:][:in]
		for j := range q {
			q[j] *= l.scale
		}
	}
	for _, sp := range spans {
		if sp.n == 0 {
			continue
		}
		base := sp.start * 3 * in
		for hh := 0; hh < l.heads; hh++ {
			q := blas32.General{Rows: sp.n, Cols: hd, Stride: 3 * in, Data: qkv[base+hh*hd:]}
			k := blas32.General{Rows: sp.n, Cols: hd, Stride: 3 * in, Data: qkv[base+in+hh*hd:]}
			v := blas32.General{Rows: sp.n, Cols: hd, Stride: 3 * in, Data: qkv[base+2*in+hh*hd:]}
			s := blas32.General{Rows: sp.n, Cols: sp.n, Stride: sp.n, Data: ws.scores[:sp.n*sp.n]}
			blas32.Gemm(blas.NoTrans, blas.Trans, 1, q, k, 0, s)
			softmaxRows(s.Data, sp.n)
			o := blas32.General{Rows: sp.n, Cols: hd, Stride: in, Data: attn[sp.start*in+hh*hd:]}
			blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, s, v, 0, o)
		}
	}
	// x1 = attention output projection + residual. The output goes to ws.x,
	// whose old content (the layer input) is no longer needed.
	x1 := ws.x[:rows*modelDims]
	matmul(x1, attn, rows, l.outW, l.outB, ws.par)
	for i := range x1 {
		x1[i] += res[i]
	}

	// Feed-forward block with its own pre-norm and residual.
	h = ws.h[:rows*modelDims]
	m.layerNorm(h, x1, rows, modelDims, l.lnFFNScale, l.lnFFNBias)
	ff := ws.ff[:rows*ffnDims]
	matmul(ff, h, rows, l.w1, l.b1, ws.par)
	for i, v := range ff {
		if v < 0 {
			ff[i] = 0
		}
	}
	f := ws.res[:rows*modelDims]
	matmul(f, ff, rows, l.w2, l.b2, ws.par)
	for i := range x1 {
		x1[i] = f[i] + x1[i]
	}
	return x1
}

// layerNorm writes scale*(x-mean)/sqrt(var+eps)+bias per row, the graph's
// layer_prepostprocess/layer_norm (variance is the mean squared deviation).
func (m *model) layerNorm(dst, x []float32, rows, n int, scale, bias []float32) {
	for r := 0; r < rows; r++ {
		src := x[r*n:][:n]
		d := dst[r*n:][:n]
		var sum float64
		for _, v := range src {
			sum += float64(v)
		}
		mean := float32(sum / float64(n))
		var sq float64
		for j, v := range src {
			c := v - mean
			d[j] = c
			sq += float64(c) * float64(c)
		}
		rs := float32(1 / math.Sqrt(float64(float32(sq/float64(n))+m.lnEpsilon)))
		for j := range d {
			d[j] = scale[j]*rs*d[j] + bias[j]
		}
	}
}

// softmaxRows replaces each row of the n×n matrix s by its softmax.
func softmaxRows(s []float32, n int) {
	for r := 0; r < n; r++ {
		row := s[r*n:][:n]
		mx := row[0]
		for _, v := range row[1:] {
			mx = max(mx, v)
		}
		var sum float32
		for j, v := range row {
			e := float32(math.Exp(float64(v - mx)))
			row[j] = e
			sum += e
		}
		for j := range row {
			row[j] /= sum
		}
	}
}
