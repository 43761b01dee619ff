package engine_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestRedactAssignedValueWhole: a value assigned to a credential name is
// replaced whole. Before, a bare value stopped at '&', ';', ',', a quote or
// '<' and kept the rest ("password: [REDACTED]&4dorXQ"), a value shorter
// than 4 characters before the first such stop was not found at all
// ("pwd: 7&7&7&7secretZ"), a passphrase lost only its first word, and
// "pass" and "passcode" were no credential names, and a Markdown label
// ("**Password**: hunter2") was not read as one. A URL query still ends a
// value at '&' (a literal '&' there is %26).
func TestRedactAssignedValueWhole(t *testing.T) {
	m := engine.RedactionMark
	cases := []struct{ name, in, want string }{
		{"ampersand", "password: Tr0ub&4dorXQ", "password: " + m},
		{"semicolon", "password=Tr0ub;4dorXQ", "password=" + m},
		{"comma", "password: Tr0ub,4dorXQ", "password: " + m},
		{"double-quote-inside", `password: Tr0ub"4dorXQ`, "password: " + m},
		{"angle-inside", "password=Tr0ub<4dorXQ", "password=" + m},
		{"single-quote-inside", "password: Tr0ub'4dorXQ", "password: " + m},
		{"ampersand-prose", "password=Xy9&secretTail", "password=" + m},
		{"ampersand-prose-sentence", "use password=Xy9&secretTail for it", "use password=" + m + " for it"},
		{"pwd-short-head", "pwd: 7&7&7&7secretZ", "pwd: " + m},
		{"passphrase-line", "my password: correct horse battery staple", "my password: " + m},
		{"passphrase-upper", "PASSWORD: p@ss w0rd!", "PASSWORD: " + m},
		{"passphrase-next-line-kept", "password: p@ss w0rd!\nuser: bob", "password: " + m + "\nuser: bob"},
		{"observation", "The user said: password: Tr0ub&tail99", "The user said: password: " + m},
		{"pass-key", `{"pass": "hunter2", "user": "bob"}`, `{"pass": "` + m + `", "user": "bob"}`},
		{"pass-key-escaped", `{\"pass\":\"hunter2\"}`, `{\"pass\":\"` + m + `\"}`},
		{"pass-prefixed", "DB_PASS=hunter22 ./run.sh", "DB_PASS=" + m + " ./run.sh"},
		{"pass-flag", "mysql --pass=hunter22 -h db", "mysql --pass=" + m + " -h db"},
		{"passcode", "passcode=918273", "passcode=" + m},
		{"creds", "creds: 9f8e7d6c5b4a", "creds: " + m},
		{"app-key", "APP_KEY=base64:Zm9vYmFyYmF6", "APP_KEY=" + m},
		{"contrasena", "contraseña: Tr0ub&4dor", "contraseña: " + m},
		{"connection-string-tail", "Server=db;User Id=sa;Password=Tr0ub4dor&3;Database=x", "Server=db;User Id=sa;Password=" + m},
		{"url-query-keeps-next", "https://x.io/login?user=bob&password=Xy9&secretTail", "https://x.io/login?user=bob&password=" + m + "&secretTail"},
		{"url-query-prefixed-name", "https://x.io/login?db_password=Xy9&next=1", "https://x.io/login?db_password=" + m + "&next=1"},
		{"url-query-pass", "https://x.io/login?user=bob&pass=Xy9&next=1", "https://x.io/login?user=bob&pass=" + m + "&next=1"},
		{"url-query-value-assignment", "GET /search?q=password=hunter2x&page=2", "GET /search?q=password=" + m + "&page=2"},
		{"url-query-value-colon", "GET /x?q=password:hunter2x", "GET /x?q=password:" + m},
		{"url-query-value-filter", "https://x.io/logs?filter=api_key:sk9f8e7d6c5b&from=1", "https://x.io/logs?filter=api_key:" + m + "&from=1"},
		// red56: the assignment percent-encoded in the query value.
		{"url-query-value-escaped-equals", "GET /search?q=password%3Dhunter2x&page=2", "GET /search?q=password%3D" + m + "&page=2"},
		{"url-query-value-escaped-colon", "GET /x?q=password%3Ahunter2x", "GET /x?q=password%3A" + m},
		{"url-query-value-escaped-blank", "GET /x?q=password%3A+hunter2x+y&page=2", "GET /x?q=password%3A+" + m + "&page=2"},
		// red58 #7: a decoded value ends at a blank, and the query value's
		// rest goes with it.
		{"url-query-value-escaped-equals-blank", "GET /x?q=password%3Dhunter%202&page=2", "GET /x?q=password%3D" + m + "&page=2"},
		{"url-query-value-escaped-equals-plus", "GET /x?q=password%3Dcorrect+horse+staple", "GET /x?q=password%3D" + m},
		{"url-query-value-escaped-quotes", "GET /x?q=password%3D%22hunter2x%22&page=2", "GET /x?q=password%3D%22" + m + "%22&page=2"},
		{"url-query-value-escaped-filter", "https://x.io/logs?filter=api_key%3Ask9f8e7d6c5b&from=1", "https://x.io/logs?filter=api_key%3A" + m + "&from=1"},
		{"url-query-value-escaped-second", "GET /x?q=user%3Dbob%26token%3Dabcd1234", "GET /x?q=user%3Dbob%26token%3D" + m},
		{"json-number", `{"password": 12345678, "city": "Paris"}`, `{"password": "` + m + `", "city": "Paris"}`},
		{"quoted-keeps-rest", `password: "hunter 2" is the old one`, `password: "` + m + `" is the old one`},
		{"yaml-nested-name", "credentials:\n  user: bob", "credentials:\n  user: bob"},
		{"markdown-bold-label", "**Password**: hunter2 x", "**Password**: " + m},
		{"markdown-bold-colon", "**Password:** hunter2 x", "**Password:** " + m},
		{"markdown-underscore", "__password__: hunter2", "__password__: " + m},
	}
	r := engine.DefaultRedactor()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := r.Redact(c.in); got != c.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
			if got := r.Redact(c.want); got != c.want {
				t.Errorf("not idempotent: %q -> %q", c.want, got)
			}
		})
	}
}

// TestRedactJSONLineValue: a string field holding "password: …" on one of
// its lines (a file an agent writes through a tool) keeps its other lines.
// The text redaction of the document takes the rest of the JSON line,
// closing quote included, so the document is walked; the walk took that
// for a field naming a secret and replaced the whole file by [REDACTED].
func TestRedactJSONLineValue(t *testing.T) {
	ctx := t.Context()
	e := enginetest.MustOpen(t, engine.Config{})
	args, _ := json.Marshal(map[string]string{"path": "config.yaml", "content": "db:\n  password: hunter2 and more\n  host: db.internal\n"})
	msg := engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: "write_file", Arguments: args}}}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{msg}}); err != nil {
		t.Fatal(err)
	}
	ms, err := e.Messages(ctx, "t", 1, 0)
	if err != nil || len(ms) != 1 {
		t.Fatalf("messages: %v %d", err, len(ms))
	}
	var got map[string]string
	if err := json.Unmarshal(ms[0].ToolCalls[0].Arguments, &got); err != nil {
		t.Fatal(err)
	}
	if want := "db:\n  password: " + engine.RedactionMark + "\n  host: db.internal\n"; got["content"] != want {
		t.Errorf("content %q, want %q", got["content"], want)
	}
	if got["path"] != "config.yaml" {
		t.Errorf("path %q", got["path"])
	}
}

// TestRedactStopsAtEscapedLineBreak: in text that is no JSON document but
// holds a JSON-escaped string (a log line quoting one), a value after
// curl -u, Authorization:, NAME= or a URL parameter ends at an escaped
// line break (\n written as two characters), as the name: value rule's
// does since dc2069e (sec42). Before, it ran to the next blank or quote
// and the start of the next line went with the secret.
func TestRedactStopsAtEscapedLineBreak(t *testing.T) {
	m := engine.RedactionMark
	cases := []struct{ name, in, want string }{
		{"curl-user", `log: "curl -u bob:S3cret\nnext line here"`, `log: "curl -u ` + m + `\nnext line here"`},
		{"authorization", `log: "Authorization: tok3nvalue\nnext line here"`, `log: "Authorization: ` + m + `\nnext line here"`},
		{"authorization-scheme", `log: "Authorization: token 7a1f0c2e9b8d\r\nHost: x"`, `log: "Authorization: token ` + m + `\r\nHost: x"`},
		{"name-equals", `log: "DB_PASSWORD=S3cretV\nnext line here"`, `log: "DB_PASSWORD=` + m + `\nnext line here"`},
		{"url-param", `log: "GET https://x.io/?token=S3cretV\nnext line here"`, `log: "GET https://x.io/?token=` + m + `\nnext line here"`},
		{"url-query-credential", `log: "GET /login?db_password=S3cretV\nnext"`, `log: "GET /login?db_password=` + m + `\nnext"`},
		{"curl-domain-user", `curl -u CORP\bob:S3cret https://x.io`, `curl -u ` + m + ` https://x.io`},
		{"escaped-backslash-kept-in-value", `log: "password=ab\\cdXY next"`, `log: "password=` + m + ` next"`},
		// A value too short to tell from a word before the break runs on
		// to the next blank (walk47 F8: kept whole since the break ended
		// values).
		{"short-before-break", `log: "DB_PASSWORD=Xy9\nabcdEFGH1234 next"`, `log: "DB_PASSWORD=` + m + ` next"`},
		{"one-before-break", `log: "password=a\nhunter2secret next"`, `log: "password=` + m + ` next"`},
		{"empty-before-break", `log: "DB_PASSWORD=\nabcdEFGH1234 next"`, `log: "DB_PASSWORD=` + m + ` next"`},
		// An escaped CRLF is one break: the value's run to the next blank
		// starts after its \n, not at it (the \n was taken as a word, the
		// break lost, and a second pass changed the text again).
		{"short-before-crlf", `log: "DB_PASSWORD=Xy9\r\nabcdEFGH1234 next"`, `log: "DB_PASSWORD=` + m + ` next"`},
		{"short-before-crlf-indented-kept", `note: password: ab\r\n  next line`, `note: password: ab\r\n  next line`},
		// red56: one word on the indented line continues the value
		// (YAML folds a plain scalar's lines), escaped or not; words
		// (above) are prose.
		{"short-before-crlf-continued", `note: password: ab\r\n  hunter2secret`, `note: password: ` + m},
		{"short-before-crlf-continued-raw", "note: password: ab\r\n  hunter2secret\r\nuser: bob", "note: password: " + m + "\r\nuser: bob"},
		{"short-before-break-continued-raw", "note: password: ab\n  hunter2secret", "note: password: " + m},
		{"long-before-break-continued-raw", "db:\n  password: abcdefgh\n    hunter2secret\n  user: bob", "db:\n  password: " + m + "\n  user: bob"},
		{"continued-in-string", `log: "password: ab\n  hunter2secret\nuser: bob" x=1`, `log: "password: ` + m + `\nuser: bob" x=1`},
		{"continued-not-indented-more-kept", "  password: ab\n  hunter2secret", "  password: ab\n  hunter2secret"},
		{"continued-key-kept", "note: password: ab\n  user: bob", "note: password: ab\n  user: bob"},
		// red60: a value right after the colon holding '&' is a query's
		// parameters (api_key:sk…&from=1), and a line calling a function
		// is code: neither goes on on the next line (red58's leftover 4).
		{"continued-query-parameters-kept", "?filter=api_key:sk9abcdef&from=1\n  continued", "?filter=api_key:" + m + "&from=1\n  continued"},
		{"continued-code-call-kept", "if token: pass\n    foo()", "if token: " + m + "\n    foo()"},
		{"continued-code-call-semicolon-kept", "password: abcdefgh\n    self.check(x);", "password: " + m + "\n    self.check(x);"},
		// red62: a secret shaped like a call (a digit in its name or
		// arguments) is no code, and goes with the value (red60 kept it).
		{"continued-call-shaped-secret", "password: ab\n  Xy7(q)", "password: " + m},
		{"continued-call-shaped-secret-semicolon", "token: a\n    P4ss(w0rd);\nuser: bob", "token: " + m + "\nuser: bob"},
		{"continued-call-shaped-secret-escaped", `log: "password: ab\n  hunter2(x)\nuser: bob"`, `log: "password: ` + m + `\nuser: bob"`},
		{"short-before-crlf-end-kept", `{"v":"DB_PASSWORD=Xy\r\n"}`, `{"v":"DB_PASSWORD=Xy\r\n"}`},
		// rev53: the run after the break started at its first escaped
		// break only, and a blank line before the value kept it.
		{"empty-before-blank-line", `log: "password=\n\nhunter2secret"`, `log: "password=` + m + `"`},
		{"empty-before-crlf-blank-line", `log: "DB_PASSWORD=\n\r\nabcdEFGH1234 next"`, `log: "DB_PASSWORD=` + m + ` next"`},
		{"short-colon-before-blank-line", `token: ab\n\ncdefghijklmnop`, `token: ` + m},
		// sec48: the name: value form takes the same path (assignOp's
		// ':'); 5c94e7e's note that it kept the value was wrong.
		{"colon-short-before-break", `token: ab\ncdefghijklmnop`, `token: ` + m},
		{"colon-short-before-break-line", `log: "token: ab\ncdefghijklmnop next\nkept"`, `log: "token: ` + m + `\nkept"`},
		{"colon-empty-before-break", `log: "password:\nhunter2secret and more\nkept"`, `log: "password:` + m + `\nkept"`},
		{"colon-nested-key-kept", `log: "credentials:\n  user: bob\n"`, `log: "credentials:\n  user: bob\n"`},
		// walk48 F14 and its neighbours: a bare value ends before the
		// quote that closes its string; \r\n is one escaped break; an
		// unindented key after an empty value is the next key, not the
		// value.
		{"closing-quote-kept", `log: "DB_PASSWORD=S3cretV"`, `log: "DB_PASSWORD=` + m + `"`},
		{"colon-closing-quote-kept", `log: "token: abcdefgh"`, `log: "token: ` + m + `"`},
		{"short-before-break-quote-kept", `DB_PASSWORD=ab\ncdefgh" x`, `DB_PASSWORD=` + m + `" x`},
		{"colon-crlf-break", `log: "token: ab\r\ncdefghijklmnop next"`, `log: "token: ` + m + `"`},
		{"colon-escaped-tab-line", `log: "token: ab\n\tcdefghijklmnop"`, `log: "token: ` + m + `"`},
		{"colon-escaped-quote-line", `log: "token: ab\n\"next stuff\""`, `log: "token: ` + m + `\""`},
		{"colon-unindented-key-kept", `log: "credentials:\nuser: bob"`, `log: "credentials:\nuser: bob"`},
		{"colon-escaped-tab-key-kept", `log: "credentials:\n\tuser: bob"`, `log: "credentials:\n\tuser: bob"`},
		// rev51: the last bytes before a string's closing quote. A JSON
		// document's string is decoded first: S3cretV\ (S3cretV and a
		// backslash) loses S3cretV, and the backslash stays, as no bare
		// value ends in a lone backslash; the secret is gone and the
		// JSON stays valid. In raw text \\ is one escaped backslash and
		// goes with the value; the quote stays. A value of 3 bytes
		// before a break is kept when only the quote follows, as
		// DB_PASSWORD=abc is (a bare value has at least 4); before
		// b89cd14d the quote went with it.
		{"json-backslash-last", `{"msg":"password=S3cretV\\"}`, `{"msg":"password=` + m + `\\"}`},
		{"raw-escaped-backslash-last", `log: "password=S3cretV\\" next`, `log: "password=` + m + `" next`},
		{"json-short-before-break-kept", `{"msg":"DB_PASSWORD=abc\n"}`, `{"msg":"DB_PASSWORD=abc\n"}`},
		{"raw-short-before-break-quote-kept", `log: "DB_PASSWORD=abc\n" x`, `log: "DB_PASSWORD=abc\n" x`},
		{"raw-four-before-break-quote", `log: "DB_PASSWORD=abcd\n" x`, `log: "DB_PASSWORD=` + m + `\n" x`},
		// red57: a name: value in a quoted string ends at the string's
		// closing quote, and the words after it stay (and are searched);
		// a quote in the value, or with no string open before the name,
		// is the value's.
		{"colon-closing-quote-rest-kept", `log: "password: abcdefgh" level=info`, `log: "password: ` + m + `" level=info`},
		{"colon-escaped-closing-quote-rest-kept", `log: \"password: abcdefgh\" level=info`, `log: \"password: ` + m + `\" level=info`},
		{"colon-passphrase-in-string", `The user said "my password: correct horse" and left`, `The user said "my password: ` + m + `" and left`},
		{"colon-in-string-after-break", `log: "token: ab\ncdefghij" level=info`, `log: "token: ` + m + `" level=info`},
		{"colon-in-string-then-secret", `log: "password: abcdefgh" token=abcd1234`, `log: "password: ` + m + `" token=` + m},
		{"colon-in-string-short-then-secret", `log: "password: ab" token=abcd1234`, `log: "password: ab" token=` + m},
		{"colon-in-string-reference-kept", `log: "password: ${DB_PASSWORD}" level=info`, `log: "password: ${DB_PASSWORD}" level=info`},
		{"colon-in-string-quote-in-value", `log: "password: hu"nter2 x" level=info`, `log: "password: ` + m + `" level=info`},
		{"colon-quote-no-string-open", `password: Tr0ub"4dor XQ" x`, `password: ` + m},
		// red58 #5, #6: an inch mark or an apostrophe opens no string (a
		// lone " earlier on the line cut the value at its own quote and
		// kept the words after it), and a single-quoted string ends a
		// value as a double-quoted one does (its words after the string
		// were taken); a single-quoted value is replaced to its quote.
		{"colon-inch-mark-no-string", `He is 6'2" tall. password: correct horse "battery" staple`, `He is 6'2" tall. password: ` + m},
		{"colon-inch-mark-no-string-spaced", `it's 5" wide, password: abcd "efgh" ijkl`, `it's 5" wide, password: ` + m},
		{"colon-single-quoted-string", `log: 'password: abcd efgh' level=info`, `log: 'password: ` + m + `' level=info`},
		{"colon-single-quoted-apostrophe-in-value", `log: 'password: it's abcd' level=info`, `log: 'password: ` + m + `' level=info`},
		{"colon-single-quote-in-double-string", `log: "it 'password: abcd efgh' x" level=info`, `log: "it 'password: ` + m + `" level=info`},
		{"colon-double-quote-in-single-string", `log: 'say "password: abcd efgh" x' level=info`, `log: 'say "password: ` + m + `' level=info`},
		{"colon-single-quoted-odd-quotes-whole", `log: 'password: it' s abcd' lev`, `log: 'password: ` + m},
		{"colon-single-quoted-pairs-after", `ENCODING 'password: SQL_ASCII' LC_COLLATE 'C' x`, `ENCODING 'password: ` + m + `' LC_COLLATE 'C' x`},
		{"single-quoted-value-kept-quotes", `password: 'abcd efgh' level=info`, `password: '` + m + `' level=info`},
		// red57: an empty value before an unindented key is kept, and the
		// key's own value is found (the kept match took its line).
		{"colon-unindented-key-value", `credentials:\ntoken: abcd1234`, `credentials:\ntoken: ` + m},
		{"colon-unindented-key-value-crlf", `credentials:\r\ntoken: abcd1234\nuser: bob`, `credentials:\r\ntoken: ` + m + `\nuser: bob`},
		{"colon-unindented-key-value-in-string", `log: "credentials:\ntoken: abcd1234" level=info`, `log: "credentials:\ntoken: ` + m + `" level=info`},
		{"colon-unindented-key-reference-kept", `credentials:\npassword: ${X}`, `credentials:\npassword: ${X}`},
	}
	r := engine.DefaultRedactor()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := r.Redact(c.in); got != c.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
			if got := r.Redact(c.want); got != c.want {
				t.Errorf("not idempotent: %q -> %q", c.want, got)
			}
		})
	}
}

// TestRedactQuotedValuesLine: on a line of many quoted strings each
// assigning a credential (log: "password: …" level=info …), the values of
// the first maxCuts (8) strings end at their closing quotes, and the one
// after them takes the rest of the line but its last blank: no secret
// stays. The bound keeps
// the search linear (BenchmarkRedactorMB/quoted-values-line); without
// it, each string searched the rest of the line again.
func TestRedactQuotedValuesLine(t *testing.T) {
	m := engine.RedactionMark
	unit := `log: "password: abcdefgh" level=info `
	in := strings.Repeat(unit, 20)
	got := engine.DefaultRedactor().Redact(in)
	want := strings.Repeat(`log: "password: `+m+`" level=info `, 8) + `log: "password: ` + m + ` `
	if got != want {
		t.Errorf("Redact(%d strings)\n got %q\nwant %q", 20, got, want)
	}
}

// TestRedactReferencesKept: a value that names a secret kept elsewhere or
// stands for one already hidden is no secret and stays (walk44 F6; the
// values gitleaks' global allowlist and detect-secrets'
// is_templated_secret skip). Before, password: ${DB_PASSWORD},
// password=$DB_PASSWORD, ${{ secrets.GITHUB_TOKEN }}, {{ .Values.password
// }} and %(password)s were replaced, and the text lost where the secret
// comes from. A default after a variable may be the secret and goes.
func TestRedactReferencesKept(t *testing.T) {
	m := engine.RedactionMark
	kept := []string{
		"password: ${DB_PASSWORD}", "password=$DB_PASSWORD ./run.sh", "export PGPASSWORD=$db_password",
		"token: ${{ secrets.GITHUB_TOKEN }}", "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
		"password: {{ .Values.password }}", "password: {{ vault_db_password | default('x') }}",
		"password: %(password)s", "password=%DB_PASSWORD%", "password: @DB_PASSWORD@",
		`{"password": "${DB_PASSWORD}", "user": "bob"}`, `{"password": "<password>"}`, `{"password": "***"}`,
		`{"api_key": "********"}`, "password: [REDACTED]", "password: [hidden]", "password: xxxxxxxx",
		`curl -H "Authorization: Bearer $TOKEN" https://x.io`, `Authorization: token ${GITHUB_TOKEN}`,
		"secrets:\n  - ${API_SECRET}\n",
		// sec48: the template's blanks cut it, and "Bearer" was taken
		// for the secret.
		"Authorization: Bearer ${{ secrets.X }}", `curl -H "Authorization: Bearer ${{ secrets.GITHUB_TOKEN }}" https://x.io`,
		"Authorization: {{ .Values.token }}",
	}
	secret := []redactCase{
		{"default-value", "password: ${DB_PASSWORD:-hunter2}", "password: " + m},
		{"dollar-inside", "password=ab$Cdef9", "password=" + m},
		{"mixed-case-var", "password=$Hunter2x", "password=" + m},
		{"bearer-token", `Authorization: Bearer abcdefgh12345678`, `Authorization: Bearer ` + m},
		{"template-glued", "Authorization: Bearer ${{ secrets.X }}abc123", "Authorization: Bearer " + m},
		{"bearer-before-fields", "Bearer abcdefgh12345678 expires_in=3600", "Bearer " + m + " expires_in=3600"},
	}
	for _, k := range kept {
		secret = append(secret, redactCase{"kept " + k, k, k})
	}
	checkRedact(t, secret)
}

// TestRedactWorkingDirectoryKept: the shell's working directory, PWD or
// OLDPWD set to an absolute path, is no password (walk44 F8). Before,
// PWD=/home/bob/project and {"pwd": "/home/…"} were replaced: pwd is a
// credential name (ADO.NET's Pwd=…), and an environment dump holds PWD.
// Another name ending in pwd, or a value that is no path, still goes.
func TestRedactWorkingDirectoryKept(t *testing.T) {
	m := engine.RedactionMark
	cases := []redactCase{
		{"db-pwd", "DB_PWD=/secret9x", "DB_PWD=" + m},
		{"pwd-not-path", "PWD=hunter22", "PWD=" + m},
		{"ado-net", "Server=db;Uid=sa;Pwd=Tr0ub4dor;", "Server=db;Uid=sa;Pwd=" + m},
		{"dotted", "smtp.pwd: /x9secret", "smtp.pwd: " + m},
		// A PWD match that runs past its path into a secret is redacted
		// whole (walk47 F2: each of these was stored in clear after
		// 9f6a4ff).
		{"pwd-then-comma", "PWD=/home/bob,DB_PASSWORD=hunter2x", "PWD=" + m},
		{"pwd-then-semicolon", "PWD=/home/bob;DB_PASSWORD=hunter2x", "PWD=" + m},
		{"pwd-in-json-string", `{"cwd":"PWD=/srv/app","secret":"hunter2x"}`, `{"cwd":"PWD=/srv/app","secret":"` + m + `"}`},
		{"pwd-in-env-list", `{"env":["PWD=/home/bob","DB_PASSWORD=hunter2x"]}`, `{"env":["PWD=/home/bob","DB_PASSWORD=` + m + `"]}`},
	}
	for _, k := range []string{
		"PWD=/home/bob/project", "OLDPWD=/home/bob", "export PWD=/srv/app && make", `{"pwd": "/home/bob/project"}`,
		`{"env": {"PWD": "/workspace", "OLDPWD": "/root", "HOME": "/root"}}`, "pwd: /home/bob/My Project",
		"PWD=~/src", `{"PWD": "C:\\Users\\bob"}`, `[{"name": "PWD", "value": "/app"}]`,
	} {
		cases = append(cases, redactCase{"kept " + k, k, k})
	}
	checkRedact(t, cases)
}

// TestRedactProseKeepsWords: a sentence after a credential name and a
// colon keeps its words up to its first linking verb (sec48, lead). Before
// sec48, "A secret: my PIN is 4821" was stored "A secret: [REDACTED]": the
// value ran to the end of the line; with sec48's first rule, which kept
// the words before the first one holding a digit or a symbol, a password
// of letters stayed (walk48 F1: the swordfish rows). A value that opens
// no sentence (a passphrase) or has no linking verb is replaced whole.
func TestRedactProseKeepsWords(t *testing.T) {
	m := engine.RedactionMark
	checkRedact(t, []redactCase{
		{"pin", "A secret: my PIN is 4821", "A secret: my PIN is " + m},
		{"rest-of-line", "The token: it is abc123def, keep it safe\nnext", "The token: it is " + m + "\nnext"},
		{"symbol", "my password: the new one is p@ss!word", "my password: the new one is " + m},
		{"letters-then-date", "password: my password is swordfish, set on 3 May", "password: my password is " + m},
		{"letters-then-symbol", "secret: the code is tangerine then press #", "secret: the code is " + m},
		{"letters-then-emoji", "password: it is swordfish 🙂", "password: it is " + m},
		{"letters-then-year", "The token: it is opensesame (since 2019)", "The token: it is " + m},
		{"key-letters", "API key: my key is bluefalcon and expires 2027", "API key: my key is " + m},
		{"capitals", "PASSWORD: MY PASSWORD IS SWORDFISH SINCE 2019", "PASSWORD: MY PASSWORD IS " + m},
		{"was", "secret: the old one was hunter2", "secret: the old one was " + m},
		{"no-verb-whole", "password: my hunter2 and more", "password: " + m},
		{"no-verb-letters-whole", "password: my dog rex 2019", "password: " + m},
		{"in-json", `{"note":"A secret: my PIN is 4821"}`, `{"note":"A secret: my PIN is ` + m + `"}`},
		// red57: in a quoted string of other text, the sentence ends at
		// the string's closing quote.
		{"in-string", `log: "secret: my PIN is 4821" level=info`, `log: "secret: my PIN is ` + m + `" level=info`},
		{"passphrase-whole", "my password: correct horse battery staple", "my password: " + m},
		{"passphrase-digits-whole", "password: correct horse 42 staple", "password: " + m},
		{"no-digit-after-verb", "secret: the party is on Friday", "secret: the party is " + m},
		{"non-ascii-word-whole", "secret: my clé is 4821", "secret: " + m},
		{"letters-whole", "secret: a b c d4", "secret: " + m},
		{"equals-unchanged", "password=my 4821", "password=my 4821"},
	})
}

// TestRedactKeyNames: the keys an application signs, encrypts or derives
// its secrets with (Rails' SECRET_KEY_BASE and MASTER_KEY,
// JWT_SIGNING_KEY, ENCRYPTION_KEY) are credential names, in every form
// the other names have (red64: stored in clear). A reference, code and
// prose naming the key stay, and a query's later parameters are kept.
func TestRedactKeyNames(t *testing.T) {
	m := engine.RedactionMark
	checkRedact(t, []redactCase{
		{"secret-key-base", "SECRET_KEY_BASE=8f2a9c1d7e6b5a4f3e2d1c0b9a8f7e6d rails s", "SECRET_KEY_BASE=" + m + " rails s"},
		{"jwt-signing-key", "JWT_SIGNING_KEY=abcDEF123ghiJKL456", "JWT_SIGNING_KEY=" + m},
		{"encryption-key-quoted", `export ENCRYPTION_KEY="abcDEF123ghiJKL456"`, `export ENCRYPTION_KEY="` + m + `"`},
		{"rails-master-key", "RAILS_MASTER_KEY=abcDEF123ghiJKL456", "RAILS_MASTER_KEY=" + m},
		{"json", `{"encryption_key": "abcDEF123ghiJKL456", "a": 1}`, `{"encryption_key": "` + m + `", "a": 1}`},
		{"yaml", "master_key: abcdef0123456789\nuser: bob", "master_key: " + m + "\nuser: bob"},
		{"yaml-block", "secret_key_base: |\n  abcdefabcdef0123\nuser: bob", "secret_key_base: |\n  " + m + "\nuser: bob"},
		{"env-entry", "env:\n  - name: MASTER_KEY\n    value: abcDEF123ghi", "env:\n  - name: MASTER_KEY\n    value: " + m},
		{"query", "GET /x?master_key=abcDEF123ghi&page=2", "GET /x?master_key=" + m + "&page=2"},
		{"reference-kept", "MASTER_KEY=$MASTER_KEY signing_key = await getKey()", "MASTER_KEY=$MASTER_KEY signing_key = await getKey()"},
		{"prose-kept", "git checkout master; the master key is on the wiki", "git checkout master; the master key is on the wiki"},
	})
}

// TestRedactPINAndOtherLanguages: a PIN of 4 to 8 digits after PIN and
// a colon or '=', and the word for password in German, French,
// Portuguese and Dutch, in the forms the English names have (red73,
// readme72 F2: PIN: 48214 and Passwort (WLAN): … were stored in clear).
// A version, a date, a time, a GPIO pin, a word holding pin and prose
// stay.
func TestRedactPINAndOtherLanguages(t *testing.T) {
	m := engine.RedactionMark
	checkRedact(t, []redactCase{
		{"pin", "PIN: 48214\nSIM_PIN=12345678 next\npin code: 0000.", "PIN: " + m + "\nSIM_PIN=" + m + " next\npin code: " + m + "."},
		{"pin-json", `{"pin": "4821", "card_pin": 48214, "n": 1}`, `{"pin": "` + m + `", "card_pin": "` + m + `", "n": 1}`},
		{"passwort-note", "Passwort (WLAN): Tr0ubDE1\nWLAN-Passwort: Tr0ubDE3", "Passwort (WLAN): " + m + "\nWLAN-Passwort: " + m},
		{"kennwort-equals", "Kennwort = geheim123", "Kennwort = " + m},
		{"mot-de-passe", "Mot de passe : Tr0ubFR1", "Mot de passe : " + m},
		{"senha-json", `{"senha": "Tr0ubPT1"}`, `{"senha": "` + m + `"}`},
		{"wachtwoord", "wachtwoord: Tr0ubNL1", "wachtwoord: " + m},
		{"pin-kept", "pin: 2024.1; the pin: 2024-01-01; pin = 13; pin: 12:30; spin: 4444; PIN: 123456789", "pin: 2024.1; the pin: 2024-01-01; pin = 13; pin: 12:30; spin: 4444; PIN: 123456789"},
		{"other-language-prose-kept", "Das Passwort ist sicher. Passwörter sind wichtig.", "Das Passwort ist sicher. Passwörter sind wichtig."},
	})
}
