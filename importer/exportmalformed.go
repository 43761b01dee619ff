package importer

import (
	"fmt"

	"github.com/mnemo-go/mnemo/engine"
)

// A row written outside mnemo (an import by SQL, a hand-made fix) may
// hold tool calls that are not a JSON array of calls, or metadata that is
// not a JSON object: a read gives what it can of them and their stored
// text in engine.Message.Malformed. A line with that part alone would
// lose the rest, and an assistant message left with neither content nor
// a call is one Import refuses (mnemo ingest --strict stopped there). So
// Export writes the stored text where Import takes any text, and names
// every such value (ExportOptions.OnMalformed, ExportReport.Malformed):
// the export of a store re-imports whole, and nothing is dropped unsaid.

// MalformedMetadataKey is the metadata member under which Export writes
// the stored text of metadata that is not a JSON object: the line's
// metadata is {"mnemo_malformed_metadata": "<the stored text>"}.
const MalformedMetadataKey = "mnemo_malformed_metadata"

// MalformedWritten names one stored value, not of its type, that Export
// wrote as text.
type MalformedWritten struct {
	// Resource is the message's resource.
	Resource string `json:"resource"`
	// Thread is the message's thread.
	Thread string `json:"thread"`
	// Seq is the message's seq in its thread as stored (1-based).
	Seq int64 `json:"seq"`
	// MessageID is the message's id.
	MessageID string `json:"messageId"`
	// Field is "tool_calls" (written as the line's content, after the
	// message's own and a blank line, with no tool_calls) or "metadata"
	// (written as the line's metadata, under MalformedMetadataKey).
	Field string `json:"field"`
}

// String says where the value is and where it went, for a person: "thread
// t1 seq 3 (message m3): tool_calls, not a JSON array of calls, written as
// its content".
func (w MalformedWritten) String() string {
	where := fmt.Sprintf("thread %s seq %d (message %s): ", w.Thread, w.Seq, w.MessageID)
	if w.Field == "metadata" {
		return where + "metadata, not a JSON object, written as its text under metadata member " + MalformedMetadataKey
	}
	return where + "tool_calls, not a JSON array of calls, written as its content (after the message's own and a blank line) with no tool_calls"
}

// writeMalformed puts the stored text of m's malformed columns into rec
// (see above) and reports each.
func writeMalformed(rec *exportRecord, m engine.Message, report func(MalformedWritten)) {
	if m.Malformed == nil {
		return
	}
	at := func(field string) {
		report(MalformedWritten{Resource: rec.Resource, Thread: rec.Thread, Seq: m.Seq, MessageID: m.ID, Field: field})
	}
	if s := m.Malformed.ToolCalls; s != "" {
		rec.ToolCalls = nil
		if rec.Content != "" {
			rec.Content += "\n\n"
		}
		rec.Content += s
		at("tool_calls")
	}
	if s := m.Malformed.Metadata; s != "" {
		rec.Metadata = map[string]any{MalformedMetadataKey: s}
		at("metadata")
	}
}
