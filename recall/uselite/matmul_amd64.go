//go:build amd64 && !purego

package uselite

import "golang.org/x/sys/cpu"

// haveKernel reports whether the AVX2+FMA3 matrix kernels of
// matmul_amd64.s can run on this CPU.
var haveKernel = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// kern6x16 computes C[0:6,0:16] += A[0:6,0:k]·B[0:k,0:16] (row-major,
// leading dimensions in elements). Implemented in matmul_amd64.s.
//
//go:noescape
func kern6x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)

// kern4x16 computes C[0:4,0:16] += A[0:4,0:k]·B[0:k,0:16] (row-major,
// leading dimensions in elements). Implemented in matmul_amd64.s.
//
//go:noescape
func kern4x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)

// kern1x16 computes C[0,0:16] += A[0,0:k]·B[0:k,0:16]. Implemented in
// matmul_amd64.s.
//
//go:noescape
func kern1x16(k int, a *float32, b *float32, ldb int, c *float32)
