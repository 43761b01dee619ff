package uselite

import (
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// Cache blocking of the kernel path: a blockK×blockN block of the weight
// matrix (128 KB) stays in L2 while every 6-row strip of the activations
// (6 KB) streams past it from L1.
const (
	blockK = 256
	blockN = 128
)

// panel is the column width of the kernels and of a packed matrix's panels.
const panel = 16

// matrix is a k×n weight matrix, stored for the product that will use it:
// packed into n/16 column panels, each a contiguous k×16 row-major block,
// when the assembly kernels run (sequential reads, no TLB miss per row of a
// wide matrix), else row-major for gonum. It is immutable.
type matrix struct {
	k, n   int
	data   []float32 // row-major k×n; nil when packed
	packed []float32 // panel p holds columns [16p, 16p+16) as k×16, row-major
}

// newMatrix stores the row-major k×n data for matmul; it copies, so data
// may be released. Nil data gives the zero matrix (a load error is pending).
func newMatrix(data []float32, k, n int) matrix {
	if data == nil {
		return matrix{}
	}
	w := matrix{k: k, n: n}
	if !haveKernel || n%panel != 0 {
		w.data = append([]float32(nil), data...)
		return w
	}
	w.packed = make([]float32, k*n)
	for p := 0; p < n/panel; p++ {
		dst := w.packed[p*k*panel:]
		for r := 0; r < k; r++ {
			copy(dst[r*panel:(r+1)*panel], data[r*n+p*panel:])
		}
	}
	return w
}

// matmul writes dst[m×n] = a[m×k] · w[k×n] + bias[n] (bias broadcast over
// rows), all row-major. par > 1 splits a product on the kernel path
// between that many goroutines, by column blocks.
//
// On amd64 with AVX2 and FMA3 (and without the purego build tag) the
// product runs on the 6×16, 4×16 and 1×16 register-blocked kernels of matmul_amd64.s;
// elsewhere, or when n is not a multiple of 16, on gonum's pure-Go SGEMM.
// FMA rounds once per multiply-add, so the two paths differ in the last
// bits; both stay far inside the 1e-5 parity bound.
func matmul(dst, a []float32, m int, w matrix, bias []float32, par int) {
	k, n := w.k, w.n
	for r := 0; r < m; r++ {
		copy(dst[r*n:(r+1)*n], bias)
	}
	if m == 0 || k == 0 {
		return
	}
	if w.packed != nil {
		blocks := (n + blockN - 1) / blockN
		if par <= 1 || blocks < 2 {
			gemmKernel(dst, a, m, k, w.packed, n, 0, n)
			return
		}
		// Split the column blocks between par goroutines: each output
		// element is computed exactly as in the serial product.
		par = min(par, blocks)
		var wg sync.WaitGroup
		for g := 0; g < par; g++ {
			j0, j1 := g*blocks/par*blockN, min((g+1)*blocks/par*blockN, n)
			wg.Add(1)
			go func() {
				defer wg.Done()
				gemmKernel(dst, a, m, k, w.packed, n, j0, j1)
			}()
		}
		wg.Wait()
		return
	}
	blas32.Gemm(blas.NoTrans, blas.NoTrans, 1,
		blas32.General{Rows: m, Cols: k, Stride: k, Data: a},
		blas32.General{Rows: k, Cols: n, Stride: n, Data: w.data},
		1, blas32.General{Rows: m, Cols: n, Stride: n, Data: dst})
}

// gemmKernel computes columns [j0, j1) of c[m×n] += a[m×k]·b[k×n] with the
// assembly kernels, b packed as newMatrix does. n, j0 and j1 must be
// multiples of 16 and k positive.
func gemmKernel(c, a []float32, m, k int, b []float32, n, j0, j1 int) {
	// The kernels read and write through raw pointers: check every bound
	// they will touch once, here.
	_, _, _ = a[m*k-1], b[k*n-1], c[m*n-1]
	for kb := 0; kb < k; kb += blockK {
		kc := min(blockK, k-kb)
		for jb := j0; jb < j1; jb += blockN {
			je := min(jb+blockN, j1)
			i := 0
			for ; i+6 <= m; i += 6 {
				for j := jb; j < je; j += 16 {
					kern6x16(kc, &a[i*k+kb], k, &b[j*k+kb*panel], panel, &c[i*n+j], n)
				}
			}
			for ; i+4 <= m; i += 4 {
				for j := jb; j < je; j += 16 {
					kern4x16(kc, &a[i*k+kb], k, &b[j*k+kb*panel], panel, &c[i*n+j], n)
				}
			}
			for ; i < m; i++ {
				for j := jb; j < je; j += 16 {
					kern1x16(kc, &a[i*k+kb], &b[j*k+kb*panel], panel, &c[i*n+j])
				}
			}
		}
	}
}
