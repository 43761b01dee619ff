package engine_test

import (
	"encoding/json"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestRedactCredentialKeyContainer: a value a key names as a credential is
// redacted when it is a list or an object, as when it is a string: each
// string and number inside is tried after the key. The value-by-value walk
// (dc2069e) tried a key only with a string or number right after it, so
// {"password": ["hunter2hunter2"]} and an http.Header's
// {"X-Api-Key": ["…"]} were stored in clear, where the text pass before it
// had removed them.
func TestRedactCredentialKeyContainer(t *testing.T) {
	m := `"` + engine.RedactionMark + `"`
	cases := []struct{ name, in, want string }{
		{"list", `{"password": ["hunter2hunter2"]}`, `{"password": [` + m + `]}`},
		{"header", `{"headers":{"X-Api-Key":["abcd1234efgh5678"],"Accept":["text/plain"]}}`,
			`{"headers":{"X-Api-Key":[` + m + `],"Accept":["text/plain"]}}`},
		{"object", `{"secret": {"value": "hunter2hunter2", "version": 3}, "user": "bob"}`,
			`{"secret": {"value": ` + m + `, "version": 3}, "user": "bob"}`},
		{"nested-list", `[{"api_key": [["abcd1234efgh5678"], 12345678]}, "abcd1234efgh5678"]`,
			`[{"api_key": [[` + m + `], ` + m + `]}, "abcd1234efgh5678"]`},
		{"after-the-list", `{"token": ["abcd1234efgh5678"], "next": ["plain value here"]}`,
			`{"token": [` + m + `], "next": ["plain value here"]}`},
		{"brackets-in-strings", `{"password": ["a]}b{[", "hunter2hunter2"], "x": ["kept value"]}`,
			`{"password": [` + m + `, ` + m + `], "x": ["kept value"]}`},
		{"plain-key", `{"tags": ["hunter2hunter2"], "n": [12345678]}`, `{"tags": ["hunter2hunter2"], "n": [12345678]}`},
		{"embedded", "log: {\"password\": [\"hunter2hunter2\"]}\nexit 0", "log: {\"password\": [" + m + "]}\nexit 0"},
		// Pretty-printed (Python's json.dumps(indent=2)): no rule matches the
		// text, no escape, no digit run; only the key before the list shows
		// the secret (rev43 F2).
		{"indented", "{\n  \"password\": [\n    \"hunter2hunter2\"\n  ]\n}", "{\n  \"password\": [\n    " + m + "\n  ]\n}"},
		{"spaced", `{"password": [ "hunter2hunter2" ]}`, `{"password": [ ` + m + ` ]}`},
		{"indented-object", "{\n  \"secret\": {\n    \"value\": \"hunter2hunter2\"\n  }\n}", "{\n  \"secret\": {\n    \"value\": " + m + "\n  }\n}"},
		{"indented-embedded", "result:\n{\n  \"token\": [\n    \"abcd1234efgh5678\"\n  ]\n}\nexit 0", "result:\n{\n  \"token\": [\n    " + m + "\n  ]\n}\nexit 0"},
		// A credential named by a sibling member (walk44 F1): a Kubernetes
		// env entry, an HAR header, a form field.
		{"env-entry", `{"env":[{"name":"DB_PASSWORD","value":"hunter2hunter2"},{"name":"HOME","value":"/root"}]}`,
			`{"env":[{"name":"DB_PASSWORD","value":` + m + `},{"name":"HOME","value":"/root"}]}`},
		{"har-header", `{"headers":[{"name":"X-Api-Key","value":"abcd1234efgh5678"},{"name":"Accept","value":"text/plain"}]}`,
			`{"headers":[{"name":"X-Api-Key","value":` + m + `},{"name":"Accept","value":"text/plain"}]}`},
		{"key-value", `[{"Key": "password", "Value": "hunter2hunter2"}]`, `[{"Key": "password", "Value": ` + m + `}]`},
		{"name-other-object", `[{"name":"DB_PASSWORD"},{"value":"kept plain text"}]`, `[{"name":"DB_PASSWORD"},{"value":"kept plain text"}]`},
		// Plural secrets (GitHub Actions, Kubernetes, docker-compose) and
		// "api key" with a space (walk44 F2).
		{"secrets-list", `{"secrets":{"list":["hunter2hunter2"]}}`, `{"secrets":{"list":[` + m + `]}}`},
		{"secrets-text", "secrets: hunter2hunter2", "secrets: [REDACTED]"},
		{"api-key-spaced", `{"api key": "abcd1234efgh5678"}`, `{"api key": ` + m + `}`},
		{"api-key-text", "api key: abcd1234efgh5678", "api key: [REDACTED]"},
		// red62: a key holding a trigger inside (keys, tokens_issued) no
		// longer hides the credential key outside it; the walk tries each
		// (FuzzRedactPrefilter's 8ac0bcc88a0fa742: "Auth" under "").
		{"inner-trigger-key", `{"password": {"keys": ["hunter2hunter2"], "tokens_issued": {"n": "abcd1234efgh5678"}}}`,
			`{"password": {"keys": [` + m + `], "tokens_issued": {"n": ` + m + `}}}`},
		{"inner-trigger-key-number", `{"secret": {"keys": [12345678]}}`, `{"secret": {"keys": [` + m + `]}}`},
		{"inner-empty-keys", `{"Auth":{"":{"":"X000Ol00"}}}`, `{"Auth":{"":{"":` + m + `}}}`},
		{"indented-plain", "{\n  \"tags\": [\n    \"hunter2hunter2\"\n  ]\n}", "{\n  \"tags\": [\n    \"hunter2hunter2\"\n  ]\n}"},
	}
	r := engine.DefaultRedactor()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := r.Redact(c.in)
			if got != c.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
			if json.Valid([]byte(c.in)) && !json.Valid([]byte(got)) {
				t.Errorf("no longer JSON: %q", got)
			}
			if again := r.Redact(got); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}
