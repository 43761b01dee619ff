//go:build amd64 && !purego

#include "textflag.h"

// func colDots8AVX2(cols *int8, offs *int, w *int32, pairs int, blocks int, out *int32)
//
// out[r] = Σ_k lo(w[k])·cols[offs[2k]+r] + hi(w[k])·cols[offs[2k]+1]+r]
// for r in [0, 32·blocks): the dot products of the query's non-zero
// columns, two at a time, with every row of a column-major block of int8
// codes (veccols.go). w[k] holds the two columns' int16 weights (query
// codes in [-127, 127]), low word first; every code is in [-127, 127], so
// each product fits an int16 and each pair sum an int32. Needs AVX2.
// Per 16 rows of a pair of columns: both sign-extended to int16
// (VPMOVSXBW), interleaved (VPUNPCKLWD/HWD: within 128-bit lanes), then
// multiplied by the weights and pair-summed to int32 (VPMADDWD). The
// interleave leaves rows 0–3 and 8–11 in one accumulator, 4–7 and 12–15
// in the other; VPERM2I128 puts them back in order when storing.
TEXT ·colDots8AVX2(SB), NOSPLIT, $0-48
	MOVQ cols+0(FP), DI
	MOVQ offs+8(FP), SI
	MOVQ w+16(FP), R10
	MOVQ pairs+24(FP), CX
	MOVQ blocks+32(FP), DX
	MOVQ out+40(FP), R8

block:
	TESTQ DX, DX
	JEQ   done
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	XORQ  R9, R9

pair:
	MOVQ         (SI), AX
	MOVQ         8(SI), BX
	VPBROADCASTD (R10)(R9*4), Y15
	VPMOVSXBW    (DI)(AX*1), Y4
	VPMOVSXBW    (DI)(BX*1), Y5
	VPMOVSXBW    16(DI)(AX*1), Y8
	VPMOVSXBW    16(DI)(BX*1), Y9
	VPUNPCKLWD   Y5, Y4, Y6
	VPUNPCKHWD   Y5, Y4, Y7
	VPUNPCKLWD   Y9, Y8, Y10
	VPUNPCKHWD   Y9, Y8, Y11
	VPMADDWD     Y15, Y6, Y6
	VPMADDWD     Y15, Y7, Y7
	VPMADDWD     Y15, Y10, Y10
	VPMADDWD     Y15, Y11, Y11
	VPADDD       Y6, Y0, Y0
	VPADDD       Y7, Y1, Y1
	VPADDD       Y10, Y2, Y2
	VPADDD       Y11, Y3, Y3
	ADDQ         $16, SI
	INCQ         R9
	CMPQ         R9, CX
	JLT          pair

	// Y0: rows 0–3 | 8–11, Y1: 4–7 | 12–15; Y2, Y3 the same for 16–31.
	VPERM2I128 $0x20, Y1, Y0, Y4
	VPERM2I128 $0x31, Y1, Y0, Y5
	VPERM2I128 $0x20, Y3, Y2, Y6
	VPERM2I128 $0x31, Y3, Y2, Y7
	VMOVDQU    Y4, (R8)
	VMOVDQU    Y5, 32(R8)
	VMOVDQU    Y6, 64(R8)
	VMOVDQU    Y7, 96(R8)

	MOVQ offs+8(FP), SI
	ADDQ $32, DI
	ADDQ $128, R8
	DECQ DX
	JMP  block

done:
	VZEROUPPER
	RET
