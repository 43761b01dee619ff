package recall

// Marks of a first use's stages (issue 14: where the first search of a
// large resource spends its time). loadMarkHook, set by the benchmarks
// only (BenchmarkFirstUse), is called at the end of each stage of a load
// from a snapshot and of the search that follows, from whichever goroutine
// ran it (the messages part's populate and checksum, the column prefetch
// and the store's thread marks run beside the decoding); nil, the default,
// costs a load one comparison a stage.
var loadMarkHook func(stage string)

// loadMark reports the end of stage to loadMarkHook, if set.
func loadMark(stage string) {
	if h := loadMarkHook; h != nil {
		h(stage)
	}
}
