package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// FrameProblem is what a JSON-RPC -32600 Invalid Request says of data,
// one JSON value (what: "body" of /mcp or "line" of mnemo mcp), when the
// go-sdk cannot decode it as a JSON-RPC 2.0 message or a batch of one or
// more (its readBatch, jsonrpc.DecodeMessage); "" when it can. The SDK
// decides; the words are mnemo's, naming the member at fault and JSON's
// types (the SDK's name Go's: "cannot unmarshal string into Go value of
// type jsonrpc2.wireDecode"):
//
//   - "the body is a string, not a JSON-RPC message (an object) or a
//     batch of them (an array)"; "the body is an empty batch: send one or
//     more JSON-RPC messages"
//   - `the message is not JSON-RPC 2.0: its "jsonrpc" member is missing`
//     (or `is "1.0"`, `is a number`)
//   - `"id" must be a string, a number or null, not an object`;
//     `"method" must be a string, not a number`
//   - `the message has neither "method" (a request or notification) nor
//     an "id" (a response)`
//
// A batch's element at fault is named first: "element 1 of the batch: it
// is a number, not a JSON-RPC message (an object)" (counted from 0). Over
// HTTP the SDK answered such a body 400 text/plain "malformed payload: …"
// (readme71 F1).
func FrameProblem(data []byte, what string) string {
	var batch []json.RawMessage
	if jsonType(data) != "an array" || json.Unmarshal(data, &batch) != nil { // null unmarshals as no batch
		return messageProblem(data, "the "+what, " or a batch of them (an array)")
	}
	if len(batch) == 0 {
		return "the " + what + " is an empty batch: send one or more JSON-RPC messages"
	}
	for i, m := range batch {
		if p := messageProblem(m, "it", ""); p != "" {
			return fmt.Sprintf("element %d of the batch: %s", i, p)
		}
	}
	return ""
}

// messageProblem is FrameProblem of one message m, which the SDK decodes
// or not (jsonrpc.DecodeMessage): subject names m when it is no object,
// orBatch says what else it could have been.
func messageProblem(m json.RawMessage, subject, orBatch string) string {
	_, err := jsonrpc.DecodeMessage(m)
	if err == nil {
		return ""
	}
	if t := jsonType(m); t != "object" {
		return fmt.Sprintf("%s is %s, not a JSON-RPC message (an object)%s", subject, t, orBatch)
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(m, &members) != nil {
		return err.Error()
	}
	return memberProblem(members, err)
}

// memberProblem names the member of a message, members by name, that the
// SDK refused (err), in the order it looks at them; err's words when none
// is found at fault.
func memberProblem(members map[string]json.RawMessage, err error) string {
	v, ok := members["jsonrpc"]
	switch {
	case !ok:
		return `the message is not JSON-RPC 2.0: its "jsonrpc" member is missing`
	case string(bytes.TrimSpace(v)) != `"2.0"`:
		is := jsonType(v)
		if v = bytes.TrimSpace(v); is == "a string" && len(v) <= 32 {
			is = string(v)
		}
		return `the message is not JSON-RPC 2.0: its "jsonrpc" member is ` + is + `, not "2.0"`
	}
	id, hasID := members["id"]
	if hasID {
		if t := jsonType(id); t != "a string" && t != "a number" && t != "null" {
			return `"id" must be a string, a number or null, not ` + withArticle(t)
		}
	}
	if method, ok := members["method"]; ok {
		if t := jsonType(method); t != "a string" {
			return `"method" must be a string, not ` + withArticle(t)
		}
	} else if !hasID || jsonType(id) == "null" {
		return `the message has neither "method" (a request or notification) nor an "id" (a response)`
	}
	return err.Error()
}

// withArticle is jsonType's words with "an object" for "object".
func withArticle(t string) string {
	if t == "object" {
		return "an object"
	}
	return t
}

// MessageID is the "id" member of data, a JSON-RPC message, when it is a
// string or a number, else nil: the id an Invalid Request answer echoes
// (JSON-RPC 2.0 §5: null when the request's id cannot be told).
func MessageID(data []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(data, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	if c := m.ID[0]; c == '"' || c == '-' || (c >= '0' && c <= '9') {
		return m.ID
	}
	return nil
}

// ErrorAnswer is a JSON-RPC 2.0 error response, one line of JSON without
// its newline: {"jsonrpc":"2.0","id":ID,"error":{"code":C,"message":M}},
// the members in the order the go-sdk writes its own answers. A nil id is
// null (the request's id could not be told: MessageID). The id and the
// message are written as given (jsonkey.Marshal: json.Marshal wrote an id
// "<a>" back as "\u003ca\u003e", and a message naming "<" so). /mcp's
// refusals of a body and mnemo mcp's of a line are both written so.
func ErrorAnswer(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := jsonkey.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: message}})
	return b
}
