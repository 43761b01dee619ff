package engine_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestRedactHeaderLists: a header field's value in a list of header fields
// is tried after its name, as an object's member is: node's rawHeaders
// (a flat list) and lists of [name, value] pairs (walk44 F12). Before,
// [["Authorization","token ghp_…"]] and [["X-Api-Key","…"]] were stored
// in clear: no rule saw the name with its value.
func TestRedactHeaderLists(t *testing.T) {
	m := engine.RedactionMark
	checkRedact(t, []redactCase{
		{"pair-authorization", `[["Authorization","token 7a1f0c2e9b8d4f3a"]]`, `[["Authorization","token ` + m + `"]]`},
		{"pair-api-key", `[["Accept","text/plain"],["X-Api-Key","abcd1234efgh5678"]]`, `[["Accept","text/plain"],["X-Api-Key","` + m + `"]]`},
		{"raw-headers", `{"rawHeaders":["Host","api.example.com","x-api-key","abcd1234efgh5678","Accept","*/*"]}`,
			`{"rawHeaders":["Host","api.example.com","x-api-key","` + m + `","Accept","*/*"]}`},
		{"raw-headers-pretty", "[\n  \"Authorization\",\n  \"token 7a1f0c2e9b8d4f3a\"\n]", "[\n  \"Authorization\",\n  \"token " + m + "\"\n]"},
		{"in-log-line", `INFO headers=[["X-Auth-Token","abcd1234efgh5678"]] status=200`, `INFO headers=[["X-Auth-Token","` + m + `"]] status=200`},
		{"odd-list-kept", `["password","reset","link"]`, `["password","reset","link"]`},
		{"plain-headers-kept", `[["Accept","text/plain"],["X-Trace","abcd1234efgh5678"]]`, `[["Accept","text/plain"],["X-Trace","abcd1234efgh5678"]]`},
		{"not-names-kept", `["a password here","hunter2hunter2"]`, `["a password here","hunter2hunter2"]`},
		// Lists of words are no header lists (walk47 F3: the word after
		// the credential word was replaced).
		{"columns-kept", `{"cols":["id","name","token","created_at"]}`, `{"cols":["id","name","token","created_at"]}`},
		{"tags-kept", `{"tags":["secret","public"]}`, `{"tags":["secret","public"]}`},
		{"glossary-kept", `{"glossary":["Password","a word you keep","Token","an object"]}`, `{"glossary":["Password","a word you keep","Token","an object"]}`},
		{"private-token", `["Host","gitlab.example.com","Private-Token","abcd1234efgh5678"]`, `["Host","gitlab.example.com","Private-Token","` + m + `"]`},
	})
}
