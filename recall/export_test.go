package recall

// MaxTopKForTest is a TopK large enough to rank every message of a test
// corpus.
const MaxTopKForTest = 1000

// Dots8 and Dots8Go expose the int8 kernel and its pure-Go reference.
var (
	Dots8   = dots8
	Dots8Go = dots8Go
)
