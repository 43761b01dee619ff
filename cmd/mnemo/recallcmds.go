package main

// The recall commands register themselves here rather than in main.go's
// table, so the recall files stay self-contained.
func init() {
	commands["eval"] = command{"score recall on LoCoMo or LongMemEval (recall_any, recall_all, NDCG)", (*Main).runEval}
}
