package tokens

import "encoding/json"

// BytesPerToken is the estimator's bytes per token.
const BytesPerToken = 4

// PerMessage is the framing a chat message adds (role, separators).
const PerMessage = 4

// Text estimates the tokens of s: len(s)/BytesPerToken, rounded up.
func Text(s string) int { return bytesTokens(len(s)) }

func bytesTokens(n int) int { return (n + BytesPerToken - 1) / BytesPerToken }

// Message estimates one chat message: its content, name and tool calls
// (toolCallsJSON as CallsJSON encodes them; nil when none) plus PerMessage.
func Message(content, name string, toolCallsJSON []byte) int {
	return bytesTokens(len(content)+len(name)+len(toolCallsJSON)) + PerMessage
}

// Call is a tool call as the estimator counts it; it encodes like the
// engine's stored tool calls: {"id":…,"name":…,"arguments":…}.
type Call struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// CallsJSON encodes calls as the engine stores them (nil for none).
// Arguments that are not valid JSON are encoded as a JSON string.
func CallsJSON(calls []Call) []byte {
	if len(calls) == 0 {
		return nil
	}
	b, err := json.Marshal(calls)
	if err == nil {
		return b
	}
	type strCall struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	s := make([]strCall, len(calls))
	for i, c := range calls {
		s[i] = strCall{c.ID, c.Name, string(c.Arguments)}
	}
	b, _ = json.Marshal(s)
	return b
}
