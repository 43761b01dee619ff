package engine_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// byLineTexts are multi-line texts with the secrets of redactSamples on
// some lines: alone, after prose, with CRLF breaks, next to a line that
// names a credential and holds none, and all of them in one text.
func byLineTexts() []string {
	prose := "GET /v1/threads 200 12ms\nthe api key was rotated\r\n\n(see the token docs)\n08:40:01 rotated the api key\na=1 token"
	out := []string{strings.Join(redactSamples, "\n"), strings.Join(redactSamples, "\r\n")}
	for _, s := range redactSamples {
		out = append(out, prose+"\n"+s+"\n"+prose, s+"\n"+prose, prose+"\n"+s, "x\n"+s+"\r\n", "?a=1&\n"+s)
	}
	return out
}

// TestRedactByLine: a rule searched only on the lines holding its
// triggers (prefilter.lines) replaces what it replaces searching the whole
// text: the default redactor gives what its rules without triggers give.
func TestRedactByLine(t *testing.T) {
	full, plain := engine.DefaultRedactor(), untriggered()
	for _, s := range byLineTexts() {
		if got, want := full.Redact(s), plain.Redact(s); got != want {
			t.Errorf("line by line, Redact(%q) =\n%q\nwant %q", s, got, want)
		}
	}
}

// FuzzRedactByLine is FuzzRedactPrefilter seeded with multi-line texts
// and YAML credential files (yamlSeeds), and checks a second pass too:
// redacting the result again changes nothing (Append compares redacted
// content, and a rule that finds more in its own output stored a secret
// the first pass half-replaced).
//
//	go test ./engine -run '^$' -fuzz FuzzRedactByLine -fuzztime 1m
func FuzzRedactByLine(f *testing.F) {
	for _, s := range append(byLineTexts(), yamlSeeds...) {
		f.Add(s)
	}
	full, plain := engine.DefaultRedactor(), untriggered()
	f.Fuzz(func(t *testing.T, s string) {
		got := full.Redact(s)
		if want := plain.Redact(s); got != want {
			t.Fatalf("line by line, Redact(%q) =\n%q\nwant %q", s, got, want)
		}
		if again := full.Redact(got); again != got {
			t.Fatalf("not idempotent: Redact(%q) =\n%q\nand again\n%q", s, got, again)
		}
	})
}

// yamlSeeds are YAML credential files in the forms the YAML rules read:
// lists, block and plain scalars, env entries, and the same escaped as a
// log line quotes them.
var yamlSeeds = []string{
	"passwords:\n  - |\n    hunter2secret\n  - >-\n    other\nuser: bob",
	"env:\n  - value: hunter2secret\n    name: DB_PASSWORD\n  - name: API_TOKEN\n    value: |\n      abc123def\n",
	"db:\n  password:\n    # rotated\n    s3cret!\n  user: bob\n",
	`log: "password: |\n  hunter2secret\n"`,
	`config=client_secret: >-\n    hunter2secret\nuser: bob`,
	`log: "tokens:\n  - hunter2secret\n"`,
	`password: |\r\n  abc12345\r\nuser: bob`,
	// red56's shapes: an escaped query assignment, a value continued on
	// an indented line, an env entry's other keys, a quoted scalar and a
	// lone \r in escaped YAML.
	"GET /search?q=password%3Dhunter2x&page=2",
	"note: password: ab\r\n  hunter2secret\nuser: bob",
	`note: password: ab\r\n  hunter2secret`,
	"- value: abc123def\n  valueFrom: x\n  name: DB_PASSWORD",
	`log: "env:\n  - value: "abc123def" # x\n    name: API_TOKEN\n"`,
	`password: |\n  hunter2secret\r\on: bob`,
}

// untriggered is the default redactor with no rule's triggers: every rule
// runs on the whole text.
func untriggered() *engine.PatternRedactor {
	plain := &engine.PatternRedactor{}
	for _, r := range engine.DefaultRules() {
		r.Triggers = nil
		plain.Rules = append(plain.Rules, r)
	}
	return plain
}
