package engine_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
)

// redactSamples hold one or more secrets of each default rule, in several
// cases and contexts.
var redactSamples = []string{
	"-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
	"Authorization: Bearer abcdefgh12345678", "BEARER abcdefgh.ijkl", "bearer    zzzzzzzz==",
	"key sk-abcdefghijklmnopqrstuvwx ok", "pk-live-ABCDEFGHIJKLMNOPQRST", "rk-0123456789abcdefXYZ",
	"AKIAABCDEFGHIJKLMNOP", "id ASIAABCDEFGHIJKLMNOP.",
	"AWS_SECRET_ACCESS_KEY=abcdefghijABCDEFGHIJabcdefghijABCDEFGHIJ", `aws_secret_access_key: "abcdefghijABCDEFGHIJabcdefghijABCDEFGHIJ"`,
	"ghp_abcdefghijklmnopqrstuvwx", "github_pat_abcdefghijklmnopqrstuvwx_1",
	"xoxb-1234567890-abc", "AIzaabcdefghijklmnopqrstuvwxyz012345678",
	"https://user:pa55word@example.com/x", "POSTGRES://admin:hunter2@db:5432",
	"https://x.io/a?token=abc123&b=1", "GET /?API_KEY=zzz", "/s;SIG=abc", "?X-Amz-Signature=deadbeef",
	"password = hunter22", "Client-Secret: abcdefgh", `apiKey: "abcdefghij"`, "AUTH_TOKEN=abcdefghij",
	// Unicode case folding: (?i) folds ſ to s and K (Kelvin) to k.
	"paſſword=hunter22", "api_\u212aey=abcdefghij", "x_ſecret: abcdefgh",
	"password: Tr0ub&4dorXQ", "my password: correct horse battery staple", `{"pass": "hunter2"}`,
	"DB_PASS=hunter22", "passcode=918273", "?db_password=Xy9&next=1", "&pass=Xy9", "contraseña: Tr0ub&4dor",
	"creds: 9f8e7d6c5b4a", "keypass=Zx9Qw3Rt",
	"password:\n  - hunter2secret\n  - other", "machine x login bob password S3cretValue",
	`{"auths":{"r":{"auth":"Ym9iOlMzY3JldFZhbHVl"}}}`, `[["X-Api-Key","abcd1234efgh5678"]]`,
	// red67: cookies, a PuTTY key file, docker login and openssl keys.
	"Cookie: sessionid=abc123def456; lang=en", "SET-COOKIE: __Host-sid=Xy9aB3kLmN0pQ; Path=/",
	"Private-Lines: 1\r\nAAAAIBm3wYl9M0k4\r\nPrivate-MAC: 3a1c0e2f",
	"docker login -u bob -pS3cretPass ghcr.io", "openssl enc -K 0a0b0c0d0e0f -iv 0f0e -hmac s3cr3t -macopt hexkey:0a0b",
	// red70: curl's cookie data, document.cookie, a cookie map, openssl
	// kdf over a continued line, a quoted key file, --credentials.
	"curl -b 'sid=abc123def456' --cookie \"theme=dark; x=Xy9aB3kLmN0pQ\" https://x.io",
	"document.cookie = \"sid=abc123def456; path=/\"", "cookies = {\n  'sessionid': 'abc123def456',\n  \"lang\": \"en\",\n}",
	"openssl kdf -keylen 32 \\\n  -kdfopt pass:hunter2pw -kdfopt hexkey:0a0b HKDF",
	"> Private-Lines: 1\n> AAAAIBm3wYl9M0k4\n> Private-MAC: 3a1c0e2f", "podman login --credentials hunterpass quay.io",
}

// TestRedactPrefilter checks that the rules' Triggers never make the
// redactor skip a match: with and without the prefilter, Redact gives the
// same output on secrets, on secrets embedded in synthetic text, and on
// the synthetic text alone.
func TestRedactPrefilter(t *testing.T) {
	full := engine.DefaultRedactor()
	plain := &engine.PatternRedactor{}
	for _, r := range full.Rules {
		if len(r.Triggers) == 0 {
			t.Errorf("default rule %s has no triggers", r.Name)
		}
		r.Triggers = nil
		plain.Rules = append(plain.Rules, r)
	}
	c, err := synth.New(synth.Config{Messages: 400, Resources: 2})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var texts []string
	for th := range c.All() {
		for _, m := range th.Messages {
			texts = append(texts, m.Content)
		}
	}
	check := func(s string) {
		t.Helper()
		if got, want := full.Redact(s), plain.Redact(s); got != want {
			t.Fatalf("prefilter changed the result for %q:\n got %q\nwant %q", s, got, want)
		}
	}
	for _, s := range redactSamples {
		if plain.Redact(s) == s {
			t.Errorf("sample %q has no secret for the rules", s)
		}
		check(s)
		check(strings.ToUpper(s))
		check(strings.ToLower(s))
		for range 5 {
			txt := texts[rng.IntN(len(texts))]
			cut := rng.IntN(len(txt) + 1)
			check(txt[:cut] + " " + s + " " + txt[cut:])
		}
	}
	for _, s := range texts {
		check(s)
	}
}

// BenchmarkRedact measures the default redactor on synthetic turns (no
// secrets, the common case).
func BenchmarkRedact(b *testing.B) {
	c, _ := synth.New(synth.Config{Messages: 1000, Resources: 1})
	var texts []string
	for th := range c.All() {
		for _, m := range th.Messages {
			texts = append(texts, m.Content)
		}
	}
	plain := &engine.PatternRedactor{}
	for _, r := range engine.DefaultRules() {
		r.Triggers = nil
		plain.Rules = append(plain.Rules, r)
	}
	for _, bc := range []struct {
		name string
		r    *engine.PatternRedactor
	}{{"prefilter", engine.DefaultRedactor()}, {"regexps", plain}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				bc.r.Redact(texts[i%len(texts)])
				i++
			}
		})
	}
}

// TestDefaultRulesAreCopies: DefaultRules compiles its patterns once per
// process, but the rules it returns are the caller's: changing one's
// Triggers, Pattern or Name, or calling Longest on its Regexp, changes
// nothing in the next call's rules or in the default redactor.
func TestDefaultRulesAreCopies(t *testing.T) {
	const sample = "password = hunter22 and Bearer abcdefgh12345678"
	want := engine.DefaultRedactor().Redact(sample)
	first := engine.DefaultRules()
	for i := range first {
		first[i].Pattern.Longest()
		if len(first[i].Triggers) > 0 {
			first[i].Triggers[0] = "zz-never"
		}
		first[i].Name = "changed"
	}
	first[0].Pattern = nil
	again := engine.DefaultRules()
	if got, want := len(again), len(first); got != want {
		t.Fatalf("%d rules, want %d", got, want)
	}
	for i, r := range again {
		if r.Name == "changed" || r.Pattern == nil || (len(r.Triggers) > 0 && r.Triggers[0] == "zz-never") {
			t.Fatalf("rule %d (%s) shows a change made to an earlier call's rules", i, r.Name)
		}
		if r.Pattern == first[i].Pattern {
			t.Fatalf("rule %s: the same *Regexp as an earlier call's", r.Name)
		}
	}
	if got := engine.DefaultRedactor().Redact(sample); got != want {
		t.Errorf("Redact after changing returned rules = %q, want %q", got, want)
	}
}

// FuzzRedactPrefilter: on any text the default redactor gives what its
// rules give without their triggers, so the prefilter never skips a rule
// that would change the text (TestRedactPrefilter on arbitrary input; the
// assignment rule's triggers cover every credential name). Seeds:
// redactSamples.
//
//	go test ./engine -run '^$' -fuzz FuzzRedactPrefilter -fuzztime 1m
func FuzzRedactPrefilter(f *testing.F) {
	for _, s := range redactSamples {
		f.Add(s)
	}
	full := engine.DefaultRedactor()
	plain := &engine.PatternRedactor{}
	for _, r := range engine.DefaultRules() {
		r.Triggers = nil
		plain.Rules = append(plain.Rules, r)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := full.Redact(s), plain.Redact(s); got != want {
			t.Fatalf("prefilter changed the result for %q:\n got %q\nwant %q", s, got, want)
		}
	})
}
