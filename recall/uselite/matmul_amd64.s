//go:build amd64 && !purego

#include "textflag.h"

// func kern4x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)
//
// C[0:4, 0:16] += A[0:4, 0:k] · B[0:k, 0:16], all row-major with leading
// dimensions in elements. Needs AVX2 and FMA3. Accumulators: Y0–Y7 (two
// 8-wide halves per row); Y8, Y9 hold the B row; Y10–Y13 the broadcast A
// elements.
TEXT ·kern4x16(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), AX
	SHLQ $2, AX
	MOVQ b+24(FP), DI
	MOVQ ldb+32(FP), BX
	SHLQ $2, BX
	MOVQ c+40(FP), DX
	MOVQ ldc+48(FP), R11
	SHLQ $2, R11

	LEAQ (SI)(AX*1), R8
	LEAQ (R8)(AX*1), R9
	LEAQ (R9)(AX*1), R10

	MOVQ    DX, R12
	VMOVUPS (R12), Y0
	VMOVUPS 32(R12), Y1
	ADDQ    R11, R12
	VMOVUPS (R12), Y2
	VMOVUPS 32(R12), Y3
	ADDQ    R11, R12
	VMOVUPS (R12), Y4
	VMOVUPS 32(R12), Y5
	ADDQ    R11, R12
	VMOVUPS (R12), Y6
	VMOVUPS 32(R12), Y7

	TESTQ CX, CX
	JEQ   store4

loop4:
	VMOVUPS      (DI), Y8
	VMOVUPS      32(DI), Y9
	VBROADCASTSS (SI), Y10
	VBROADCASTSS (R8), Y11
	VBROADCASTSS (R9), Y12
	VBROADCASTSS (R10), Y13
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VFMADD231PS  Y8, Y12, Y4
	VFMADD231PS  Y9, Y12, Y5
	VFMADD231PS  Y8, Y13, Y6
	VFMADD231PS  Y9, Y13, Y7
	ADDQ         $4, SI
	ADDQ         $4, R8
	ADDQ         $4, R9
	ADDQ         $4, R10
	ADDQ         BX, DI
	DECQ         CX
	JNE          loop4

store4:
	MOVQ    DX, R12
	VMOVUPS Y0, (R12)
	VMOVUPS Y1, 32(R12)
	ADDQ    R11, R12
	VMOVUPS Y2, (R12)
	VMOVUPS Y3, 32(R12)
	ADDQ    R11, R12
	VMOVUPS Y4, (R12)
	VMOVUPS Y5, 32(R12)
	ADDQ    R11, R12
	VMOVUPS Y6, (R12)
	VMOVUPS Y7, 32(R12)
	VZEROUPPER
	RET

// func kern1x16(k int, a *float32, b *float32, ldb int, c *float32)
//
// C[0, 0:16] += A[0, 0:k] · B[0:k, 0:16]. Needs AVX2 and FMA3.
TEXT ·kern1x16(SB), NOSPLIT, $0-40
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ ldb+24(FP), BX
	SHLQ $2, BX
	MOVQ c+32(FP), DX

	VMOVUPS (DX), Y0
	VMOVUPS 32(DX), Y1
	TESTQ   CX, CX
	JEQ     store1

loop1:
	VBROADCASTSS (SI), Y10
	VFMADD231PS  (DI), Y10, Y0
	VFMADD231PS  32(DI), Y10, Y1
	ADDQ         $4, SI
	ADDQ         BX, DI
	DECQ         CX
	JNE          loop1

store1:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VZEROUPPER
	RET

// func kern6x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)
//
// C[0:6, 0:16] += A[0:6, 0:k] · B[0:k, 0:16], the 6×16 register block of
// BLIS's Haswell SGEMM micro-kernel: twelve accumulators (Y0–Y11) hide the
// FMA latency. Rows 0–2 of A are addressed from SI, rows 3–5 from R8, with
// the row stride in AX. Needs AVX2 and FMA3.
TEXT ·kern6x16(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), AX
	SHLQ $2, AX
	MOVQ b+24(FP), DI
	MOVQ ldb+32(FP), BX
	SHLQ $2, BX
	MOVQ c+40(FP), DX
	MOVQ ldc+48(FP), R11
	SHLQ $2, R11

	LEAQ (SI)(AX*2), R8
	ADDQ AX, R8

	MOVQ    DX, R12
	VMOVUPS (R12), Y0
	VMOVUPS 32(R12), Y1
	ADDQ    R11, R12
	VMOVUPS (R12), Y2
	VMOVUPS 32(R12), Y3
	ADDQ    R11, R12
	VMOVUPS (R12), Y4
	VMOVUPS 32(R12), Y5
	ADDQ    R11, R12
	VMOVUPS (R12), Y6
	VMOVUPS 32(R12), Y7
	ADDQ    R11, R12
	VMOVUPS (R12), Y8
	VMOVUPS 32(R12), Y9
	ADDQ    R11, R12
	VMOVUPS (R12), Y10
	VMOVUPS 32(R12), Y11

	TESTQ CX, CX
	JEQ   store6

loop6:
	VMOVUPS      (DI), Y12
	VMOVUPS      32(DI), Y13
	VBROADCASTSS (SI), Y14
	VBROADCASTSS (SI)(AX*1), Y15
	VFMADD231PS  Y12, Y14, Y0
	VFMADD231PS  Y13, Y14, Y1
	VFMADD231PS  Y12, Y15, Y2
	VFMADD231PS  Y13, Y15, Y3
	VBROADCASTSS (SI)(AX*2), Y14
	VBROADCASTSS (R8), Y15
	VFMADD231PS  Y12, Y14, Y4
	VFMADD231PS  Y13, Y14, Y5
	VFMADD231PS  Y12, Y15, Y6
	VFMADD231PS  Y13, Y15, Y7
	VBROADCASTSS (R8)(AX*1), Y14
	VBROADCASTSS (R8)(AX*2), Y15
	VFMADD231PS  Y12, Y14, Y8
	VFMADD231PS  Y13, Y14, Y9
	VFMADD231PS  Y12, Y15, Y10
	VFMADD231PS  Y13, Y15, Y11
	ADDQ         $4, SI
	ADDQ         $4, R8
	ADDQ         BX, DI
	DECQ         CX
	JNE          loop6

store6:
	MOVQ    DX, R12
	VMOVUPS Y0, (R12)
	VMOVUPS Y1, 32(R12)
	ADDQ    R11, R12
	VMOVUPS Y2, (R12)
	VMOVUPS Y3, 32(R12)
	ADDQ    R11, R12
	VMOVUPS Y4, (R12)
	VMOVUPS Y5, 32(R12)
	ADDQ    R11, R12
	VMOVUPS Y6, (R12)
	VMOVUPS Y7, 32(R12)
	ADDQ    R11, R12
	VMOVUPS Y8, (R12)
	VMOVUPS Y9, 32(R12)
	ADDQ    R11, R12
	VMOVUPS Y10, (R12)
	VMOVUPS Y11, 32(R12)
	VZEROUPPER
	RET
