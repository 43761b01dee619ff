//go:build amd64 && !purego

#include "textflag.h"

// The absolute-value mask of a float32: every bit but the sign.
DATA absMask32<>+0(SB)/4, $0x7fffffff
GLOBL absMask32<>(SB), RODATA|NOPTR, $4

// func scoreMaskAVX2(dots *int32, scales *float32, groups int, floor float32, mask *uint8)
//
// For g < groups, bit b of mask[g] is set when
// float32(dots[8g+b]) · |scales[8g+b]| > floor: the first pass's score of
// a row (vecindex.go) above the pool's floor. The same float32 operations
// as the Go loop (conversion rounding to nearest, one product, an ordered
// comparison), eight rows a step. Needs AVX2.
TEXT ·scoreMaskAVX2(SB), NOSPLIT, $0-40
	MOVQ         dots+0(FP), SI
	MOVQ         scales+8(FP), DI
	MOVQ         groups+16(FP), CX
	VBROADCASTSS floor+24(FP), Y2
	MOVQ         mask+32(FP), R8
	VBROADCASTSS absMask32<>(SB), Y3

loop:
	TESTQ     CX, CX
	JEQ       done
	VCVTDQ2PS (SI), Y0
	VANDPS    (DI), Y3, Y1
	VMULPS    Y1, Y0, Y0
	VCMPPS    $0x1e, Y2, Y0, Y0 // greater than, ordered, quiet
	VMOVMSKPS Y0, AX
	MOVB      AX, (R8)
	ADDQ      $32, SI
	ADDQ      $32, DI
	INCQ      R8
	DECQ      CX
	JMP       loop

done:
	VZEROUPPER
	RET
