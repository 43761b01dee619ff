//go:build amd64 && !purego

#include "textflag.h"

// func dots8AVX2(q *int8, codes *int8, stride int, rows int, out *int32)
//
// out[r] = Σ_i q[i]·codes[r·stride+i] for r in [0, rows), i in [0, stride);
// stride is a multiple of 32 and every value is in [-127, 127] (so that
// VPMADDUBSW's pair sums, at most 2·127·127, never saturate). Needs AVX2.
// Per 32 bytes: |q| (unsigned) times code·sign(q) (signed), pairs summed
// to int16 (VPMADDUBSW), then to int32 (VPMADDWD by ones).
TEXT ·dots8AVX2(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ codes+8(FP), DI
	MOVQ stride+16(FP), CX
	MOVQ rows+24(FP), DX
	MOVQ out+32(FP), R8

	MOVL         $0x00010001, AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14

row:
	TESTQ DX, DX
	JEQ   done
	VPXOR Y0, Y0, Y0
	XORQ  R9, R9

inner:
	VMOVDQU    (SI)(R9*1), Y1
	VMOVDQU    (DI)(R9*1), Y2
	VPABSB     Y1, Y3
	VPSIGNB    Y1, Y2, Y4
	VPMADDUBSW Y4, Y3, Y5
	VPMADDWD   Y14, Y5, Y5
	VPADDD     Y5, Y0, Y0
	ADDQ       $32, R9
	CMPQ       R9, CX
	JLT        inner

	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, (R8)

	ADDQ $4, R8
	ADDQ CX, DI
	DECQ DX
	JMP  row

done:
	VZEROUPPER
	RET
