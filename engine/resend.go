package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
	"github.com/mnemo-go/mnemo/internal/msgstore"
)

// A message sent under an id that is stored (or that the request gave an
// earlier message) is a duplicate when it is the same message: the same
// role, content, name and tool call id, the same tool calls and the same
// metadata; else ErrConflict. Equal digests (msgstore.Digest, over the
// stored text) and equal metadata text decide at once. When they differ,
// the JSON texts are compared by value (jsonkey.Same: members in order,
// strings by what they decode to, numbers digit for digit), a call's
// arguments as ToolCallArgumentsOf reads them. So a re-send that writes a
// string otherwise ("\u0078" for "x"), and one of a message stored before
// its tool calls and metadata were stored without HTML escaping ("<" as
// "\u003c") or before ToolCallArgumentsOf (arguments "" or "null" kept as
// that string, now {}), is a duplicate.

// sameRow refuses rows[i] repeating rows[j]'s id with other content or
// metadata: a *ValidationError on messages[i].id matching ErrDuplicateID
// (the request's own fault, whatever is stored).
func sameRow(i, j int, first, r row) error {
	what := ""
	switch {
	case first.digest != r.digest && !sameText(first.Role, first.fullContent(first.Content), first.Name, first.ToolCallID, first.toolCallsJSON, r):
		what = "content"
	case !jsonkey.Same(first.metadataJSON, r.metadataJSON):
		what = "metadata"
	default:
		return nil
	}
	return &ValidationError{Index: i, Field: "id", Err: ErrDuplicateID,
		Rule: fmt.Sprintf("%q is given twice in the request, as messages[%d].id with other %s; give each message its own id", r.ID, j, what)}
}

// sameStored refuses rows[i] when its id is stored as another message:
// in another thread, with other content or other metadata. A digest that
// differs for a message with tool calls has the stored one read (ap.Text)
// and compared.
func sameStored(ctx context.Context, ap *msgstore.Appender, i int, thread string, stored msgstore.StoredDigest, r row) error {
	if stored.ThreadID != thread {
		return fmt.Errorf("%w: messages[%d].id %q is stored in another thread", ErrConflict, i, r.ID)
	}
	if stored.Digest != r.digest {
		same, err := storedSame(ctx, ap, r)
		if err != nil {
			return fmt.Errorf("engine: messages[%d]: read stored message %q: %w", i, r.ID, err)
		}
		if !same {
			return fmt.Errorf("%w: messages[%d].id %q (stored as seq %d)", ErrConflict, i, r.ID, stored.Seq)
		}
	}
	if !jsonkey.Same([]byte(stored.Metadata), r.metadataJSON) {
		return fmt.Errorf("%w: messages[%d].id %q is stored as seq %d with other metadata", ErrConflict, i, r.ID, stored.Seq)
	}
	return nil
}

// storedSame reports whether the message stored under r's id is r, its
// digest aside: only tool calls are JSON, so a message without any is
// not the stored one when the digests differ.
func storedSame(ctx context.Context, ap *msgstore.Appender, r row) (bool, error) {
	if len(r.toolCallsJSON) == 0 {
		return false, nil
	}
	c, ok, err := ap.Text(ctx, r.ID)
	if err != nil || !ok {
		return false, err
	}
	return sameText(c.Role, c.Content, c.Name, c.ToolCallID, []byte(c.ToolCalls), r), nil
}

// sameText reports whether a message of role, content, name, tool call id
// and tool calls (JSON text) is r: the strings equal, the calls by value
// (sameCalls).
func sameText(role, content, name, toolCallID string, calls []byte, r row) bool {
	return role == r.Role && content == r.fullContent(r.Content) && name == r.Name && toolCallID == r.ToolCallID &&
		sameCalls(calls, r.toolCallsJSON)
}

// sameCalls reports whether the tool calls a and b (JSON arrays of
// ToolCall) are the same: as many, each with the same id and name and
// arguments of the same value as ToolCallArgumentsOf reads them.
func sameCalls(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var ca, cb []ToolCall
	if json.Unmarshal(a, &ca) != nil || json.Unmarshal(b, &cb) != nil || len(ca) != len(cb) {
		return false
	}
	for k := range ca {
		if ca[k].ID != cb[k].ID || ca[k].Name != cb[k].Name || !jsonkey.Same(readArguments(ca[k].Arguments), readArguments(cb[k].Arguments)) {
			return false
		}
	}
	return true
}

// readArguments is a as ToolCallArgumentsOf reads it, or a when it
// refuses it (a stored text is compared as it is).
func readArguments(a json.RawMessage) []byte {
	if v, err := ToolCallArgumentsOf(a); err == nil {
		return v
	}
	return a
}
