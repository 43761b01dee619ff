package enginetest

import (
	"encoding/json"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// ChunkSeq returns the seq of the i-th turn (from 0) of the chunk an
// observer request sends (its last message: a <conversation> block, one
// JSON turn a line), the last turn's when the chunk holds fewer, 0 when
// it holds none. A fake observer cites it rather than a fixed seq: the
// observer drops a citation outside the chunk, and an item citing only
// such seqs, so a fake citing seq 1 loses its items once its chunk starts
// later.
func ChunkSeq(req openai.ChatCompletionRequest, i int) int64 {
	var seqs []int64
	if len(req.Messages) > 0 {
		for _, line := range strings.Split(req.Messages[len(req.Messages)-1].Content, "\n") {
			var turn struct {
				Seq *int64 `json:"seq"`
			}
			if json.Unmarshal([]byte(line), &turn) == nil && turn.Seq != nil {
				seqs = append(seqs, *turn.Seq)
			}
		}
	}
	if len(seqs) == 0 {
		return 0
	}
	return seqs[min(i, len(seqs)-1)]
}
