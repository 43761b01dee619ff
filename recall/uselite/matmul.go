package uselite

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// Cache blocking of the kernel path: a blockK×blockN panel of the weight
// matrix (128 KB) stays in L2 while every 6-row strip of the activations
// (6 KB) streams past it from L1.
const (
	blockK = 256
	blockN = 128
)

// matmul writes dst[m×n] = a[m×k] · w[k×n] + bias[n] (bias broadcast over
// rows), all row-major.
//
// On amd64 with AVX2 and FMA3 (and without the purego build tag) the
// product runs on the 6×16, 4×16 and 1×16 register-blocked kernels of matmul_amd64.s;
// elsewhere, or when n is not a multiple of 16, on gonum's pure-Go SGEMM.
// FMA rounds once per multiply-add, so the two paths differ in the last
// bits; both stay far inside the 1e-5 parity bound.
func matmul(dst, a []float32, m, k int, w []float32, n int, bias []float32) {
	for r := 0; r < m; r++ {
		copy(dst[r*n:(r+1)*n], bias)
	}
	if m == 0 || k == 0 {
		return
	}
	if haveKernel && n%16 == 0 {
		gemmKernel(dst, a, m, k, w, n)
		return
	}
	blas32.Gemm(blas.NoTrans, blas.NoTrans, 1,
		blas32.General{Rows: m, Cols: k, Stride: k, Data: a},
		blas32.General{Rows: k, Cols: n, Stride: n, Data: w},
		1, blas32.General{Rows: m, Cols: n, Stride: n, Data: dst})
}

// gemmKernel computes c[m×n] += a[m×k]·b[k×n] with the assembly kernels.
// n must be a multiple of 16 and k positive.
func gemmKernel(c, a []float32, m, k int, b []float32, n int) {
	// The kernels read and write through raw pointers: check every bound
	// they will touch once, here.
	_, _, _ = a[m*k-1], b[k*n-1], c[m*n-1]
	for kb := 0; kb < k; kb += blockK {
		kc := min(blockK, k-kb)
		for jb := 0; jb < n; jb += blockN {
			je := min(jb+blockN, n)
			i := 0
			for ; i+6 <= m; i += 6 {
				for j := jb; j < je; j += 16 {
					kern6x16(kc, &a[i*k+kb], k, &b[kb*n+j], n, &c[i*n+j], n)
				}
			}
			for ; i+4 <= m; i += 4 {
				for j := jb; j < je; j += 16 {
					kern4x16(kc, &a[i*k+kb], k, &b[kb*n+j], n, &c[i*n+j], n)
				}
			}
			for ; i < m; i++ {
				for j := jb; j < je; j += 16 {
					kern1x16(kc, &a[i*k+kb], &b[kb*n+j], n, &c[i*n+j])
				}
			}
		}
	}
}
