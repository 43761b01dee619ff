package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestProblems: bad requests are answered with RFC 9457 problem details
// of a stable type, the status the condition maps to and the field at
// fault, each valid against the document.
func TestProblems(t *testing.T) {
	h := newHarness(t, true, server.Config{MaxBodyBytes: 2048})
	h.seed("t-bob", "res-bob", bobToken, "hello")
	appendPath := "/v1/threads/t-bob/messages"
	big := `{"resourceId":"res-bob","messages":[{"role":"user","content":"` + strings.Repeat("x", 4096) + `"}]}`
	cases := []struct {
		name, method, path, pattern, token string
		body                               any
		status                             int
		slug, field                        string
	}{
		{"NoToken", "GET", "/v1/threads", "/v1/threads", "", nil, 401, "unauthorized", ""},
		{"UnknownToken", "GET", "/v1/threads", "/v1/threads", "not-a-token-at-all", nil, 401, "unauthorized", ""},
		{"TooLarge", "POST", appendPath, "/v1/threads/{thread}/messages", bobToken, big, 413, "body-too-large", ""},
		{"UnknownField", "POST", appendPath, "/v1/threads/{thread}/messages", bobToken, `{"resourceId":"res-bob","bogus":1,"messages":[]}`, 400, "invalid-input", "bogus"},
		{"WrongType", "POST", appendPath, "/v1/threads/{thread}/messages", bobToken, `{"resourceId":5}`, 400, "invalid-input", "resourceId"},
		{"Malformed", "POST", appendPath, "/v1/threads/{thread}/messages", bobToken, `{"resourceId":`, 400, "invalid-input", ""},
		{"Empty", "POST", "/v1/search", "/v1/search", bobToken, "", 400, "invalid-input", ""},
		{"BadRole", "POST", appendPath, "/v1/threads/{thread}/messages", bobToken, map[string]any{"resourceId": "res-bob", "messages": []map[string]any{{"role": "wizard", "content": "x"}}}, 400, "invalid-input", "messages[0].role"},
		{"BadTimeType", "POST", appendPath, "/v1/threads/{thread}/messages", bobToken, `{"resourceId":"res-bob","messages":[{"role":"user","content":"x"},{"role":"user","content":"y","createdAt":5}]}`, 400, "invalid-input", "messages[1].createdAt"},
		{"BadTime", "POST", appendPath, "/v1/threads/{thread}/messages", bobToken, `{"resourceId":"res-bob","messages":[{"role":"user","content":"x","createdAt":"yesterday"}]}`, 400, "invalid-input", "messages[0].createdAt"},
		{"SearchNUL", "POST", "/v1/search", "/v1/search", bobToken, `{"resourceId":"res-bob","query":"he\u0000llo"}`, 400, "invalid-input", "query"},
		{"FarFutureTime", "POST", appendPath, "/v1/threads/{thread}/messages", bobToken, `{"resourceId":"res-bob","messages":[{"role":"user","content":"x"},{"role":"user","content":"y","createdAt":"9999-12-31T23:59:59Z"}]}`, 400, "invalid-input", "messages[1].createdAt"},
		{"BadRange", "POST", "/v1/search", "/v1/search", bobToken, `{"resourceId":"res-bob","query":"x","recall":{"messageRange":"wide"}}`, 400, "invalid-input", "recall.messageRange"},
		{"ToolCallArgumentsList", "POST", appendPath, "/v1/threads/{thread}/messages", bobToken, `{"resourceId":"res-bob","messages":[{"role":"assistant","toolCalls":[{"id":"c1","name":"f","arguments":{}},{"id":"c2","name":"f","arguments":[1]}]}]}`, 400, "invalid-input", "messages[0].toolCalls[1].arguments"},
		{"ToolCallArgumentsNumber", "POST", appendPath, "/v1/threads/{thread}/messages", bobToken, `{"resourceId":"res-bob","messages":[{"role":"assistant","toolCalls":[{"id":"c1","name":"f","arguments":3}]}]}`, 400, "invalid-input", "messages[0].toolCalls[0].arguments"},
		{"NestedWrongType", "POST", appendPath, "/v1/threads/{thread}/messages", bobToken, `{"resourceId":"res-bob","messages":[{"role":"user","content":"x"},{"role":"user","content":5}]}`, 400, "invalid-input", "messages[1].content"},
		{"NestedUnknownField", "POST", appendPath, "/v1/threads/{thread}/messages", bobToken, `{"resourceId":"res-bob","messages":[{"role":"user","content":"x","extra":1}]}`, 400, "invalid-input", "messages[0].extra"},
		{"RecallUnknownField", "POST", "/v1/search", "/v1/search", bobToken, `{"resourceId":"res-bob","query":"x","recall":{"bogus":1}}`, 400, "invalid-input", "recall.bogus"},
		{"BadThreadID", "GET", "/v1/threads/bad%20id", "/v1/threads/{thread}", bobToken, nil, 400, "invalid-input", "thread"},
		{"Conflict", "POST", appendPath, "/v1/threads/{thread}/messages", bobToken, map[string]any{"resourceId": "res-bob", "messages": []map[string]any{{"id": "m-1", "role": "user", "content": "other"}}}, 409, "conflict", "messages"},
		{"BadRecall", "POST", "/v1/search", "/v1/search", bobToken, map[string]any{"resourceId": "res-bob", "query": "x", "recall": map[string]any{"topK": -1}}, 400, "invalid-input", "recall.topK"},
		{"BadRecallMode", "POST", "/v1/search", "/v1/search", bobToken, map[string]any{"resourceId": "res-bob", "query": "x", "recall": map[string]any{"mode": "fuzzy"}}, 400, "invalid-input", "recall.mode"},
		{"BadContextRecall", "POST", "/v1/context", "/v1/context", bobToken, map[string]any{"threadId": "t-bob", "recall": map[string]any{"threshold": 2}}, 400, "invalid-input", "recall.threshold"},
		{"BadFilter", "POST", "/v1/search", "/v1/search", bobToken, map[string]any{"resourceId": "res-bob", "query": "x", "recall": map[string]any{"filter": map[string]any{"seq": map[string]any{"$like": 1}}}}, 400, "invalid-input", "recall.filter"},
		{"BadQueryParam", "GET", "/v1/threads/t-bob/messages?fromSeq=abc", "/v1/threads/{thread}/messages", bobToken, nil, 400, "invalid-input", "fromSeq"},
		{"NoErase", "DELETE", "/v1/threads/t-bob", "/v1/threads/{thread}", bobToken, nil, 403, "forbidden", ""},
		{"MetricsTenant", "GET", "/metrics", "/metrics", bobToken, nil, 403, "forbidden", ""},
	}
	h.ok("POST", "/v1/threads/{thread}/messages", appendPath, bobToken, map[string]any{"resourceId": "res-bob", "messages": []map[string]any{{"id": "m-1", "role": "user", "content": "first"}}}, 200)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.do(c.method, c.path, c.token, c.body)
			if r.status != c.status {
				t.Fatalf("status %d, want %d: %s", r.status, c.status, r.body)
			}
			p := r.problem(t)
			if p.Type != server.ProblemTypeBase+c.slug || p.Field != c.field {
				t.Fatalf("problem %+v, want type %s field %q", p, c.slug, c.field)
			}
			if c.status == 401 && r.header.Get("WWW-Authenticate") == "" {
				t.Fatal("401 without WWW-Authenticate")
			}
			h.validate(c.method, c.pattern, r)
		})
	}
	t.Run("Wording", func(t *testing.T) {
		for body, want := range map[string]string{
			`[]`:     "must be a JSON object, not an array",
			" null ": "the body must be a JSON object, not null", // was "resourceId is required"
			`{"resourceId":"res-bob","query":"x","recall":{"threshold":"high"}}`: `"recall.threshold" must be a JSON number, not a string`,
			`{"resourceId":"res-bob","query":"x","recall":{"topK":"5"}}`:         `"recall.topK" must be a JSON number, not a string`,
			// A number no float64 holds is not refused for not being an
			// integer (before: "must be an integer, not 1e400"), nor is an
			// integer too large for its field.
			`{"resourceId":"res-bob","query":"x","recall":{"threshold":1e400}}`:           `"recall.threshold" is out of range for a number: 1e400`,
			`{"resourceId":"res-bob","query":"x","recall":{"topK":99999999999999999999}}`: `"recall.topK" is out of range for an integer: 99999999999999999999`,
			`{"resourceId":"res-bob","query":"x","recall":{"topK":1.5}}`:                  `"recall.topK" must be an integer, not 1.5`,
			// A whole number in another notation is told how to write it
			// (before: "must be an integer, not 1e3").
			`{"resourceId":"res-bob","query":"x","recall":{"topK":1e3}}`:   `"recall.topK" must be a whole number written without an exponent: 1000, not 1e3`,
			`{"resourceId":"res-bob","query":"x","recall":{"topK":2.0}}`:   `"recall.topK" must be a whole number written without a decimal point: 2, not 2.0`,
			`{"resourceId":"res-bob","query":"x","recall":{"topK":1e400}}`: `"recall.topK" is out of range for an integer: 1e400`,
			// messageRange is worded as topK: its bound with what it got,
			// and a number no int holds as for any integer (it said "is at
			// most 20 on each side", "must not be negative", and
			// `"recall.messageRange" is malformed: recall: invalid options:
			// messageRange must be a whole number or {…}` for each number
			// below).
			`{"resourceId":"res-bob","query":"x","recall":{"messageRange":25}}`:                              `recall.messageRange must be within [0, 20] on each side, got 25`,
			`{"resourceId":"res-bob","query":"x","recall":{"messageRange":-1}}`:                              `recall.messageRange must be within [0, 20] on each side, got -1`,
			`{"resourceId":"res-bob","query":"x","recall":{"messageRange":{"before":1,"after":21}}}`:         `recall.messageRange must be within [0, 20] on each side, got {"before":1,"after":21}`,
			`{"resourceId":"res-bob","query":"x","recall":{"messageRange":99999999999999999999}}`:            `"recall.messageRange" is out of range for an integer: 99999999999999999999`,
			`{"resourceId":"res-bob","query":"x","recall":{"messageRange":1e400}}`:                           `"recall.messageRange" is out of range for an integer: 1e400`,
			`{"resourceId":"res-bob","query":"x","recall":{"messageRange":{"before":99999999999999999999}}}`: `"recall.messageRange.before" is out of range for an integer: 99999999999999999999`,
			`{"resourceId":"res-bob","query":"x","recall":{"messageRange":1.5}}`:                             `"recall.messageRange" must be an integer, not 1.5`,
			`{"resourceId":"res-bob","query":"x","recall":{"messageRange":{"before":1,"after":1e3}}}`:        `"recall.messageRange.after" must be a whole number written without an exponent: 1000, not 1e3`,
			// A value of another type is worded as topK's (it said
			// "messageRange must be a whole number or {…}").
			`{"resourceId":"res-bob","query":"x","recall":{"messageRange":"3"}}`:            `"recall.messageRange" must be a JSON number or object, not a string`,
			`{"resourceId":"res-bob","query":"x","recall":{"messageRange":[1]}}`:            `"recall.messageRange" must be a JSON number or object, not an array`,
			`{"resourceId":"res-bob","query":"x","recall":{"messageRange":{"before":"1"}}}`: `"recall.messageRange.before" must be a JSON number, not a string`,
		} {
			r := h.do("POST", "/v1/search", bobToken, body)
			if p := r.problem(t); !strings.Contains(p.Detail, want) {
				t.Errorf("%s: detail %q, want %q", body, p.Detail, want)
			}
		}
	})
	// A time takes no null (it was read as left out: the server clock),
	// as MCP's "at", a string, refuses it (mcpserver TestNullRuleBothSides).
	t.Run("NullTime", func(t *testing.T) {
		for _, c := range []struct{ path, body, want string }{
			{appendPath, `{"resourceId":"res-bob","messages":[{"role":"user","content":"x","createdAt":null}]}`, `"messages[0].createdAt" must be a JSON string, not null`},
			{"/v1/search", `{"resourceId":"res-bob","query":"x","at":null}`, `"at" must be a JSON string, not null`},
		} {
			r := h.do("POST", c.path, bobToken, c.body)
			if p := r.problem(t); r.status != 400 || p.Detail != c.want {
				t.Errorf("%s: %d %q, want 400 %q", c.body, r.status, p.Detail, c.want)
			}
		}
	})
	// An unknown member is named with its path and, when one is close, the
	// field it most likely meant, as mnemo ingest names one in a JSONL line.
	t.Run("UnknownFieldWording", func(t *testing.T) {
		h.ok("POST", "/v1/context", "/v1/context", bobToken, map[string]any{"threadId": "t-bob", "runId": "run-1"}, 200)
		for _, c := range []struct{ path, body, want string }{
			{appendPath, `{"resourceId":"res-bob","messages":[{"role":"user","content":"x"},{"role":"user","contnet":"y"}]}`, `unknown field "messages[1].contnet" (did you mean "content"?)`},
			{appendPath, `{"resourceId":"res-bob","mesages":[]}`, `unknown field "mesages" (did you mean "messages"?)`},
			{"/v1/search", `{"resourceId":"res-bob","query":"x","recall":{"bogus":1}}`, `unknown field "recall.bogus"`},
			// A message range's member too (it was encoding/json's
			// `unknown field "sideways"`, without its path).
			{"/v1/search", `{"resourceId":"res-bob","query":"x","recall":{"messageRange":{"before":1,"sideways":2}}}`, `unknown field "recall.messageRange.sideways"`},
			{"/v1/search", `{"resourceId":"res-bob","query":"x","recall":{"messageRange":{"befor":1}}}`, `unknown field "recall.messageRange.befor" (did you mean "before"?)`},
			// A member of a member's object, given one level up, is told
			// where it goes; one near no name, the names there are (as an
			// unknown query parameter is): readme48 sent {"topK":5} and
			// replay's {"without":[…]}, and read only `unknown field "topK"`.
			{"/v1/search", `{"resourceId":"res-bob","query":"x","topK":5}`, `unknown field "topK": it is a member of "recall" ({"recall": {"topK": …}})`},
			{"/v1/search", `{"resourceId":"res-bob","query":"x","bogus":5}`, `unknown field "bogus" (the body takes resourceId, threadId, query, recall and at)`},
			{"/v1/runs/run-1/replay", `{"without":["recalled"]}`, `unknown field "without" (the body takes withoutRecalled, withoutTurns, withoutObservations, withoutObservationIds and withoutWorkingMemory)`},
			{appendPath, `{"resourceId":"res-bob","messages":[{"role":"user","content":"x","extra":1}]}`, `unknown field "messages[0].extra" ("messages[0]" takes `},
		} {
			p := h.do("POST", c.path, bobToken, c.body).problem(t)
			if !strings.Contains(p.Detail, c.want) {
				t.Errorf("%s: detail %q, want it to hold %q", c.body, p.Detail, c.want)
			}
		}
	})
	t.Run("MediaType", func(t *testing.T) {
		req, _ := http.NewRequest("POST", h.ts.URL+"/v1/search", strings.NewReader(`{}`))
		req.Header.Set("Authorization", "Bearer "+bobToken)
		req.Header.Set("Content-Type", "text/plain")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 415 {
			t.Fatalf("text/plain body: %d, want 415", res.StatusCode)
		}
	})
}

// TestTokensFile: a bad token file is refused with the entry and field named.
func TestTokensFile(t *testing.T) {
	cases := map[string]struct{ json, want string }{
		"Empty":      {`{"tokens":[]}`, "at least one token"},
		"EmptyFile":  {"", "the file is empty"},
		"BlankFile":  {" \n", "the file is empty"},
		"Short":      {`{"tokens":[{"token":"abc","resources":["r"]}]}`, "tokens[0].token"},
		"NoResource": {`{"tokens":[{"token":"abcdefghij","resources":[]}]}`, "tokens[0].resources"},
		"BadID":      {`{"tokens":[{"token":"abcdefghij","resources":["a b"]}]}`, "tokens[0].resources[0]"},
		// The rule and what broke, as the API's ids; the file's type in
		// the file's words (they were "not a valid resource id" and
		// "json: cannot unmarshal array into Go value of type
		// server.TokenFile").
		"BadIDRule": {`{"tokens":[{"name":"bob","token":"abcdefghij","resources":["a b"]}]}`,
			`invalid token file: tokens[0].resources[0]: a resource id must be 1-128 characters of [A-Za-z0-9_.:@-] (or "*" alone, for every resource); got " " at byte 1; tokens[0] is the token named "bob"`},
		"Array":     {`[]`, `invalid token file: the file must be a JSON object, {"tokens": [...]}, not an array`},
		"String":    {`"x"`, `invalid token file: the file must be a JSON object, {"tokens": [...]}, not a string`},
		"Number":    {`5`, `invalid token file: the file must be a JSON object, {"tokens": [...]}, not a number`},
		"Duplicate": {`{"tokens":[{"token":"abcdefghij","resources":["a"]},{"token":"abcdefghij","resources":["b"]}]}`, "tokens[1].token"},
		"Unknown":   {`{"tokens":[{"token":"abcdefghij","resources":["a"],"admin":true}]}`, "admin"},
		// An entry's fault names the token by its name, or its resources
		// (never its secret): encoding/json said `json: unknown field
		// "tenant"`, naming no entry, and a wrong type in Go's words.
		"UnknownNamed": {`{"tokens":[{"name":"ops","token":"s3cret-ops-1","resources":["*"]},{"name":"bob","token":"s3cret-bob-1","resources":["b"],"tenant":"b"}]}`,
			`invalid token file: unknown field "tokens[1].tenant" (a token has name, token, resources and erase); tokens[1] is the token named "bob"`},
		// The member list went by the detail's text: a member whose
		// name holds "did you mean" went without it.
		"UnknownDidYouMean": {`{"tokens":[{"name":"bob","token":"s3cret-bob-1","resources":["b"],"did you mean":1}]}`,
			`unknown field "tokens[0].did you mean" (a token has name, token, resources and erase); tokens[0] is the token named "bob"`},
		"MisspeltUnnamed": {`{"tokens":[{"nmae":"bob","token":"s3cret-bob-1","resources":["alice","bob"]}]}`,
			`unknown field "tokens[0].nmae" (did you mean "name"?); tokens[0] is the token without a name, for resources alice, bob`},
		"WrongTypeNamed": {`{"tokens":[{"name":"bob","token":"s3cret-bob-1","resources":["b"],"erase":"yes"}]}`,
			`"tokens[0].erase" must be a JSON boolean, not a string; tokens[0] is the token named "bob"`},
		"ShortNamed": {`{"tokens":[{"name":"bob","token":"s3cret","resources":["b"]}]}`, `tokens[0].token: must be at least 8 characters without surrounding spaces; tokens[0] is the token named "bob"`},
		// A secret holding a control character (JSON carries one escaped)
		// is refused naming the entry, never the secret: it was accepted,
		// a token no client could send.
		"SecretNUL":    {`{"tokens":[{"name":"bob","token":"s3cret-\u0000-bob","resources":["b"]}]}`, `tokens[0].token: must hold no control character (U+0000-U+001F or U+007F-U+009F, such as a NUL, a tab or an escape); tokens[0] is the token named "bob"`},
		"SecretTab":    {`{"tokens":[{"token":"abcdefghij","resources":["a"]},{"token":"s3cret\tbob-1","resources":["b","c"]}]}`, `tokens[1].token: must hold no control character (U+0000-U+001F or U+007F-U+009F, such as a NUL, a tab or an escape); tokens[1] is the token without a name, for resources b, c`},
		"SecretEscape": {`{"tokens":[{"name":"ops","token":"s3cret\u001b[31m-ops","resources":["*"]}]}`, `tokens[0].token: must hold no control character`},
		"SecretDEL":    {`{"tokens":[{"name":"ops","token":"s3cret-ops\u007f","resources":["*"]}]}`, `tokens[0].token: must hold no control character`},
		"SecretC1":     {`{"tokens":[{"name":"ops","token":"s3cret-\u009b-ops","resources":["*"]}]}`, `tokens[0].token: must hold no control character`},
		// A secret holding a space ("Bearer s3cret one" is no bearer
		// token), and "*" beside resource ids (["a", "*"] granted every
		// resource), were accepted.
		"SecretSpace":     {`{"tokens":[{"name":"bob","token":"s3cret bob-1","resources":["b"]}]}`, `tokens[0].token: must hold no space (a bearer token is one word); tokens[0] is the token named "bob"`},
		"SecretSpaceLast": {`{"tokens":[{"token":"abcdefghij","resources":["a"]},{"token":"s3cret-ops  1","resources":["*"]}]}`, `tokens[1].token: must hold no space`},
		"WildcardBeside":  {`{"tokens":[{"name":"ops","token":"s3cret-ops-1","resources":["a","*"]}]}`, `tokens[0].resources[1]: "*" (every resource) must be the list's only entry: give ["*"] or the resource ids; tokens[0] is the token named "ops"`},
		"WildcardFirst":   {`{"tokens":[{"token":"s3cret-ops-1","resources":["*","b"]}]}`, `tokens[0].resources[0]: "*" (every resource) must be the list's only entry: give ["*"] or the resource ids; tokens[0] is the token without a name, for resources *, b`},
		"WildcardTwice":   {`{"tokens":[{"token":"s3cret-ops-1","resources":["*","*"]}]}`, `tokens[0].resources[0]: "*" (every resource) must be the list's only entry`},
		"UnknownTop":      {`{"tokenz":[]}`, `unknown field "tokenz" (did you mean "tokens"?)`},
		// Two tokens of one name: the access log names a request by the
		// name alone (walk40 #2); they were accepted, as was a resource
		// listed twice. A secret given twice was refused already.
		"NameTwice": {`{"tokens":[{"name":"same","token":"s3cret-aaaa","resources":["alice"]},{"name":"same","token":"s3cret-bbbb","resources":["bob"]}]}`,
			`tokens[1].name: "same" is given twice (tokens[0] is named so too): the access log names a request by its token's name alone, so give each token a name of its own`},
		"NameOfUnnamed": {`{"tokens":[{"token":"s3cret-aaaa","resources":["alice"]},{"name":"token-0","token":"s3cret-bbbb","resources":["bob"]}]}`,
			`tokens[1].name: "token-0" is the name tokens[0] has without one given (token-<index>)`},
		"UnnamedAsNamed": {`{"tokens":[{"name":"token-1","token":"s3cret-aaaa","resources":["alice"]},{"token":"s3cret-bbbb","resources":["bob"]}]}`,
			`tokens[1].name: none is given, so the token is named "token-1" (token-<index>), which tokens[0] is named too`},
		"SecretTwice": {`{"tokens":[{"name":"a","token":"s3cret-aaaa","resources":["alice"]},{"name":"b","token":"s3cret-aaaa","resources":["bob"]}]}`,
			`tokens[1].token: the same secret is given twice (as an earlier token's); tokens[1] is the token named "b"`},
		// "-" is the access log's name for a request without a valid
		// token (walk41 #4): an operator token so named logged its
		// erasures as the anonymous 401s are. Blanks around a name read
		// as another's.
		"NameDash": {`{"tokens":[{"name":"-","token":"s3cret-cccc","resources":["*"],"erase":true}]}`,
			`tokens[0].name: "-" is the access log's name for a request without a valid token: give the token another name`},
		"NameBlanks": {`{"tokens":[{"name":"same ","token":"s3cret-cccc","resources":["a"]}]}`,
			`tokens[0].name: "same " has blanks around it`},
		// A name that is a token's secret: the access log and the metrics
		// write names in clear (walk45 #1); the error must not quote it.
		"NameOwnSecret": {`{"tokens":[{"name":"s3cret-cccc","token":"s3cret-cccc","resources":["a"]}]}`,
			`tokens[0].name: is the secret of a token of this file`},
		// A name that reads as a token's secret (tok48, walk47): it
		// differs in case only, or in a look-alike letter; the error
		// quotes neither.
		"NameSecretCase": {`{"tokens":[{"name":"s3cret-aaaa1","token":"S3CRET-Aaaa1","resources":["a"]}]}`,
			`tokens[0].name: reads as the secret of a token of this file (they differ in case, width or look-alike letters only)`},
		"NameOtherSecretLookAlike": {`{"tokens":[{"name":"a","token":"s3cret-cccc","resources":["a"]},{"name":"s3crеt-ｃccc","token":"s3cret-dddd","resources":["b"]}]}`,
			`tokens[1].name: reads as the secret of a token of this file`},
		"NameOtherSecret": {`{"tokens":[{"name":"s3cret-dddd","token":"s3cret-cccc","resources":["a"]},{"name":"b","token":"s3cret-dddd","resources":["b"]}]}`,
			`tokens[0].name: is the secret of a token of this file`},
		"ResourceTwice": {`{"tokens":[{"name":"a","token":"s3cret-aaaa","resources":["alice","bob","alice"]}]}`,
			`tokens[0].resources[2]: "alice" is given twice in the list: give each resource once; tokens[0] is the token named "a"`},
		// A resource "." or "..", which no new data may name: every write
		// of the token was refused, its reads 404 in a browser; it was
		// accepted (ValidID).
		"DotDotResource": {`{"tokens":[{"name":"dd","token":"s3cret-dd-1","resources":[".."]}]}`,
			`tokens[0].resources[0]: ".." cannot be a token's resource: nothing new may be stored under "." or ".." (URLs read them as dot segments), so its every write would be refused; read and erase what a data directory written before holds under it with an operator token (["*"]) or the mnemo commands; tokens[0] is the token named "dd"`},
		"DotResource": {`{"tokens":[{"token":"abcdefghij","resources":["a"]},{"token":"s3cret-d-1","resources":["b","."]}]}`,
			`tokens[1].resources[1]: "." cannot be a token's resource`},
		// The prefix of erasure's tombstones, refused for new data alike.
		"TombstoneResource": {`{"tokens":[{"token":"s3cret-e-1","resources":["erased-r"]}]}`,
			`tokens[0].resources[0]: "erased-r" cannot be a token's resource: nothing new may be stored under an id beginning with "erased-" (reserved for erased owners), so its every write would be refused`},
		// A byte-order mark was "invalid character 'ï'"; a secret saved
		// as Latin-1 was accepted, read with U+FFFD, a token no client
		// sends (review17).
		"BOM":    {"\uFEFF" + `{"tokens":[{"token":"abcdefghij","resources":["a"]}]}`, "invalid token file: the file begins with a UTF-8 byte-order mark (EF BB BF), which JSON does not allow: save it as UTF-8 without one"},
		"Latin1": {`{"tokens":[{"token":"s3cret-caf` + "\xe9" + `","resources":["a"]}]}`, "invalid token file: not UTF-8 at byte 31 (JSON text is UTF-8; a string holding the byte would be read as U+FFFD): save the file as UTF-8"},
		// A member given twice, or in another case, is refused: encoding/json
		// kept the last one (all resources here) or matched it anyway.
		"RepeatedMember": {`{"tokens":[{"token":"abcdefghij","resources":["alice"],"resources":["*"]}]}`, `"tokens[0].resources" is given twice`},
		"RepeatedErase":  {`{"tokens":[{"token":"abcdefghij","resources":["a"],"erase":false,"erase":true}]}`, `"tokens[0].erase" is given twice`},
		"CaseVariant":    {`{"tokens":[{"token":"abcdefghij","resources":["a"],"Erase":true}]}`, `unknown field "tokens[0].Erase" (did you mean "erase"?`},
		// Where the JSON breaks: encoding/json said only "unexpected EOF".
		"Truncated": {`{"tokens":[{"token":"abcdefghij"`, "the JSON ends before its value does"},
		"Malformed": {`{"tokens":[{"token":"abcdefghij",]}`, "malformed JSON at byte 33"}, // the "]", counted from 0 (encoding/json says 34)
		// A character past ASCII is named with its code point, where
		// encoding/json named its first byte as Latin-1 ('Â').
		"NoBreakSpace": {`{"tokens":` + "\u00a0" + `[]}`, `malformed JSON at byte 10: invalid character '\u00a0' (U+00A0) looking for beginning of value`},
		// Data after the object: a stray "}" was not looked at, nor was
		// anything after it.
		"TrailingBrace":   {`{"tokens":[{"token":"abcdefghij","resources":["a"]}]}}`, "invalid token file: unexpected data after the JSON value at byte 53"},
		"TrailingBracket": {`{"tokens":[{"token":"abcdefghij","resources":["a"]}]}]`, "unexpected data after the JSON value at byte 53"},
		"TrailingObject":  {`{"tokens":[{"token":"abcdefghij","resources":["a"]}]}` + "\n" + `{"tokens":[{"token":"s3cret-ops-1","resources":["*"]}]}`, "unexpected data after the JSON value at byte 54"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := server.ParseTokens([]byte(c.json))
			if !errors.Is(err, server.ErrInvalidTokens) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want ErrInvalidTokens naming %q", err, c.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Fatalf("err %v names a token's secret", err)
			}
		})
	}
	tok, err := server.ParseTokens([]byte(testTokens))
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := tok.Lookup(opsToken); !ok || !p.All || !p.Allows("anything") {
		t.Fatalf("ops token: %+v %v", p, ok)
	}
	if p, ok := tok.Lookup(bobToken); !ok || p.All || p.Allows("res-alice") || !p.Allows("res-bob") || p.Erase {
		t.Fatalf("bob token: %+v %v", p, ok)
	}
	// Letters of any script, and a no-break space (U+00A0, past the C1
	// controls), are a secret's own.
	tok, err = server.ParseTokens([]byte(`{"tokens":[{"token":"pässwört\u00a0ключ-1","resources":["a"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tok.Lookup("pässwört\u00a0ключ-1"); !ok {
		t.Fatal("a secret of non-ASCII letters is not found")
	}
}

// TestTokensFileTooLarge: a token file over MaxTokenFileBytes (here
// /dev/zero, given by mistake) is refused without being read whole; one
// at the bound is read and parsed.
func TestTokensFileTooLarge(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := server.LoadTokens("/dev/zero")
	if !errors.Is(err, server.ErrInvalidTokens) || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err %v, want ErrInvalidTokens saying larger than", err)
	}
	path := filepath.Join(t.TempDir(), "tokens.json")
	padded := testTokens + strings.Repeat(" ", server.MaxTokenFileBytes-len(testTokens))
	if err := os.WriteFile(path, []byte(padded), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := server.LoadTokens(path); err != nil {
		t.Fatalf("a file of MaxTokenFileBytes: %v", err)
	}
}

// TestGracefulShutdown: when Serve's context ends during a request whose
// body is still arriving, the request completes and is stored, Serve
// returns nil, and new connections are refused.
func TestGracefulShutdown(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{})
	srv, err := server.New(server.Config{Engine: e, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()

	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+"/v1/threads/t1/messages", pr)
	req.Header.Set("Content-Type", "application/json")
	done := make(chan *http.Response, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			close(done)
			return
		}
		done <- res
	}()
	io.WriteString(pw, `{"resourceId":"r1","messages":[`)
	time.Sleep(100 * time.Millisecond) // the request is in flight
	cancel()
	time.Sleep(100 * time.Millisecond)
	io.WriteString(pw, `{"role":"user","content":"in flight"}]}`)
	pw.Close()
	res := <-done
	if res == nil {
		t.Fatal("no response")
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("in-flight request: %d %s", res.StatusCode, b)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if ms, err := e.Messages(context.Background(), "t1", 0, 0); err != nil || len(ms) != 1 {
		t.Fatalf("stored %d messages (err %v), want 1", len(ms), err)
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Fatal("listener still accepts after shutdown")
	}
}

// TestMetricsAndAccessLog: /metrics (operator token) gives request counts by
// route and status, latency histograms, outbox depth and process RSS; each
// request leaves one access-log record naming the token, never its secret.
func TestMetricsAndAccessLog(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-bob", "res-bob", bobToken, "hello there")
	h.ok("POST", "/v1/search", "/v1/search", bobToken, map[string]any{"resourceId": "res-bob", "query": "hello"}, 200)
	r := h.do("GET", "/metrics", opsToken, nil)
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("metrics: %d %s", r.status, r.header.Get("Content-Type"))
	}
	for _, want := range []string{
		`mnemo_http_requests_total{route="POST /v1/search",code="200"} 1`,
		`mnemo_http_request_duration_seconds_bucket{route="POST /v1/search",le=`,
		"mnemo_outbox_pending 0", "mnemo_messages 1", "mnemo_index_lag_seconds", "process_resident_memory_bytes",
	} {
		if !bytes.Contains(r.body, []byte(want)) {
			t.Errorf("metrics lack %q", want)
		}
	}
	logs := h.logs.String()
	if !strings.Contains(logs, `"route":"POST /v1/search"`) || !strings.Contains(logs, `"token":"bob"`) || !strings.Contains(logs, `"status":200`) {
		t.Errorf("access log lacks the search request:\n%s", logs)
	}
	if strings.Contains(logs, bobToken) {
		t.Error("access log carries a token secret")
	}
}

// TestHealthClosed: /healthz answers 503 (problem "unavailable") once the
// engine is closed, and 200 before.
func TestHealthClosed(t *testing.T) {
	h := newHarness(t, false, server.Config{})
	h.ok("GET", "/healthz", "/healthz", "", nil, 200)
	h.e.Close()
	r := h.do("GET", "/healthz", "", nil)
	if r.status != 503 || r.problem(t).Type != server.ProblemTypeBase+"unavailable" {
		t.Fatalf("healthz after close: %d %s", r.status, r.body)
	}
	h.validate("GET", "/healthz", r)
}

// TestAppendOverQuota: an append that Lifecycle.Quota.Refuse refuses
// (engine.ErrQuotaExceeded, nothing stored) is answered 429 with the
// problem type quota-exceeded, naming only the caller's resource, as the
// MCP tools describe it too. Before, it was a 500 "internal error".
func TestAppendOverQuota(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{Lifecycle: engine.Lifecycle{Quota: engine.Quota{ResourceMessages: 1, Refuse: true}}})
	srv, err := server.New(server.Config{Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	post := func(id string) (*http.Response, []byte) {
		body := `{"resourceId":"r","messages":[{"id":"` + id + `","role":"user","content":"hello"}]}`
		resp, err := http.Post(ts.URL+"/v1/threads/t/messages", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	if resp, b := post("m1"); resp.StatusCode != http.StatusOK {
		t.Fatalf("first append: %d %s", resp.StatusCode, b)
	}
	resp, b := post("m2")
	var p server.Problem
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	if resp.StatusCode != http.StatusTooManyRequests || p.Type != server.ProblemTypeBase+"quota-exceeded" || p.Field != "messages" || !strings.Contains(p.Detail, `resource "r"`) {
		t.Fatalf("append over quota: %d %+v", resp.StatusCode, p)
	}
	if d := server.Describe(&engine.QuotaError{Scope: "store", Field: "bytes", Limit: 10}); d.Status != http.StatusTooManyRequests || strings.Contains(d.Detail, "resource \"") {
		t.Fatalf("Describe(store quota) = %+v", d)
	}
}

// TestStoreQuotaNoFigures: the 429 of an append the store's shared bound
// refuses gives no figure, neither usage nor the bound (it said "the
// store's messages bound (3) is reached"): the bound is every tenant's,
// and with it and its own usage a tenant learns how much the others hold.
// The engine's error, the operator's, still names the bound.
func TestStoreQuotaNoFigures(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{Lifecycle: engine.Lifecycle{Quota: engine.Quota{StoreMessages: 3, Refuse: true}}})
	ctx := context.Background()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "bob-t", ResourceID: "res-bob", Messages: []engine.Message{{Role: "user", Content: "one"}, {Role: "user", Content: "two"}}}); err != nil {
		t.Fatal(err)
	}
	_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "alice-t", ResourceID: "res-alice", Messages: []engine.Message{{Role: "user", Content: "a"}, {Role: "user", Content: "b"}}})
	if !errors.Is(err, engine.ErrQuotaExceeded) || !strings.Contains(err.Error(), "(3)") {
		t.Fatalf("engine: %v, want ErrQuotaExceeded naming the bound 3", err)
	}
	h := newHarnessOn(t, true, server.Config{}, engine.Config{Lifecycle: engine.Lifecycle{Quota: engine.Quota{StoreMessages: 3, Refuse: true}}})
	h.seed("bob-t", "res-bob", bobToken, "one", "two")
	r := h.do("POST", "/v1/threads/alice-t/messages", aliceToken, `{"resourceId":"res-alice","messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}`)
	p := r.problem(t)
	if r.status != http.StatusTooManyRequests || p.Type != server.ProblemTypeBase+"quota-exceeded" || strings.ContainsAny(p.Detail, "0123456789") || !strings.Contains(p.Detail, "store's messages bound") {
		t.Fatalf("alice over the store's bound: %d %+v, want 429 quota-exceeded naming the store's messages bound and no figure", r.status, p)
	}
}
