package engine_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// redactCase is a text and what the default redactor stores for it.
type redactCase struct{ name, in, want string }

// checkRedact runs the cases through the default redactor: each gives its
// want, stays JSON when it was JSON, and is redacted again unchanged.
func checkRedact(t *testing.T, cases []redactCase) {
	t.Helper()
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

// TestRedactYAMLCredentialList: a YAML block sequence under a credential
// name loses its scalar items (walk44 F3). Before, only a value on the
// name's own line was found, and password:\n  - hunter2secret was stored
// in clear.
func TestRedactYAMLCredentialList(t *testing.T) {
	m := engine.RedactionMark
	checkRedact(t, []redactCase{
		{"password", "password:\n  - hunter2secret\n  - other\nuser: bob", "password:\n  - " + m + "\n  - " + m + "\nuser: bob"},
		{"secrets", "secrets:\n  - hunter2secret", "secrets:\n  - " + m},
		{"api-key-crlf", "api_key:\r\n- abcd1234efgh\r\n- 'quoted key'\r\n", "api_key:\r\n- " + m + "\r\n- '" + m + "'\r\n"},
		{"nested", "  db_password:\n    - \"hunter2secret\"\n  host: db", "  db_password:\n    - \"" + m + "\"\n  host: db"},
		{"mapping-items-kept", "imagePullSecrets:\n  - name: regcred\n", "imagePullSecrets:\n  - name: regcred\n"},
		{"placeholder-kept", "passwords:\n  - null\n", "passwords:\n  - null\n"},
		{"other-name-kept", "hosts:\n  - db.internal\n  - cache", "hosts:\n  - db.internal\n  - cache"},
		{"in-json-string", `{"content":"token:\n  - abcd1234efgh\n"}`, `{"content":"token:\n  - ` + m + `\n"}`},
		{"item-comment", "tokens:\n  - abcd1234efgh # old\n", "tokens:\n  - " + m + "\n"},
		{"quoted-words", "passphrases:\n  - \"correct horse battery\"\n", "passphrases:\n  - \"" + m + "\"\n"},
		// sec48: a comment or blank line after the key, an anchor or a tag
		// before the item hid the list; an alias and a node with
		// properties only stay.
		{"comment-after-key", "tokens:\n  # c\n  - abcd1234efgh\n", "tokens:\n  # c\n  - " + m + "\n"},
		{"blank-after-key", "tokens:\n\n  - abcd1234efgh\n\n  - zyxw9876\n# end\nnext: 1", "tokens:\n\n  - " + m + "\n\n  - " + m + "\n# end\nnext: 1"},
		{"anchor-tag-alias", "tokens:\n  - &a abcd1234efgh\n  - *a\n  - !!str abcd1234efgh\n  - !secret &b 'zyxw9876'\n  - &c\n  - *c\n",
			"tokens:\n  - &a " + m + "\n  - *a\n  - !!str " + m + "\n  - !secret &b '" + m + "'\n  - &c\n  - *c\n"},
		// walk48: an item that is only an anchor no alias uses is a
		// value starting with '&'; a Markdown bullet ('*', '–') is an
		// item's dash.
		{"bare-anchor", "tokens:\n  - &hunter2secret\n", "tokens:\n  - " + m + "\n"},
		{"star-bullet", "tokens:\n  * hunter2secret\n  * open Settings\n", "tokens:\n  * " + m + "\n  * open Settings\n"},
		{"en-dash-bullet", "tokens:\n  – hunter2secret", "tokens:\n  – " + m},
		{"comment-only-kept", "tokens:\n  # none yet\nuser: bob\n", "tokens:\n  # none yet\nuser: bob\n"},
		{"capitals-key", "PASSWORDS:\n- family\n", "PASSWORDS:\n- " + m + "\n"},
		{"heading-secret-item", "Passwords:\n- family\n- hunter2\n- S3cret!\n", "Passwords:\n- family\n- " + m + "\n- " + m + "\n"},
		{"heading-mixed-case-item", "Tokens:\n- abcDEFghi\n", "Tokens:\n- " + m + "\n"},
		// walk48 F3: a key after a list item's dash was no key.
		{"key-in-list-item", "- passwords:\n    - hunter2secret\n", "- passwords:\n    - " + m + "\n"},
		{"bold-heading-in-list-item", "- **Passwords**:\n  - family\n  - hunter2\n", "- **Passwords**:\n  - family\n  - " + m + "\n"},
		// yaml53: an item that is a block scalar kept its lines (the
		// value is on the lines indented more than the dash).
		{"block-item", "passwords:\n  - |\n    hunter2secret\nuser: bob", "passwords:\n  - |\n    " + m + "\nuser: bob"},
		{"folded-item-then-item", "passwords:\n  - >-\n    hunter2secret\n    more\n\n  - other1234\n", "passwords:\n  - >-\n    " + m + "\n\n  - " + m + "\n"},
		// red60: a quoted item whose string goes on past its line (YAML
		// folds its lines into one value) was kept: the list ended at
		// its first line, whose lone quote is no value.
		{"quoted-item-multiline", "passwords:\n  - \"\n    hunter2secret\"", "passwords:\n  - \"" + m + "\""},
		{"quoted-item-multiline-then-item", "tokens:\n  - 'abc\n\n    hunter2secret' # c\n  - other1234\nuser: bob",
			"tokens:\n  - '" + m + "'\n  - " + m + "\nuser: bob"},
		{"quoted-item-multiline-placeholder-kept", "tokens:\n  - \"\n    ${TOKEN}\"\n", "tokens:\n  - \"\n    ${TOKEN}\"\n"},
		{"quoted-item-not-indented-kept", "tokens:\n  - \"\n  hunter2secret\"\n", "tokens:\n  - \"\n  hunter2secret\"\n"},
		{"block-item-props-crlf", "tokens:\r\n- &a !!binary |\r\n  aHVudGVyMnNlY3JldA==\r\n- *a\r\n", "tokens:\r\n- &a !!binary |\r\n  " + m + "\r\n- *a\r\n"},
		{"block-item-then-lists", "db:\n  passwords:\n  - |\n    hunter2secret\n  hosts:\n  - db1\n  tokens:\n  - abcd1234\n",
			"db:\n  passwords:\n  - |\n    " + m + "\n  hosts:\n  - db1\n  tokens:\n  - " + m + "\n"},
		{"block-item-reference-kept", "passwords:\n- |\n  ${DB_PASSWORD}\n- >\n  {{ .Values.pw }}\n", "passwords:\n- |\n  ${DB_PASSWORD}\n- >\n  {{ .Values.pw }}\n"},
		{"block-item-empty-kept", "tokens:\n  - |\n  next: 1\n", "tokens:\n  - |\n  next: 1\n"},
		{"block-item-other-key-kept", "hosts:\n  - |\n    db.internal\n", "hosts:\n  - |\n    db.internal\n"},
	})
}

// TestRedactYAMLBlockScalar: a literal or folded block scalar under a
// credential name loses its lines (sec48). Before, password: |\n
// hunter2secret and client_secret: >-\n  abcDEF123456 were stored in
// clear: the value is on the lines under the key, where no rule looked.
func TestRedactYAMLBlockScalar(t *testing.T) {
	m := engine.RedactionMark
	checkRedact(t, []redactCase{
		{"literal", "password: |\n  hunter2secret\nuser: bob", "password: |\n  " + m + "\nuser: bob"},
		{"folded-strip", "client_secret: >-\n  abcDEF123456\n  more\nnext: 1", "client_secret: >-\n  " + m + "\nnext: 1"},
		{"nested-blank-line", "db:\n  password: |\n    hunter2secret\n\n    more\n  user: bob\n", "db:\n  password: |\n    " + m + "\n  user: bob\n"},
		{"indicators-comment", "api_key: |+2 # rotated\r\n    abcd1234efgh\r\n", "api_key: |+2 # rotated\r\n    " + m + "\r\n"},
		{"plural-quoted-key", "\"tokens\": >\n  abcd1234efgh\n", "\"tokens\": >\n  " + m + "\n"},
		{"tagged", "password: !!binary |\n  aHVudGVyMnNlY3JldA==\n", "password: !!binary |\n  " + m + "\n"},
		{"in-json-string", `{"content":"password: |\n  hunter2secret\n"}`, `{"content":"password: |\n  ` + m + `\n"}`},
		{"private-key", "private_key: |\n  MIIEvQIBADANBgkq\n  hkiG9w0BAQEFAASC\n", "private_key: |\n  " + m + "\n"},
		{"reference-kept", "password: |\n  ${DB_PASSWORD}\n", "password: |\n  ${DB_PASSWORD}\n"},
		{"other-key-kept", "description: |\n  The token expires after one hour.\n", "description: |\n  The token expires after one hour.\n"},
		{"suffix-kept", "password_hint: |\n  the name of my dog\n", "password_hint: |\n  the name of my dog\n"},
		{"markdown-table-kept", "| token: |\n| --- |\n| abcd |\n", "| token: |\n| --- |\n| abcd |\n"},
		{"not-indented-kept", "password: |\nnext: 1\n", "password: |\nnext: 1\n"},
		// walk48 F3: a key after a list item's dash, a brace or a bold
		// label was no key; the value is indented more than the key,
		// not the dash, and the item's next key stays.
		{"key-in-list-item", "users:\n  - password: |\n      hunter2secret\n    name: bob", "users:\n  - password: |\n      " + m + "\n    name: bob"},
		{"list-item-top", "- password: |\n    hunter2secret", "- password: |\n    " + m},
		{"flow-brace", "{password: |\n  hunter2secret}", "{password: |\n  " + m},
		{"bold-label", "**Password**: |\n  hunter2secret", "**Password**: |\n  " + m},
		{"bold-label-colon-inside", "**Password:** |\n  hunter2secret", "**Password:** |\n  " + m},
	})
}

// TestRedactYAMLPlainScalar: a YAML key ending in a credential name left
// empty on its line, then its value as a plain scalar on the indented line
// under it (YAML 1.2.2 §7.3.3), has the value replaced (rev48, after
// cfca34b5, which did block scalars and lists). Before, password:\n
// s3cretPassw0rd! was stored in clear, after a comment line or a blank
// line too, and password: # rotated\n  s3cret since 6de969e9 kept the
// comment and so the whole. A list, a mapping, a reference, words and an
// unindented next key stay.
func TestRedactYAMLPlainScalar(t *testing.T) {
	m := engine.RedactionMark
	checkRedact(t, []redactCase{
		{"next-line", "password:\n  s3cretPassw0rd!\nuser: bob", "password:\n  " + m + "\nuser: bob"},
		{"comment-line", "password:\n  # rotated\n  s3cretPassw0rd!\n", "password:\n  # rotated\n  " + m + "\n"},
		{"blank-line", "db:\n  api_key:\n\n    abcd1234efgh\n  user: bob\n", "db:\n  api_key:\n\n    " + m + "\n  user: bob\n"},
		{"key-comment", "password: # rotated\n  s3cretPassw0rd!\n", "password: # rotated\n  " + m + "\n"},
		{"quoted-crlf", "client_secret:\r\n  'abcDEF123456'\r\n", "client_secret:\r\n  '" + m + "'\r\n"},
		{"in-json-string", `{"content":"password:\n  hunter2secret\n"}`, `{"content":"password:\n  ` + m + `\n"}`},
		{"list-kept", "password:\n  - " + m + "\n", "password:\n  - " + m + "\n"},
		{"mapping-kept", "secrets:\n  name: regcred\n", "secrets:\n  name: regcred\n"},
		{"reference-kept", "password:\n  ${DB_PASSWORD}\n", "password:\n  ${DB_PASSWORD}\n"},
		{"words-kept", "Password:\n  the one on the sticky note\n", "Password:\n  the one on the sticky note\n"},
		{"suffix-kept", "password_hint:\n  dog\n", "password_hint:\n  dog\n"},
		{"not-indented-kept", "password:\nnext: 1\n", "password:\nnext: 1\n"},
		{"key-in-list-item", "  - password:\n      hunter2secret\n    name: bob", "  - password:\n      " + m + "\n    name: bob"},
		{"key-in-list-item-next-key-kept", "- password:\n  next: 1\n", "- password:\n  next: 1\n"},
		// rev57: a quoted value whose text begins " #" was read as a lone
		// quote (its " #…" a comment), which red56's placeholderValue keeps.
		{"quoted-hash", "password:\n  \" #hunter2secret\"\n", "password:\n  \"" + m + "\"\n"},
		{"single-quoted-hash", "password:\n  ' #hunter2secret'\n", "password:\n  '" + m + "'\n"},
		{"quoted-words", "password:\n  \"hunter2 secret\" # old\n", "password:\n  \"" + m + "\"\n"},
	})
}

// TestRedactYAMLNamedValue: a Kubernetes env entry whose name ends in a
// credential name loses its value (walk48 F3): on the value key's line,
// as a block scalar or a plain scalar under it. Before, only the JSON
// form ({"name": "DB_PASSWORD", "value": …}) was redacted, and
// - name: DB_PASSWORD\n    value: hunter2secret was stored in clear.
func TestRedactYAMLNamedValue(t *testing.T) {
	m := engine.RedactionMark
	checkRedact(t, []redactCase{
		{"plain", "env:\n  - name: DB_PASSWORD\n    value: hunter2secret", "env:\n  - name: DB_PASSWORD\n    value: " + m},
		{"block", "env:\n  - name: DB_PASSWORD\n    value: |\n      hunter2secret\n  - name: HOST\n    value: db\n",
			"env:\n  - name: DB_PASSWORD\n    value: |\n      " + m + "\n  - name: HOST\n    value: db\n"},
		{"quoted-comment-next-entry", "- name: API_TOKEN\n  value: \"abc123def\" # x\n- name: DB_PASSWORD\n  value: hunter2secret\n",
			"- name: API_TOKEN\n  value: \"" + m + "\"\n- name: DB_PASSWORD\n  value: " + m + "\n"},
		{"under-crlf", "- name: DB_PASSWORD\r\n  value:\r\n    hunter2secret\r\n", "- name: DB_PASSWORD\r\n  value:\r\n    " + m + "\r\n"},
		{"reference-kept", "- name: X_TOKEN\n  value: ${TOKEN}\n", "- name: X_TOKEN\n  value: ${TOKEN}\n"},
		{"value-from-kept", "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: x}", "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: x}"},
		{"other-name-kept", "- name: PASSWORD_FILE\n  value: /run/secrets/pw", "- name: PASSWORD_FILE\n  value: /run/secrets/pw"},
		{"other-column-kept", "- name: DB_PASSWORD\nvalue: plain words", "- name: DB_PASSWORD\nvalue: plain words"},
		// yaml53: the value key before the name was not found.
		{"value-first", "env:\n  - value: hunter2secret\n    name: DB_PASSWORD", "env:\n  - value: " + m + "\n    name: DB_PASSWORD"},
		{"value-first-block-then-quoted", "env:\n  - value: |\n      hunter2secret\n    name: DB_PASSWORD\n  - value: \"abc123def\" # x\n    name: API_TOKEN\n",
			"env:\n  - value: |\n      " + m + "\n    name: DB_PASSWORD\n  - value: \"" + m + "\"\n    name: API_TOKEN\n"},
		{"value-first-under-crlf", "- value:\r\n    hunter2secret\r\n  name: 'db_password'\r\n", "- value:\r\n    " + m + "\r\n  name: 'db_password'\r\n"},
		{"value-first-after-other-entry", "env:\n  - value: a\n    name: HOST\n  - value: hunter2secret\n    name: DB_PASSWORD",
			"env:\n  - value: a\n    name: HOST\n  - value: " + m + "\n    name: DB_PASSWORD"},
		{"value-first-reference-kept", "- value: ${PW}\n  name: DB_PASSWORD\n", "- value: ${PW}\n  name: DB_PASSWORD\n"},
		{"value-first-other-name-kept", "- value: /run/secrets/pw\n  name: PASSWORD_FILE\n", "- value: /run/secrets/pw\n  name: PASSWORD_FILE\n"},
		{"value-first-other-column-kept", "- value: plain words\nname: DB_PASSWORD", "- value: plain words\nname: DB_PASSWORD"},
		// red56: another key of the entry between the value and the name.
		{"value-first-key-between", "- value: abc123def\n  valueFrom: x\n  name: DB_PASSWORD", "- value: " + m + "\n  valueFrom: x\n  name: DB_PASSWORD"},
		{"value-first-key-between-nested", "env:\n  - value: abc123def\n    foo: bar\n    name: DB_PASSWORD\n  - value: x\n    name: HOST\n",
			"env:\n  - value: " + m + "\n    foo: bar\n    name: DB_PASSWORD\n  - value: x\n    name: HOST\n"},
		{"value-first-key-between-block", "- value: |\n    hunter2secret\n  foo:\n    name: x\n  name: DB_PASSWORD\n", "- value: |\n    " + m + "\n  foo:\n    name: x\n  name: DB_PASSWORD\n"},
		{"value-first-entry-ended-kept", "  - value: abc123def\n    foo: bar\n  name: DB_PASSWORD", "  - value: abc123def\n    foo: bar\n  name: DB_PASSWORD"},
		{"value-first-other-value-between", "value: abc123def\nvalue: x\nname: DB_PASSWORD", "value: abc123def\nvalue: " + m + "\nname: DB_PASSWORD"},
		// rev57: a quoted value whose text begins " #" (cut there, it
		// was a lone quote, which placeholderValue keeps since red56).
		{"name-first-quoted-hash", "env:\n  - name: DB_PASSWORD\n    value: \" #hunter2secret\"\n", "env:\n  - name: DB_PASSWORD\n    value: \"" + m + "\"\n"},
		{"value-first-quoted-hash", "env:\n  - value: ' #hunter2secret'\n    name: DB_PASSWORD\n", "env:\n  - value: '" + m + "'\n    name: DB_PASSWORD\n"},
		{"quoted-hash-comment", "- name: DB_PASSWORD\n  value: \"a #b\\\" #c\" # note\n", "- name: DB_PASSWORD\n  value: \"" + m + "\"\n"},
		{"quoted-hash-unclosed", "- name: DB_PASSWORD\n  value: \" #hunter2secret\n", "- name: DB_PASSWORD\n  value: " + m + "\n"},
		// rev57: the value's own lines may begin with a quote or the
		// word value (red56's notValueKey refused both: kept in clear).
		{"value-first-block-quoted-line", "- value: |\n    \"hunter2secret\"\n  name: DB_PASSWORD\n", "- value: |\n    " + m + "\n  name: DB_PASSWORD\n"},
		{"value-first-block-lines-quoted", "- value: |\n    hunter2\n    'secret'\n  name: DB_PASSWORD\n", "- value: |\n    " + m + "\n  name: DB_PASSWORD\n"},
		{"value-first-plain-quoted", "- value:\n    \"hunter2secret\"\n  name: DB_PASSWORD\n", "- value:\n    \"" + m + "\"\n  name: DB_PASSWORD\n"},
		{"value-first-block-value-word", "- value: >-\n    value hunter2secret\n  name: DB_PASSWORD\n", "- value: >-\n    " + m + "\n  name: DB_PASSWORD\n"},
		{"value-first-quoted-value-key-between", "  - value: abc123def\n    \"value\": x\n    name: DB_PASSWORD\n", "  - value: abc123def\n    \"value\": " + m + "\n    name: DB_PASSWORD\n"},
		// red60: a key between the name and its value (red58's leftover
		// 2), a value key inside the value's block (leftover 1), nested
		// entries.
		{"name-first-key-between", "- name: DB_PASSWORD\n  valueFrom: x\n  value: hunter2secret", "- name: DB_PASSWORD\n  valueFrom: x\n  value: " + m},
		{"name-first-keys-between-list", "env:\n- name: DB_PASSWORD\n  other: x\n  nested:\n    a: b\n  value: hunter2secret\n- name: HOST\n  value: db\n",
			"env:\n- name: DB_PASSWORD\n  other: x\n  nested:\n    a: b\n  value: " + m + "\n- name: HOST\n  value: db\n"},
		{"value-first-block-holds-value-key", "- value: |\n    value: hunter2\n  name: DB_PASSWORD", "- value: |\n    " + m + "\n  name: DB_PASSWORD"},
		{"name-first-nested-entry", "- name: DB_PASSWORD\n  meta:\n    name: API_KEY\n    value: nested1secret\n  value: outer1secret\n",
			"- name: DB_PASSWORD\n  meta:\n    name: API_KEY\n    value: " + m + "\n  value: " + m + "\n"},
		{"value-first-block-other-name-then-entry", "  - value: |\n      abc9secret\n    name: HOST\n  - value: x9secret\n    name: DB_PASSWORD\n",
			"  - value: |\n      abc9secret\n    name: HOST\n  - value: " + m + "\n    name: DB_PASSWORD\n"},
		{"name-first-next-entry-kept", "- name: DB_PASSWORD\n  valueFrom: x\n- name: HOST\n  value: db.example\n", "- name: DB_PASSWORD\n  valueFrom: x\n- name: HOST\n  value: db.example\n"},
		{"name-first-parent-key-kept", "  - name: DB_PASSWORD\n    valueFrom: x\n  value: plain words\n", "  - name: DB_PASSWORD\n    valueFrom: x\n  value: plain words\n"},
		{"name-first-prose-between-kept", "name: DB_PASSWORD\nthe form below\nvalue: Click here\n", "name: DB_PASSWORD\nthe form below\nvalue: Click here\n"},
		// red62: prose holding a colon between the name and a value key
		// ends the entry, as prose without one did; a key, quoted or
		// not, does not.
		{"name-first-prose-colon-between-kept", "name: API_TOKEN\nThe team says: rotate it weekly\nvalue: see the runbook\n",
			"name: API_TOKEN\nThe team says: rotate it weekly\nvalue: see the runbook\n"},
		{"value-first-prose-colon-between-kept", "- value: see the runbook\n  Why: because\n  it is late: yes\n  name: API_TOKEN\n",
			"- value: see the runbook\n  Why: because\n  it is late: yes\n  name: API_TOKEN\n"},
		{"name-first-url-between-kept", "name: API_TOKEN\nhttps://example.com/docs\nvalue: see the docs\n", "name: API_TOKEN\nhttps://example.com/docs\nvalue: see the docs\n"},
		{"name-first-quoted-key-between", "- name: DB_PASSWORD\n  \"valueFrom\": x\n  empty:\n  value: hunter2secret", "- name: DB_PASSWORD\n  \"valueFrom\": x\n  empty:\n  value: " + m},
		// rev63: a key with a character that is no word character is a
		// key still (red62's first rule ended the entry there: the block
		// value before it, a password, was kept).
		{"value-first-symbol-key-between", "- value: |\n    hunter2secret\n  fo$o:\n    name: x\n  name: DB_PASSWORD\n",
			"- value: |\n    " + m + "\n  fo$o:\n    name: x\n  name: DB_PASSWORD\n"},
		{"name-first-symbol-keys-between", "- name: DB_PASSWORD\n  x-k8s.io/note: a\n  \"q\":\n  @since: 2\n  value: hunter2secret\n",
			"- name: DB_PASSWORD\n  x-k8s.io/note: a\n  \"q\":\n  @since: 2\n  value: " + m + "\n"},
		{"name-first-second-name-kept", "name: DB_PASSWORD\nfoo: 1\nname: HOST\nvalue: db.example\n", "name: DB_PASSWORD\nfoo: 1\nname: HOST\nvalue: db.example\n"},
	})
}

// TestRedactYAMLEscaped: YAML with its line breaks escaped (\n, \r\n as
// text) in text that is no JSON document, as a log line quotes a config,
// loses what the YAML rules take from it (yaml53). Before, a block
// scalar, a list or a plain scalar under a credential key there was
// stored in clear (only a JSON document's strings were decoded), and
// password: |\r\n lost its header to the assignment rule, its value kept.
func TestRedactYAMLEscaped(t *testing.T) {
	m := engine.RedactionMark
	checkRedact(t, []redactCase{
		{"block-in-quotes", `log: "password: |\n  hunter2secret\n"`, `log: "password: |\n  ` + m + `\n"`},
		{"folded-after-equals", `config=client_secret: >-\n    hunter2secret\nuser: bob`, `config=client_secret: >-\n    ` + m + `\nuser: bob`},
		{"list-in-quotes", `log: "tokens:\n  - hunter2secret\n"`, `log: "tokens:\n  - ` + m + `\n"`},
		{"plain-in-quotes", `log: "password:\n  hunter2secret\n"`, `log: "password:\n  ` + m + `\n"`},
		{"indented-key-closing-quote", `log: "  password: |\n    hunter2secret\n  next: 1" user=bob`, `log: "  password: |\n    ` + m + `\n  next: 1" user=bob`},
		{"crlf-after-blank", `INFO config: password: |\r\n  hunter2secret\r\nuser: bob`, `INFO config: password: |\r\n  ` + m + `\r\nuser: bob`},
		{"nested-single-quotes", "msg='db:\\n  password: |\\n    hunter2secret\\n  user: bob\\n' rest", "msg='db:\\n  password: |\\n    " + m + "\\n  user: bob\\n' rest"},
		{"env-entry", `log: "env:\n  - value: hunter2secret\n    name: DB_PASSWORD\n"`, `log: "env:\n  - value: ` + m + `\n    name: DB_PASSWORD\n"`},
		{"among-lines", "a\n log: \"password: |\\n  hunter2secret\\n\"\nb", "a\n log: \"password: |\\n  " + m + "\\n\"\nb"},
		{"reference-kept", `log: "password: |\n  ${DB_PASSWORD}\n"`, `log: "password: |\n  ${DB_PASSWORD}\n"`},
		{"other-key-kept", `log: "description: |\n  the token expires\n"`, `log: "description: |\n  the token expires\n"`},
		{"nested-key-kept", `log: "credentials:\n  user: bob\n"`, `log: "credentials:\n  user: bob\n"`},
		{"escaped-backslash-kept", `path: "C:\\new\\tokens:\\n"`, `path: "C:\\new\\tokens:\\n"`},
		// rev53: the string's quote read as the key's: the value ran to
		// the line's end, taking the closing quote and what follows it
		// (block, list), or the value was kept (list, plain).
		{"block-then-closing-quote", `log: "password: |\n  hunter2secret" level=info`, `log: "password: |\n  ` + m + `" level=info`},
		{"list-then-closing-quote", `log: "tokens:\n  - hunter2secret" level=info`, `log: "tokens:\n  - ` + m + `" level=info`},
		{"plain-after-equals-quote", `msg="password:\n  hunter2secret" level=info`, `msg="password:\n  ` + m + `" level=info`},
		{"truncated-json-line", `{"log": "passwords:\n  - |\n    hunter2secret", "level": "info"`, `{"log": "passwords:\n  - |\n    ` + m + `", "level": "info"`},
		{"second-string", `a="user:\n  bob" b="password: |\n  hunter2secret" c=1`, `a="user:\n  bob" b="password: |\n  ` + m + `" c=1`},
		{"quote-in-value", `log: "password:\n  hu"nter2secret\n" level=info`, `log: "password:\n  ` + m + `\n" level=info`},
		{"quoted-key-after-blank", `cfg: "password": |\n  hunter2secret\nuser: bob`, `cfg: "password": |\n  ` + m + `\nuser: bob`},
		// red56: a quoted scalar and a comment before the escaped break
		// (the quote no end of the string); a lone \r ends a value's line;
		// a quote or '${' alone on an item's line is no value.
		{"quoted-comment-then-entry", `log: "env:\n  - value: |\n      x\n    name: DB_PASSWORD\n  - value: "abc123def" # x\n    name: API_TOKEN\n"`,
			`log: "env:\n  - value: |\n      ` + m + `\n    name: DB_PASSWORD\n  - value: "` + m + `"\n    name: API_TOKEN\n"`},
		{"quoted-blank-then-break", `log: "tokens:\n  - "abc123def" \n  - hunter2secret\n"`, `log: "tokens:\n  - "` + m + `" \n  - ` + m + `\n"`},
		{"lone-cr-after-value", `password: |\n  hunter2secret\r\on: bob`, `password: |\n  ` + m + `\r\on: bob`},
		{"lone-cr-before-key", `progress 50%\r log: "password: |\n  hunter2secret\n"`, `progress 50%\r log: "password: |\n  ` + m + `\n"`},
		{"bare-quote-item-kept", `- passphrases:\n  - "\n`, `- passphrases:\n  - "\n`},
		{"bare-reference-item-kept", `- passphrases:\n  - ${\n`, `- passphrases:\n  - ${\n`},
	})
}

// TestRedactYAMLListProse: prose that introduces a Markdown list with a
// credential word keeps its items (rev47). Before, the list rule took any
// "password:" before a line break for a YAML key, and "To reset your
// password:\n- open Settings\n- click Reset" was stored as "- [REDACTED]"
// lines: the text was lost.
func TestRedactYAMLListProse(t *testing.T) {
	var cases []redactCase
	for _, s := range []string{
		"To reset your password:\n- open Settings\n- click Reset\n",
		"Tips for a strong password:\n- use twelve characters\n- mix cases\n",
		"The API token:\n- expires after one hour\n- is scoped to the project\n",
		"Secrets:\n- never commit them\n- rotate often\n",
		"password:\n  - open Settings first\n",
		// sec48: a capitalised credential word is a heading, and its plain
		// words stay (before: "- [REDACTED]" twice).
		"Secrets:\n- family\n- recipe\n",
		"Passwords:\n\n- Family\n- recipe.\n- e-mail\n",
		"Tokens:\n- don't\n",
		"- To reset your password:\n  - open Settings\n",
		// The documented price (docs/secrets.md): a capitalised word of
		// letters under a heading is read as prose, not as a password.
		"Passwords:\n- family\n- Swordfish\n",
		"Secrets:\n* Opensesame.\n",
	} {
		cases = append(cases, redactCase{s[:12], s, s})
	}
	checkRedact(t, cases)
}

// TestRedactNetrc: a .netrc entry's password is redacted, on one line or
// over several (walk44 F11). Before, "password S3cretValue" had no ':' or
// '=' for the assignment rule and was stored in clear.
func TestRedactNetrc(t *testing.T) {
	m := engine.RedactionMark
	checkRedact(t, []redactCase{
		{"one-line", "machine api.example.com login bob password S3cretValue", "machine api.example.com login bob password " + m},
		{"multi-line", "machine x\n  login bob\n  password S3cretValue\nmachine y login amy password An0ther",
			"machine x\n  login bob\n  password " + m + "\nmachine y login amy password " + m},
		{"password-first", "machine x password S3cretValue login bob", "machine x password " + m + " login bob"},
		{"default-quoted", "default login anonymous password \"my pass word\"", "default login anonymous password \"" + m + "\""},
		{"escaped-lines", `{"stdout": 1} cat: "machine x\n  login bob\n  password S3cretValue\n  next"`,
			`{"stdout": 1} cat: "machine x\n  login bob\n  password ` + m + `\n  next"`},
		{"prose-kept", "the machine asks for a password reset", "the machine asks for a password reset"},
		// rev47: "default" in prose is no netrc entry; before, "field" and
		// "reset" were stored as [REDACTED].
		{"default-prose-kept", "Use the default login form password field to sign in.", "Use the default login form password field to sign in."},
		{"default-prose-kept-2", "The default login page password reset link is broken.", "The default login page password reset link is broken."},
		{"default-indented", "machine x login a password S3cretOne\n  default login b password S3cretTwo",
			"machine x login a password " + m + "\n  default login b password " + m},
	})
}

// TestRedactDockerAuth: the auth member of Docker's config.json (base64 of
// user:password) and npm's _auth are redacted when they decode to
// credentials (walk44 F11); an auth member that does not stays. Before,
// {"auths":{"registry":{"auth":"…"}}} was stored in clear: "auth" is no
// credential name (it names ordinary things: "auth": "oauth2").
func TestRedactDockerAuth(t *testing.T) {
	m := engine.RedactionMark
	cred := "Ym9iOlMzY3JldFZhbHVl" // base64 of bob:S3cretValue
	checkRedact(t, []redactCase{
		{"config-json", `{"auths":{"registry.example.com":{"auth":"` + cred + `","email":"bob@example.com"}}}`,
			`{"auths":{"registry.example.com":{"auth":"` + m + `","email":"bob@example.com"}}}`},
		{"pretty", "{\n  \"auths\": {\n    \"https://index.docker.io/v1/\": {\n      \"auth\": \"" + cred + "\"\n    }\n  }\n}",
			"{\n  \"auths\": {\n    \"https://index.docker.io/v1/\": {\n      \"auth\": \"" + m + "\"\n    }\n  }\n}"},
		{"cat-output", "$ cat ~/.docker/config.json\n{\"auths\":{\"ghcr.io\":{\"auth\":\"" + cred + "\"}}}\n$ ",
			"$ cat ~/.docker/config.json\n{\"auths\":{\"ghcr.io\":{\"auth\":\"" + m + "\"}}}\n$ "},
		{"npmrc", "//registry.npmjs.org/:_auth=" + cred, "//registry.npmjs.org/:_auth=" + m},
		// Padded base64, as docker login writes it (walk47 F1: kept).
		{"padded-1", `{"auths":{"r":{"auth":"bXl1c2VyOm15cGFzc3dvcmQ="}}}`, `{"auths":{"r":{"auth":"` + m + `"}}}`},
		{"padded-2", `{"auth":"Ym9iOlMzY3JldA=="}`, `{"auth":"` + m + `"}`},
		{"padded-npmrc", "_auth=Ym9iOlMzY3JldFY=", "_auth=" + m},
		{"padded-yaml", "auth: dXNlcjpwYXNzd29yZA==", "auth: " + m},
		{"no-credentials-kept", `[{"auth":"oauth2"},{"auth":"aGVsbG8gd29ybGQ="}]`, `[{"auth":"oauth2"},{"auth":"aGVsbG8gd29ybGQ="}]`}, // hello world: no colon
		{"not-base64-kept", `{"auth": "required-for-admins"}`, `{"auth": "required-for-admins"}`},
	})
}

// puttyKey is a PuTTY key file (format 3, no encryption) as puttygen
// writes it, with made-up key material.
const puttyKey = "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20261207\n" +
	"Public-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIBHkL+6s8vTqGz2mRkM6Y1Z5z9OJvT5aQ0m1nE9v3XyZ\nAAAAB3NzaC1yc2EAAAADAQAB\n" +
	"Private-Lines: 1\nAAAAIBm3wYl9M0k4y3Tc7bqKkTq0zS7gjHkX1eGv9M3XqLwA\n" +
	"Private-MAC: 3a1c0e2f4b6d8a9c7e5f3d1b0a2c4e6f8a9b7c5d3e1f0a2b4c6d8e0f1a3b5c7d\n"

// TestRedactPuTTYKey: the private lines of a PuTTY key file and its MAC
// are replaced; its header, comment and public lines stay, and so do
// prose naming the format's fields and a line of prose after the
// counted lines. red67: the whole file was stored in clear.
func TestRedactPuTTYKey(t *testing.T) {
	m := engine.RedactionMark
	pub := puttyKey[:strings.Index(puttyKey, "Private-Lines")]
	crlf := strings.ReplaceAll(puttyKey, "\n", "\r\n")
	checkRedact(t, []redactCase{
		{"ppk-3", puttyKey, pub + "Private-Lines: 1\n" + m + "\nPrivate-MAC: " + m + "\n"},
		{"ppk-crlf", crlf, strings.ReplaceAll(pub, "\n", "\r\n") + "Private-Lines: 1\r\n" + m + "\r\nPrivate-MAC: " + m + "\r\n"},
		{"ppk-2-lines-indented", "    Private-Lines: 2\n    AAABAQCXk1PdJ+Yk\n    AAAAgQDXq==\n    Private-MAC: 0a1b2c3d4e\nbye",
			"    Private-Lines: 2\n    " + m + "\n    Private-MAC: " + m + "\nbye"},
		{"ppk-1-hash", "Private-Lines: 1\nAAABAQCXk1PdJ+Yk\nPrivate-Hash: 0a1b2c3d4e", "Private-Lines: 1\n" + m + "\nPrivate-Hash: " + m},
		{"in-json", `{"stdout":"` + strings.ReplaceAll(puttyKey, "\n", `\n`) + `","exit":0}`,
			`{"stdout":"` + strings.ReplaceAll(pub, "\n", `\n`) + `Private-Lines: 1\n` + m + `\nPrivate-MAC: ` + m + `\n","exit":0}`},
		{"cut-short", "Private-Lines: 3\nAAABAQCXk1PdJ+Yk", "Private-Lines: 3\n" + m},
		{"prose-after-kept", "Private-Lines: 1\nAAABAQCXk1PdJ+Yk\nThanks", "Private-Lines: 1\n" + m + "\nThanks"},
		// red70: a key file quoted in a mail or in Markdown was stored
		// whole; one-word lines after the header are prose.
		{"ppk-quoted", "> " + strings.ReplaceAll(strings.TrimSuffix(puttyKey, "\n"), "\n", "\n> ") + "\n",
			"> " + strings.ReplaceAll(strings.TrimSuffix(pub, "\n"), "\n", "\n> ") + "\n> Private-Lines: 1\n> " + m + "\n> Private-MAC: " + m + "\n"},
		{"ppk-nested-quote", ">> Private-Lines: 1\n>> AAABAQCXk1PdJ+Yk\n>> Private-MAC: 0a1b2c3d4e\nthanks", ">> Private-Lines: 1\n>> " + m + "\n>> Private-MAC: " + m + "\nthanks"},
		{"capitals-then-mac", "Private-Lines: 2\nAAAA\nAAAAIBm3wYl9M0k4\nPrivate-Hash: 0a1b2c3d4e", "Private-Lines: 2\n" + m + "\nPrivate-Hash: " + m},
		{"word-then-mac", "Private-Lines: 1\nabcd\nPrivate-MAC: 0a1b2c3d4e", "Private-Lines: 1\n" + m + "\nPrivate-MAC: " + m},
		{"words-after-kept", "Private-Lines: 3\nthanks\nbye\nok", "Private-Lines: 3\nthanks\nbye\nok"},
		{"public-kept", pub, pub},
		{"prose-kept", "the Private-Lines: header gives the count\nPrivate-Lines: 3 in the file format", "the Private-Lines: header gives the count\nPrivate-Lines: 3 in the file format"},
	})
}
