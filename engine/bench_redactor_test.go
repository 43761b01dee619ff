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
// one line of quoted strings each assigning a credential; transcripts of
// red67's and red70's shapes; an HAR log, one JSON document.
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
		// red67: a shell and HTTP transcript: cookie headers, a PuTTY
		// key file, docker login and openssl commands, one a line.
		{"transcript-lines", "$ curl -sI https://app.example.com/login\nHTTP/1.1 302 Found\n" +
			"Set-Cookie: __Host-sid=Xy9aB3kLmN0pQr; Path=/; Secure; HttpOnly\n" +
			"$ curl -H 'Cookie: sessionid=abc123def456; lang=en' https://app.example.com/\n" +
			"the cookie policy allows 3 cookies\n$ docker login -u bob -pS3cretPass ghcr.io\n" +
			"$ openssl enc -aes-256-cbc -K 000102030405060708090a0b0c0d0e0f -iv 0f0e0d0c0b0a0908 -in a\n" +
			"$ openssl dgst -sha256 -hmac s3cr3tkey file.txt\n$ cat key.ppk\nPuTTY-User-Key-File-3: ssh-ed25519\n" +
			"Encryption: none\nComment: eddsa-key\nPublic-Lines: 1\nAAAAC3NzaC1lZDI1NTE5AAAAIBHkL\n" +
			"Private-Lines: 1\nAAAAIBm3wYl9M0k4y3Tc7bqKkTq0zS7\nPrivate-MAC: 3a1c0e2f4b6d8a9c\n"},
		// red70: curl's cookie data, document.cookie, a cookie map,
		// openssl kdf over a continued line, a quoted key file.
		{"transcript-red70", "$ curl -b 'sessionid=abc123def456' --cookie \"theme=dark; sid=Xy9aB3kLmN0pQ\" https://x.io\n" +
			"document.cookie = \"sid=abc123def456; path=/\";\ncookies = {\n    'sessionid': 'abc123def456',\n    'lang': 'en',\n}\n" +
			"r = requests.get(url, cookies=cookies)\ncookie: chocolate=chip and milk\n" +
			"$ openssl kdf -keylen 32 -kdfopt digest:SHA256 \\\n    -kdfopt pass:hunter2pw -kdfopt salt:NaCl PBKDF2\n" +
			"$ docker login -u bob -pretty ghcr.io\n> Private-Lines: 1\n> AAAAIBm3wYl9M0k4y3Tc7bqKkTq0zS7\n> Private-MAC: 3a1c0e2f\n" +
			"## Password: how to choose one that is strong\n"},
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
	return append(out, struct{ name, text string }{"har-document", harDocument(mb)})
}

// harDocument is an HAR log of about size bytes, one JSON document (red71:
// its cookie lists are walked, docWalk.cookieJar): entries whose request
// has header and cookie lists and whose response has an empty one.
func harDocument(size int) string {
	const entry = `{"request": {"method": "GET", "url": "https://app.example.com/api/v1/items?page=2", ` +
		`"headers": [{"name": "Accept", "value": "application/json"}, {"name": "Cookie", "value": "sessionid=abc123def456; lang=en"}], ` +
		`"cookies": [{"name": "sessionid", "value": "abc123def456", "domain": ".example.com", "httpOnly": true}, {"name": "lang", "value": "en"}]}, ` +
		`"response": {"status": 200, "cookies": [], "content": {"size": 5120, "text": "{\"items\": [1, 2, 3]}"}}, "time": 12.5}`
	entries := strings.Repeat(entry+", ", size/(len(entry)+2))
	return `{"log": {"entries": [` + entries + entry + `]}}`
}

// BenchmarkRedactorMB measures DefaultRedactor on 1 MB of each text of
// redactorInputs (MB/s), and the process's CPU time per operation
// (cpu-ns/op): on a shared machine the wall time measures the
// contention, 2.1 to 41 ms/op for the same text (red67), while the CPU
// time is what the rules cost. Compare two revisions by the CPU figure,
// with test binaries run alternately and benchstat (BENCHMARKS.md, "The
// redactor: red67's rules"):
//
//	go test ./engine -run '^$' -bench RedactorMB -benchtime 3x -count 10
func BenchmarkRedactorMB(b *testing.B) {
	r := engine.DefaultRedactor()
	for _, in := range redactorInputs() {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			r.Redact(in.text) // compiled, allocated once: outside the figure
			cpu := cpuSeconds()
			for b.Loop() {
				r.Redact(in.text)
			}
			if cpu > 0 {
				b.ReportMetric((cpuSeconds()-cpu)*1e9/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

// BenchmarkRedactorFirstUse is a new redactor's first Redact of a query
// that names no secret, as each engine's first memctx record (the query
// is redacted) pays it: the prefilter is built then. The rules are
// compiled once a process, outside the timing.
//
//	go test ./engine -run '^$' -bench RedactorFirstUse -benchmem
func BenchmarkRedactorFirstUse(b *testing.B) {
	rules := engine.DefaultRules()
	b.ReportAllocs()
	for b.Loop() {
		r := &engine.PatternRedactor{Rules: rules}
		r.Redact("what did we decide about the deploy on thursday?")
	}
}
