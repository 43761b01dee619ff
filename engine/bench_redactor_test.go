package engine_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// redactorInputs are 1 MB texts for BenchmarkRedactorMB: ordinary prose;
// adversarial text on one line for each costly shape the rules look for
// (many credential names, key-block openings that never close, long
// base64 runs after scheme words, brackets), and all of them mixed; a log
// whose every 50th line names a key; credential assignments one a line;
// one line of quoted strings each assigning a credential.
func redactorInputs() []struct{ name, text string } {
	const mb = 1 << 20
	fill := func(unit string) string { return strings.Repeat(unit, mb/len(unit)+1)[:mb] }
	b64 := strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo", 30)
	units := []struct{ name, unit string }{
		{"ordinary", "The meeting moved to Thursday; Ana will bring the draft and the numbers (see page 4). "},
		{"assignments", "password=hunter2 token: abc pwd=x api_key = v secret_ passw DB_PASS=\\n "},
		{"key-blocks", "-----BEGIN CERTIFICATE----- -----BEGIN private key -----BEGIN RSA PUBLIC KEY----- "},
		{"base64", "basic " + b64 + " auth: " + b64 + " Bearer " + b64 + " "},
		{"brackets", "f(x) [1] (a, b) {c} ((( [[[ password ( token [ "},
	}
	var log strings.Builder
	for i := range 50 {
		if i == 25 {
			log.WriteString("2026-12-06T08:40:01Z INFO rotated the api key for service billing\n")
			continue
		}
		log.WriteString("2026-12-06T08:40:01Z INFO GET /v1/threads/t-42/messages 200 12ms bytes=5120\n")
	}
	lines := []struct{ name, unit string }{
		{"log-lines", log.String()},
		{"assignment-lines", "password=hunter2\ntoken: abc\npwd=x\napi_key = v\nsecret_ passw\n"},
		// red57: a name: value in a quoted string ends at its closing
		// quote, and the rest of the line is searched again (maxCuts).
		{"quoted-values-line", `log: "password: abcdefgh" level=info `},
	}
	var out []struct{ name, text string }
	var mixed strings.Builder
	for _, u := range units {
		out = append(out, struct{ name, text string }{u.name, fill(u.unit)})
		if u.name != "ordinary" {
			mixed.WriteString(u.unit)
		}
	}
	out = append(out, struct{ name, text string }{"mixed", fill(mixed.String())})
	for _, u := range lines {
		out = append(out, struct{ name, text string }{u.name, fill(u.unit)})
	}
	return out
}

// BenchmarkRedactorMB measures DefaultRedactor on 1 MB of each text of
// redactorInputs (MB/s).
//
//	go test ./engine -run '^$' -bench RedactorMB -benchtime 3x
func BenchmarkRedactorMB(b *testing.B) {
	r := engine.DefaultRedactor()
	for _, in := range redactorInputs() {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				r.Redact(in.text)
			}
		})
	}
}
