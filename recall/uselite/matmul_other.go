//go:build !amd64 || purego

package uselite

// haveKernel is false where no assembly kernel exists; matmul then uses
// gonum's pure-Go SGEMM.
const haveKernel = false

func kern6x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int) {
	panic("uselite: no matrix kernel on this platform")
}

func kern4x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int) {
	panic("uselite: no matrix kernel on this platform")
}

func kern1x16(k int, a *float32, b *float32, ldb int, c *float32) {
	panic("uselite: no matrix kernel on this platform")
}
