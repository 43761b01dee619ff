package engine_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// rep repeats s up to n bytes: readable fake secrets of a given length.
func rep(s string, n int) string { return strings.Repeat(s, n/len(s)+1)[:n] }

// secretCases are one or more samples of each secret format the default
// rules recognise: the text and the secret that must not survive.
var secretCases = []struct{ name, text, secret string }{
	{"pem-rsa", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\nbye", "MIIEowIBAAKCAQEA"},
	{"pem-pkcs8-in-json", `{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkq\n-----END PRIVATE KEY-----\n"}`, "MIIEvQIBADANBgkq"},
	{"openssh", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjE"},
	{"pgp", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0AAAAB\n-----END PGP PRIVATE KEY BLOCK-----", "lQOYBF0AAAAB"},
	{"pem-cut-short", "here: -----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBb6", "MHcCAQEEIBb6"},
	{"jwt-bare", "use eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U now", "dozjgNryP4J3jVmNHl0w5N"},
	{"jwt-unsecured", "t=eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.", "eyJzdWIiOiJhbGljZSJ9"},
	{"bearer", "Authorization: Bearer abcdefgh12345678", "abcdefgh12345678"},
	{"bearer-lower", "curl -H 'authorization: bearer 0123456789abcdef'", "0123456789abcdef"},
	// walk48 F2: the match had to end at the padding, and a token
	// character after it (a full stop, more base64) made it refuse.
	{"bearer-padding-then-stop", "set it to Bearer dGhpc2lzYXNlY3JldHRva2Vu==.", "dGhpc2lzYXNlY3JldHRva2Vu"},
	{"bearer-inner-equals", "X-Auth: Bearer Zm9vYmFyYmF6cXV4=Zm9vYmFy", "Zm9vYmFy"},
	{"bearer-padding-then-word", "Bearer QWxhZGRpbjpvcGVu=.and more", "QWxhZGRpbjpvcGVu"},
	{"password-hash-start", "password: #hunter2x", "hunter2x"},
	{"basic-header", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA"},
	{"basic-bare", "send Basic YWxhZGRpbjpvcGVuc2VzYW1l to the proxy", "YWxhZGRpbjpvcGVuc2VzYW1l"},
	{"proxy-authorization", "Proxy-Authorization: Digest-ish c2VjcmV0LXZhbHVl", "c2VjcmV0LXZhbHVl"},
	{"github-token-header", "Authorization: token 7a1f0c2e9b8d4f3a", "7a1f0c2e9b8d4f3a"},
	{"curl-user", "curl -u admin:s3cr3tPass https://api.example.com", "s3cr3tPass"},
	{"url-credentials", "https://user:pa55word@example.com/x", "pa55word"},
	{"url-credentials-at-in-password", "postgres://admin:p@ss@db.internal:5432/app", "p@ss"},
	{"url-credentials-redis-no-user", "redis://:hunter2hunter@cache:6379/0", "hunter2hunter"},
	{"url-param-token", "https://x.io/a?token=abc123&b=1", "abc123"},
	{"url-param-aws-signature", "https://b.s3.amazonaws.com/o?X-Amz-Credential=AKID%2F2024&X-Amz-Signature=deadbeefcafe", "deadbeefcafe"},
	{"azure-sas", "https://acct.blob.core.windows.net/c?sv=2022-11-02&sig=Zm9vYmFyYmF6cXV4%3D", "Zm9vYmFyYmF6cXV4"},
	{"slack-webhook", "post to https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX please", "XXXXXXXXXXXXXXXXXXXXXXXX"},
	{"discord-webhook", "https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz-0123456789_abc", "AbCdEfGhIjKlMnOpQrStUvWxYz"},
	{"openai", "key sk-" + rep("abcdefghij", 48) + " ok", rep("abcdefghij", 48)},
	{"openai-project", "sk-proj-" + rep("Xy12", 40), rep("Xy12", 40)},
	{"anthropic", "ANTHROPIC_API_KEY is sk-ant-api03-" + rep("aB3-", 60), rep("aB3-", 60)},
	{"stripe-secret", "STRIPE=sk_live_" + rep("4eC39HqLyjWDarjtT1zdp7dc", 24), rep("4eC39HqLyjWDarjtT1zdp7dc", 24)},
	{"stripe-restricted", "rk_live_" + rep("51HxYz", 30), rep("51HxYz", 30)},
	{"stripe-test", "sk_test_" + rep("26PHem9AhJZvU623DfE1x4sd", 24), rep("26PHem9AhJZvU623DfE1x4sd", 24)},
	{"stripe-webhook", "whsec_" + rep("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", 32), rep("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", 32)},
	{"aws-access-key-id", "id AKIAIOSFODNN7EXAMPLE.", "AKIAIOSFODNN7EXAMPLE"},
	{"aws-secret", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG"},
	{"github-pat-classic", "ghp_" + rep("16C7e42F292c6912E7710c838347Ae178B4a", 36), rep("16C7e42F292c6912E7710c838347Ae178B4a", 36)},
	{"github-pat-fine", "github_pat_11ABCDEFG0" + rep("abcdefghij_KLMNOP", 70), rep("abcdefghij_KLMNOP", 70)},
	{"gitlab-pat", "glpat-" + rep("xR7vzQ2-kL9mN4pT6wY8", 20), rep("xR7vzQ2-kL9mN4pT6wY8", 20)},
	{"gitlab-deploy", "gldt-" + rep("AbCdEfGhIjKlMnOpQrSt", 20), rep("AbCdEfGhIjKlMnOpQrSt", 20)},
	{"huggingface", "HF token hf_" + rep("kOyTpzHjUsRwYbQnXvLmCgEdFa", 34), rep("kOyTpzHjUsRwYbQnXvLmCgEdFa", 34)},
	{"npm", "//registry.npmjs.org/:_authToken=npm_" + rep("aBcD1234eFgH5678", 36), rep("aBcD1234eFgH5678", 36)},
	{"pypi", "pypi-AgEIcHlwaS5vcmc" + rep("CJDg4NzQ2ZjE0LTc3", 70), rep("CJDg4NzQ2ZjE0LTc3", 70)},
	{"slack-bot", "xoxb-1234567890-1234567890123-" + rep("AbCdEfGhIjKl", 24), rep("AbCdEfGhIjKl", 24)},
	{"slack-app", "xapp-1-A0123456789-1234567890123-" + rep("abc123def456", 64), rep("abc123def456", 64)},
	{"google-api-key", "AIza" + rep("SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", 35), rep("SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", 35)},
	{"google-client-secret", "GOCSPX-" + rep("1a2B3c4D5e6F7g8H9i0J", 28), rep("1a2B3c4D5e6F7g8H9i0J", 28)},
	{"google-access-token", "ya29." + rep("a0AfH6SMBx", 60), rep("a0AfH6SMBx", 60)},
	{"sendgrid", "SG." + rep("ngeVfQFYQlKU0ufo8x5d1A", 22) + "." + rep("TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr", 43), rep("TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr", 43)},
	{"shopify", "shpat_" + rep("0123456789abcdef", 32), rep("0123456789abcdef", 32)},
	{"digitalocean", "dop_v1_" + rep("0123456789abcdef", 64), rep("0123456789abcdef", 64)},
	{"databricks", "dapi" + rep("0123456789abcdef", 32), rep("0123456789abcdef", 32)},
	{"atlassian", "ATATT3xFfGF0" + rep("T5nb6-AbCd_EfGh", 60), rep("T5nb6-AbCd_EfGh", 60)},
	{"square", "sq0atp-" + rep("AbCdEfGhIjKl", 22), rep("AbCdEfGhIjKl", 22)},
	{"grafana-cloud", "glc_" + rep("eyJvIjoiMTIzNDU2NyIsIm4iOiJ0", 60), rep("eyJvIjoiMTIzNDU2NyIsIm4iOiJ0", 60)},
	{"grafana-sa", "glsa_" + rep("AbCdEfGhIjKlMnOp", 32) + "_0a1b2c3d", rep("AbCdEfGhIjKlMnOp", 32)},
	{"docker-hub", "dckr_pat_" + rep("AbC-dEf_GhI", 27), rep("AbC-dEf_GhI", 27)},
	{"doppler", "dp.st.prd." + "x dp.pt." + rep("AbCdEfGhIj0123456789", 43), rep("AbCdEfGhIj0123456789", 43)},
	{"postman", "PMAK-" + rep("0123456789ab", 24) + "-" + rep("abcdef0123456789", 34), rep("abcdef0123456789", 34)},
	{"linear", "lin_api_" + rep("AbCdEfGhIj0123456789", 40), rep("AbCdEfGhIj0123456789", 40)},
	{"notion", "ntn_" + rep("AbCdEfGhIj0123456789", 46), rep("AbCdEfGhIj0123456789", 46)},
	{"mailchimp", "apikey " + rep("0123456789abcdef", 32) + "-us6", rep("0123456789abcdef", 32)},
	{"groq", "gsk_" + rep("AbCdEfGhIj0123456789", 52), rep("AbCdEfGhIj0123456789", 52)},
	{"xai", "xai-" + rep("AbCdEfGhIj0123456789", 80), rep("AbCdEfGhIj0123456789", 80)},
	{"replicate", "r8_" + rep("AbCdEfGhIj0123456789", 37), rep("AbCdEfGhIj0123456789", 37)},
	{"perplexity", "pplx-" + rep("AbCdEfGhIj0123456789", 48), rep("AbCdEfGhIj0123456789", 48)},
	{"sentry", "sntrys_" + rep("eyJpYXQiOjE3MDAwMDAwMDAuMCwidXJsIjoi", 80), rep("eyJpYXQiOjE3MDAwMDAwMDAuMCwidXJsIjoi", 80)},
	{"vault", "VAULT_TOKEN is hvs." + rep("CAESIJlU7n_AbCdEf", 90), rep("CAESIJlU7n_AbCdEf", 90)},
	{"terraform-cloud", "AbCdEfGhIjKlMn.atlasv1." + rep("AbCdEfGhIj0123456789_-", 67), rep("AbCdEfGhIj0123456789_-", 67)},
	{"heroku", "HRKU-AA" + rep("AbCdEfGhIj0123456789_-", 58), rep("AbCdEfGhIj0123456789_-", 58)},
	{"newrelic", "NRAK-" + rep("ABCDEFGHIJ0123456789", 27), rep("ABCDEFGHIJ0123456789", 27)},
	{"age", "AGE-SECRET-KEY-1" + rep("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58), rep("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)},
	{"azure-ad-client-secret", "client secret abc8Q~" + rep("AbCdEfGhIj0123456789_~.", 34), rep("AbCdEfGhIj0123456789_~.", 34)},
	{"mapbox", "sk.eyJ1IjoibWFwYm94In0." + rep("AbCdEfGhIj0123456789", 22), rep("AbCdEfGhIj0123456789", 22)},
	{"azure-account-key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;EndpointSuffix=core.windows.net", "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq"},
	{"azure-sharedaccesskey", "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=c2VjcmV0c2VjcmV0c2VjcmV0=", "c2VjcmV0c2VjcmV0c2VjcmV0"},
	{"ado-net", "Server=db;User Id=sa;Password=Tr0ub4dor&3;", "Tr0ub4dor"},
	{"db-password-env", "DB_PASSWORD=hunter22", "hunter22"},
	{"export-quoted", "export MYSQL_ROOT_PASSWORD='correct horse battery staple'", "correct horse battery staple"},
	{"yaml", "database:\n  password: Zx9!qW3#rT\n", "Zx9!qW3#rT"},
	{"yaml-env-value-first", "env:\n  - value: hunter2secret\n    name: DB_PASSWORD\n", "hunter2secret"},
	{"yaml-escaped-block", `log: "password: |\n  hunter2secret\n"`, "hunter2secret"},
	{"yaml-escaped-list", `log: "tokens:\n  - hunter2secret\n"`, "hunter2secret"},
	{"yaml-list-block-item", "passwords:\n  - |\n    hunter2secret\n", "hunter2secret"},
	{"json-api-key", `{"api_key": "abc def ghi 123"}`, "abc def ghi 123"},
	{"json-escaped-quote", `{"password":"pa\"ss word"}`, `pa\"ss word`},
	{"json-in-json", `{"body":"{\"client_secret\":\"s3cr3t-v4lue\"}"}`, "s3cr3t-v4lue"},
	{"x-api-key-header", "X-API-Key: 9f8e7d6c5b4a", "9f8e7d6c5b4a"},
	{"go-assign", `apiKey := "AbC123xyz"`, "AbC123xyz"},
	{"ruby-hash", `:auth_token => 'tok_998877'`, "tok_998877"},
	{"github-token-env", "GITHUB_TOKEN=ghs_" + rep("AbCdEfGhIj0123456789", 36), rep("AbCdEfGhIj0123456789", 36)},
	// Unicode case folding: (?i) folds ſ to s and K (Kelvin) to k.
	{"paren-in-password", "password=Pa55(word", "Pa55(word"},
	{"fold-long-s", "paſſword=hunter22", "hunter22"},
	{"fold-kelvin", "api_\u212aey=abcdefghij", "abcdefghij"},
	{"password-punctuation", "password: Tr0ub&4dorXQ", "4dorXQ"},
	{"passphrase", "my password: correct horse battery staple", "horse battery staple"},
	{"pass-key", `{"pass": "hunter2"}`, "hunter2"},
	{"passcode", "passcode=918273", "918273"},
	{"keypass", "keypass=Zx9Qw3Rt", "Zx9Qw3Rt"},
	{"client-key", "client_key: 9f8e7d6c5b4a", "9f8e7d6c5b4a"},
	{"privkey", "PRIVKEY=9f8e7d6c5b4a", "9f8e7d6c5b4a"},
	// walk48: secret key was no credential name (Django's SECRET_KEY).
	{"secret-key-env", "SECRET_KEY=abcdefgh123", "abcdefgh123"},
	{"secret-key-words", "Secret Key: Tr0ub4dor&3 and more", "Tr0ub4dor"},
	{"authorization-after-template", "Authorization: {{ .Values.secret }} realsecret123456", "realsecret123456"},
}

// benignCases look like secrets to a careless rule and must come back
// unchanged.
var benignCases = []string{
	"Can you remind me what we decided about the refund?",
	"The key point is that the token budget is 4096 tokens.",
	"Use Bearer authentication with an OAuth token for the API.",
	"She has a basic understanding of the password policy.",
	"The secret to a good sourdough is time.",
	"Passwords must be at least 12 characters long.",
	"max_tokens: 4096",
	"token_count=12345",
	"password_policy: strict",
	"password_reset_url=https://example.com/reset",
	"secretary: Anne",
	"token: true",
	"password: null",
	"Authorization is handled by the gateway.",
	"550e8400-e29b-41d4-a716-446655440000",
	"commit 3f786850e387550fdab836ed7e6dc881de23001b",
	"see a94a8fe5ccb19ba61c4c0873d391e987982fbbd3 for the fix",
	"aGVsbG8gd29ybGQ=",
	"data:image/png;base64,iVBORw0KGgo=",
	"https://example.com:8080/path/to/page?q=1&page=2#top",
	"https://en.wikipedia.org/wiki/Basic_access_authentication",
	"mailto:alice@example.com",
	"write to alice@example.com or bob.smith@mail.example.org",
	"git@github.com:mnemo-go/mnemo.git",
	"ssh://git@example.com/repo.git",
	"https://hooks.example.com/services/health",
	"skip_live_tests: yes",
	"task-force-alpha-team-meeting-notes",
	"npm_config_cache=/tmp/npm",
	"hf_hub_download(repo_id='gpt2')",
	"the sk_live_ prefix marks a live Stripe key",
	"ghp_ tokens are classic personal access tokens",
	"func (k *Keyring) Secret() string { return k.s }",
	"const secretLength = 32",
	"if err := validateToken(ctx, tok); err != nil {",
	"getPassword() returns the stored hash",
	"The monkey ate the key lime pie.",
	"They say the eyJ prefix means JSON.",
	"ASIA is a continent; Asia Pacific region",
	"ORD-01404 shipped on 2024-05-01T10:00:00Z",
	"version 1.2.3-rc.4+build.5",
	"Call +1 (555) 010-9999 ext. 42",
	"price: 12.50 EUR; qty: 3",
	"SELECT id, title FROM threads WHERE id = ?",
	"{\"name\": \"Alice\", \"city\": \"Lisbon\", \"tokens\": 512}",
	"The bearer of this letter is my friend.",
	// sec48: an OAuth token response's fields (RFC 6749 §5.1) were stored
	// "bearer [REDACTED]3600", and a YAML key with no value but a
	// comment lost the comment.
	"token_type=bearer expires_in=3600",
	"token_type: bearer\nexpires_in: 3600",
	"token_type=Bearer scope=read",
	"password: # rotated",
	"db:\n  password: # set in the vault\n  user: bob",
	"I'll -use the flag -u to update.",
	"keyboard: us-intl",
	"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
	"Visit https://discord.com/channels/123456789012345678/987654321",
	"const token = await fetchToken(user);",
	"password = request.form['password']",
	"api_key = os.environ['OPENAI_API_KEY']",
	"secret: process.env.SESSION_SECRET,",
	"token := cfg.Token",
	"self.token = token_from_header(req)",
	"pass: 42, fail: 0",
	"First pass: read the whole file, then edit.",
	"The compass: north by north-west.",
	"token: <your token here>",
	"password: <password>",
	`if password == "x" {`,
	"password: await getPassword(user)",
	"credentials:\n  user: bob",
	"note: password: ab\n  user: bob",
	"password: ab\n  the rest of the note",
	"passwords:\n  - |\n  user: bob",
	"- value: 8080\n  name: PORT",
	"- value: abc123def\n  name: HOST\n  other: DB_PASSWORD",
	`log: "description: |\n  the token expires\n"`,
	"- passphrases:\n  - \"\n",
	"- passphrases:\n  - ${\n",
	"passphrases:\n  - \"\n  - ${\n",
	`config=client_secret: >-\n    ${CLIENT_SECRET}\nuser: bob`,
	"https://x.io/search?q=passing+grades&page=2",
	"https://x.io/search?q=token:&page=2",
	"https://x.io/search?q=password=null&page=2",
	"https://x.io/search?q=password%3Dnull&page=2",
	"https://x.io/search?q=100%25+of+the+token%3F&page=2",
	"https://x.io/search?q=my%20password%3A%20%3Cpassword%3E",
	"Authorization: {{ .Values.token }} is set in 2024",
}

// TestRedactFormats checks every secret format of DefaultRules: the secret
// does not survive, the text around it does.
func TestRedactFormats(t *testing.T) {
	r := engine.DefaultRedactor()
	seen := map[string]bool{}
	for _, c := range secretCases {
		if seen[c.name] {
			t.Fatalf("duplicate case %s", c.name)
		}
		seen[c.name] = true
		got := r.Redact(c.text)
		if strings.Contains(got, c.secret) || !strings.Contains(got, engine.RedactionMark) {
			t.Errorf("%s: %q\n  redacted to %q, still holding %q", c.name, c.text, got, c.secret)
		}
		if again := r.Redact(got); again != got {
			t.Errorf("%s: redaction is not idempotent: %q -> %q", c.name, got, again)
		}
	}
	if len(secretCases) < 40 {
		t.Fatalf("%d secret formats, want at least 40", len(secretCases))
	}
}

// TestRedactNoFalsePositives checks that look-alikes of secrets in prose,
// code, identifiers, UUIDs, git SHAs, short base64 and URLs without
// credentials come back unchanged.
func TestRedactNoFalsePositives(t *testing.T) {
	r := engine.DefaultRedactor()
	for _, s := range benignCases {
		if got := r.Redact(s); got != s {
			t.Errorf("false positive:\n  %q\n  -> %q", s, got)
		}
	}
	if len(benignCases) < 40 {
		t.Fatalf("%d look-alikes, want at least 40", len(benignCases))
	}
}

// TestRedactJSONStaysValid sends JSON-shaped secrets through Append's
// tool-call arguments and metadata: what is stored is valid JSON with the
// secret gone and the other fields intact.
func TestRedactJSONStaysValid(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		args := []string{
			`{"password":"hunter2 with spaces","city":"Paris"}`,
			`{"password": 12345678, "city": "Paris"}`,
			`{"auth":{"api_key":"abc\"def\\ghi"},"city":"Paris"}`,
			`{"note":"Authorization: Bearer abc.def.ghi123","city":"Paris"}`,
			`{"dsn":"postgres://admin:p@ss\"w@host/db","city":"Paris"}`,
			`{"list":["sk-` + rep("abcdef", 30) + `",{"token":"t0k3n-value"}],"city":"Paris"}`,
		}
		for i, a := range args {
			ctx, e := t.Context(), be.MustOpen(t, engine.Config{})
			msg := engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: "login", Arguments: json.RawMessage(a)}},
				Metadata: map[string]any{"raw": json.RawMessage(a)}}
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{msg}}); err != nil {
				t.Fatalf("args %d: %v", i, err)
			}
			ms, err := e.Messages(ctx, "t", 1, 0)
			if err != nil || len(ms) != 1 {
				t.Fatalf("args %d: %v %d", i, err, len(ms))
			}
			stored := ms[0].ToolCalls[0].Arguments
			md, _ := json.Marshal(ms[0].Metadata)
			for _, b := range [][]byte{stored, md} {
				if !json.Valid(b) {
					t.Fatalf("args %d: stored invalid JSON %s", i, b)
				}
				for _, leak := range []string{"hunter2", "12345678", `abc\"def`, "ghi123", "ss\\\"w", "abcdefabcdef", "t0k3n"} {
					if strings.Contains(string(b), leak) {
						t.Errorf("args %d: %q survived in %s", i, leak, b)
					}
				}
				if !strings.Contains(string(b), "Paris") {
					t.Errorf("args %d: ordinary field lost: %s", i, b)
				}
			}
		}
	})
}

// TestRedactSecretKeys: tool-call arguments whose keys are secrets (two
// AWS access key ids used as keys) are stored with each key (and its
// value) redacted and no key repeated: "[REDACTED]", "[REDACTED] 2", by
// the keys' order, the
// same every time, so sending the message again is a duplicate, not a
// conflict. Before, the text redaction made {"[REDACTED]":1,"[REDACTED]":2},
// an object repeating a key, which a reader keeps one of and which Append
// refused when the stored call was sent again as read.
func TestRedactSecretKeys(t *testing.T) {
	ctx := t.Context()
	e := enginetest.MustOpen(t, engine.Config{})
	args := json.RawMessage(`{"AKIAIOSFODNN7EXAMPLE":1,"AKIAI44QH8DHBEXAMPLE":2,"region":"eu"}`)
	msgs := []engine.Message{{ID: "m1", Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "c1", Name: "keys", Arguments: args}}}}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	got, err := e.Messages(ctx, "t", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	stored := string(got[0].ToolCalls[0].Arguments)
	m := engine.RedactionMark
	want := `{"` + m + `":"` + m + `","` + m + ` 2":"` + m + `","region":"eu"}` // a secret key's value is redacted too
	if stored != want {
		t.Fatalf("stored arguments %s, want %s", stored, want)
	}
	again := []engine.Message{{ID: "m1", Role: "assistant", ToolCalls: got[0].ToolCalls}}
	for _, m := range [][]engine.Message{msgs, again} {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: m}); err != nil {
			t.Errorf("sent again: %v, want a duplicate", err)
		}
	}
}
