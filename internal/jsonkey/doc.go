// Package jsonkey finds a key that one JSON object names twice, the
// known key a misspelt one most likely meant (Closest), an object's
// members in order without decoding their values (Members), where a
// JSON text nests deeper than a limit (DeeperThan; MaxDepth is
// encoding/json's), an array longer than its bound, counted without
// decoding (LongArray), data after a decoded value (End), and a \u escape
// of half a UTF-16 surrogate pair, which encoding/json reads as U+FFFD
// (LoneSurrogate: importer.CheckJSONText, so request bodies and records,
// and tool-call arguments).
//
// encoding/json's Decoder.Decode reads one value and stops, and
// Decoder.More is false before a "}" or "]": a reader that decodes once
// and asks More accepted {"a":1}} and {"a":1}]. Every reader of a
// client's JSON that decodes with a Decoder calls End after the value
// (request bodies, the token file, mnemo.json, recall filters, tool
// arguments, a model's answer, LoCoMo and LongMemEval files), which
// refuses anything but JSON whitespace after it with a *TrailingError:
// "unexpected data after the JSON value at byte N". (The JSONL importer
// names what follows a record by its column, importer.decodeRecord.)
//
// A place named to a user is "at byte N", N counted from 0 (offset.go):
// DeeperThan's, TrailingError's and TextError's offsets are, and
// SyntaxOffset makes encoding/json's SyntaxError.Offset (counted from 1)
// so. NamedSyntax names the character a SyntaxError stopped at by its
// code point ('\u00a0' (U+00A0)), where encoding/json names a character
// past ASCII by its first byte as Latin-1 ('Â').
//
// encoding/json keeps the last of two members with the same name, so
// {"role":"user","role":"tool"} decodes as a tool message; RFC 8259 leaves
// such an object's meaning to the reader and I-JSON (RFC 7493) forbids it.
// mnemo refuses it wherever it reads JSON from a client (request bodies,
// MCP tool arguments, recall filters) instead of guessing.
//
// Same reports whether two JSON texts hold the same value, token by
// token (strings by what they decode to: "\u0078" is "x"): how Append
// tells a re-sent message from another when the stored text is spelled
// otherwise. Marshal is json.Marshal without HTML escaping, for the JSON
// text mnemo stores and a model reads: json.Marshal writes "<", ">" and
// "&" as \u003c, \u003e and \u0026, in a json.RawMessage's text too.
//
// # Imports
//
// jsonkey imports only the standard library (encoding/json's Decoder.Token),
// so every package that reads a client's JSON may use it: recall (its
// filters) and server (server.DuplicateKey, which request bodies, MCP tool
// arguments, the token file and mnemo.json go through).
package jsonkey
