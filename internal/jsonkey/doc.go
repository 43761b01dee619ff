// Package jsonkey finds a key that one JSON object names twice, the
// known key a misspelt one most likely meant (Closest), an object's
// members in order without decoding their values (Members), and where a
// JSON text nests deeper than a limit (DeeperThan; MaxDepth is
// encoding/json's).
//
// encoding/json keeps the last of two members with the same name, so
// {"role":"user","role":"tool"} decodes as a tool message; RFC 8259 leaves
// such an object's meaning to the reader and I-JSON (RFC 7493) forbids it.
// mnemo refuses it wherever it reads JSON from a client (request bodies,
// MCP tool arguments, recall filters) instead of guessing.
//
// # Imports
//
// jsonkey imports only the standard library (encoding/json's Decoder.Token),
// so every package that reads a client's JSON may use it: recall (its
// filters) and server (server.DuplicateKey, which request bodies, MCP tool
// arguments, the token file and mnemo.json go through).
package jsonkey
