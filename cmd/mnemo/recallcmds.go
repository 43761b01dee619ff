package main

// The recall commands register themselves here rather than in main.go's
// table, so the recall files stay self-contained.
func init() {
	commands["search"] = command{"hybrid search over a resource's memory (or --queries FILE.jsonl)", func(m *Main) Command { return &SearchCommand{m} }}
	commands["eval"] = command{"score recall on LoCoMo or LongMemEval (recall_any, recall_all, NDCG)", func(m *Main) Command { return &EvalCommand{m} }}
	commands["reindex"] = command{"rebuild the lexical and vector indexes from the store", func(m *Main) Command { return &ReindexCommand{m} }}
	commands["check"] = command{"verify the database and that the indexes match it", func(m *Main) Command { return &CheckCommand{Main: m} }}
}
