package engine

import (
	"context"

	"github.com/sashabaranov/go-openai"
)

// workingMemoryPart renders the working memory of the thread (or resource)
// for the system part and returns the tools it offers and the rendered size.
// Working memory is off until configured.
func (e *Engine) workingMemoryPart(ctx context.Context, threadID, resourceID string) (string, []openai.Tool, int, error) {
	return "", nil, 0, nil
}
