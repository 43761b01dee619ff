package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// previewPrefixChars is how many characters (runes) of a message's content
// SearchPreviews reads to write its Preview of journal.PreviewChars (80).
// A preview joins words by single spaces, so a prefix of 1,024 characters
// gives the same preview as the whole text whenever at least 81 of them
// are not white space; it is at most 4 KiB of UTF-8.
const previewPrefixChars = 1024

// previewCallsChars is how many characters of a message's stored tool
// calls (the JSON array) SearchPreviews reads. A call is stored as
// {"id":…,"name":…,"arguments":…} and previewed as "→ name(arguments)": up
// to 161 characters of a stored call (an id of 128 and the JSON around it)
// show in no preview, so 12 calls of one-character names and arguments,
// the fewest whose preview passes 80 characters, take 1,970 stored
// characters, more than previewPrefixChars: with 1,024, eight such calls
// (a preview of 55) showed six and "…". From 2,048 characters the calls
// read always preview past 80 unless their arguments hold mostly white
// space. At most 8 KiB of UTF-8; with the content, 12 KiB a message,
// 12 MiB for 1,000 hits, where the whole messages may be 256 KiB of
// content and as many tool calls as Limits.MaxToolCalls allows.
const previewCallsChars = 2048

// PreviewResult is the answer of SearchPreviews: hits with a one-line
// preview of each message, in rank order.
type PreviewResult struct {
	// Hits are in rank order, each hit followed by its range neighbours
	// (recall.SortByRank). A hit whose message was erased after it was
	// indexed is left out.
	Hits []PreviewHit `json:"hits"`
	// Retrieval says how each channel fared and names the embedder.
	Retrieval journal.Retrieval `json:"retrieval"`
}

// PreviewHit is one recall hit or range neighbour with a preview of the
// message it names.
type PreviewHit struct {
	// MessageID is the message's id.
	MessageID string `json:"messageId"`
	// ThreadID is the message's thread.
	ThreadID string `json:"threadId"`
	// Seq is the message's seq in ThreadID.
	Seq int64 `json:"seq"`
	// Preview is Preview of the stored message (at most
	// journal.PreviewChars runes on one line), written from its first
	// characters: for a message whose content (or tool calls) is longer
	// than SearchPreviews reads, its words as far as they were read, cut
	// and ending in "…" as a long message's preview is, never inside a
	// character. It is Preview's byte for byte unless the part read is
	// mostly white space (fewer than 81 characters of it are not).
	Preview string `json:"preview"`
	// Reason, Rank, Score, Lexical and Vector are SearchHit's.
	Reason string `json:"reason"`
	// Rank is SearchHit.Rank (1-based).
	Rank int `json:"rank"`
	// Score is SearchHit.Score: the fused score, nil for a neighbour.
	Score *float64 `json:"score,omitempty"`
	// Lexical is SearchHit.Lexical: the BM25 channel's score, nil when it did not find the message.
	Lexical *float64 `json:"lexicalScore,omitempty"`
	// Vector is SearchHit.Vector: the cosine similarity, nil when the vector channel did not find it.
	Vector *float64 `json:"vectorScore,omitempty"`
}

// SearchPreviews is SearchMessages answering a one-line preview of each
// message instead of the message: the call behind `mnemo search`'s table.
// It reads the first characters of each message only (at most about 12 KiB
// a message, whatever its size), so it is not bounded by
// Config.Limits.MaxAnswerBytes: a search of topK 1,000 over messages of
// 200 KB previews all of them. It reads the messages of req.ResourceID
// only. Errors are Search's, and the store's read errors.
func (e *Engine) SearchPreviews(ctx context.Context, req SearchRequest) (*PreviewResult, error) {
	res, hits, ids, err := e.rankedSearch(ctx, req)
	if err != nil {
		return nil, err
	}
	ps, err := e.ms.PrefixesByID(ctx, req.ResourceID, ids, previewPrefixChars, previewCallsChars)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	byID := make(map[string]msgstore.Prefix, len(ps))
	for _, p := range ps {
		byID[p.ID] = p
	}
	out := &PreviewResult{Hits: make([]PreviewHit, 0, len(hits)), Retrieval: journalRetrieval(res.Retrieval)}
	for _, h := range hits {
		p, ok := byID[h.MessageID]
		if !ok {
			continue // erased since it was indexed
		}
		preview := prefixPreview(p)
		ph := PreviewHit{MessageID: p.ID, ThreadID: p.ThreadID, Seq: p.Seq, Preview: preview, Reason: h.Reason, Rank: h.Rank, Lexical: h.Lexical, Vector: h.Vector}
		if h.Reason == recall.ReasonHit {
			s := h.Score
			ph.Score = &s
		}
		out.Hits = append(out.Hits, ph)
	}
	return out, nil
}

// prefixPreview is Preview of the message p is the start of: its tool
// calls when it has any, else its content. A text cut by the read ends in
// "…" (cutLine). Tool calls that are whole but not a JSON array of calls
// are the calls reading the message gives (decodeToolCalls).
func prefixPreview(p msgstore.Prefix) string {
	if p.ToolCalls != "" && p.ToolCallsCut {
		return cutLine(cutCallsText(p.ToolCalls), journal.PreviewChars)
	}
	if calls, _ := decodeToolCalls(p.ToolCalls); len(calls) > 0 {
		return oneLine(callsText(calls), journal.PreviewChars)
	}
	if p.ContentCut {
		return cutLine(p.Content, journal.PreviewChars)
	}
	return oneLine(p.Content, journal.PreviewChars)
}

// cutLine is oneLine of a text that goes on past s: the words of s joined
// by single spaces, cut to limit−1 runes, and "…". When s's words pass
// limit runes it is oneLine of the whole text; otherwise it shows what
// was read, and says that more follows.
func cutLine(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > limit-1 {
		s = string(r[:limit-1])
	}
	return s + "…"
}

// callsText is the text Preview shows for tool calls: "→ name(arguments)"
// for each, arguments as stored, joined by spaces.
func callsText(calls []ToolCall) string {
	parts := make([]string, len(calls))
	for i, tc := range calls {
		parts[i] = "→ " + tc.Name + "(" + string(tc.Arguments) + ")"
	}
	return strings.Join(parts, " ")
}

// cutCallsText is callsText of the tool calls whose stored JSON array s
// is the start of (cut, it is not valid JSON): each whole call as
// callsText writes it, then the call s ends in as far as s holds it
// (partialCall).
func cutCallsText(s string) string {
	dec := json.NewDecoder(strings.NewReader(s))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return ""
	}
	var calls []ToolCall
	for {
		start := dec.InputOffset()
		var tc ToolCall
		if err := dec.Decode(&tc); err != nil {
			text := callsText(calls)
			if rest := partialCall(s[start:]); rest != "" {
				text = strings.TrimSpace(text + " " + rest)
			}
			return text
		}
		calls = append(calls, tc)
	}
}

// partialCall is the start of callsText's "→ name(arguments)" for the
// start s of one stored call (a JSON object, after any comma): the name
// when s holds it whole, and the arguments as stored, as far as s holds
// them ("" when s holds no member).
func partialCall(s string) string {
	s = strings.TrimLeft(s, ", \t\r\n")
	dec := json.NewDecoder(strings.NewReader(s))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	var name, args string
	closed := false
	for {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			break
		}
		off := dec.InputOffset()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			if key == "arguments" {
				args = strings.TrimLeft(s[off:], " \t\r\n:")
			}
			break
		}
		switch key {
		case "name":
			_ = json.Unmarshal(v, &name)
		case "arguments":
			// A number that ends s may go on past the cut ("12" of
			// "123"): it is not closed. Any other value ends in its own
			// last character ("}", "]", a quote, "true"…).
			args = string(v)
			closed = !isNumberStart(v[0]) || dec.InputOffset() < int64(len(s))
		}
	}
	if name == "" && args == "" {
		return ""
	}
	if closed {
		return "→ " + name + "(" + args + ")"
	}
	return "→ " + name + "(" + args
}

// isNumberStart reports whether c starts a JSON number.
func isNumberStart(c byte) bool { return c == '-' || '0' <= c && c <= '9' }
