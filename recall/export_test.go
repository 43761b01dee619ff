package recall

// MaxTopKForTest is a TopK large enough to rank every message of a test
// corpus.
const MaxTopKForTest = 1000
