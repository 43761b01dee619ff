package main

// The recall commands register themselves here rather than in main.go's
// table, so the recall files stay self-contained.
func init() {
	commands["search"] = command{"hybrid search over a resource's memory (or --queries FILE.jsonl)", (*Main).runSearch}
	commands["eval"] = command{"score recall on LoCoMo or LongMemEval (recall_any, recall_all, NDCG)", (*Main).runEval}
	commands["reindex"] = command{"rebuild the lexical and vector indexes from the store", (*Main).runReindex}
	commands["check"] = command{"verify that the indexes match the store", (*Main).runCheck}
}
