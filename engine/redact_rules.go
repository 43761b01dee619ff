package engine

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// DefaultRules are the rules of DefaultRedactor, in the order they run.
// Each names the public documentation of the format it recognises. They
// cover:
//
//   - private-key blocks (PEM, OpenPGP, OpenSSH), their BEGIN and END
//     lines also wrapped, and JSON Web Tokens;
//   - passwords and tokens given to a command on its command line
//     (--password X, docker login -p X, mysql -pX: cliRules);
//   - HTTP credentials: Authorization/Proxy-Authorization headers of any
//     scheme, Bearer tokens, Basic credentials (verified by decoding),
//     `curl -u user:password`, the auth field of Docker's config.json and
//     npm's _auth (verified by decoding), the values of a Cookie or
//     Set-Cookie header line, of curl -b name=value, document.cookie =
//     and a cookies map (cookieRules);
//   - a PuTTY key file's private lines and MAC (puttyRule);
//   - credential files: a .netrc entry's password, a YAML block list,
//     block scalar or plain scalar under a credential name, a Kubernetes
//     env entry's value, a one-word value continued on more indented
//     lines, also with the YAML's line breaks escaped as in a log line
//     (fileRules);
//   - credentials in URLs (scheme://user:password@host, the password up to
//     the last '@' before the path) and credential query parameters
//     (token=, access_token=, key=, sig=, X-Amz-Signature=, …);
//   - assignments whose name ends in a credential word (password, passwd,
//     passphrase, passcode, pwd, DB_PASS, "pass", keypass, secret, token,
//     creds, credentials, api/access/private/account/auth/app/client/
//     service/db/secret key, contraseña; Passwort, Kennwort, mot de
//     passe, senha, wachtwoord: foreignNames): NAME=value, NAME: value,
//     "name": "value" (JSON, also escaped inside a JSON string),
//     name => value, name := value, ?name=value in a URL query (and in
//     a query value, also percent-encoded: ?q=password%3Dx); a quoted
//     value is replaced to its closing quote, a bare one to the next blank
//     (after a colon, to the end of the line; in a URL query, to '&') —
//     DB_PASSWORD=…, Azure AccountKey=…;…, ADO.NET Pwd=…; a Markdown
//     list's or heading's label followed by a sentence of ordinary words
//     keeps it ("3. **Check credentials**: Look for …": labelProse);
//   - vendor tokens with a documented prefix: OpenAI/Anthropic/OpenRouter
//     sk-…, Stripe sk_/rk_live|test_ and whsec_, AWS access key ids,
//     GitHub, GitLab, Hugging Face, npm, PyPI, Slack tokens and webhook
//     URLs, Discord webhook URLs, Google API keys, OAuth client secrets and
//     access tokens, SendGrid, Shopify, DigitalOcean, Databricks,
//     Atlassian, Square, Grafana, Docker Hub, Doppler, Postman, Linear,
//     Notion, Mailchimp, Groq, xAI, Replicate, Perplexity, Sentry,
//     HashiCorp Vault and Terraform Cloud, Heroku, New Relic, age, Azure AD
//     client secrets, Mapbox;
//   - a PIN of 4 to 8 digits after PIN and a colon or '=' (pinRule);
//   - payment card numbers (Visa, Mastercard, American Express, Discover,
//     JCB, Diners Club, UnionPay, Mir), Luhn-checked (cardRule).
//
// Formats with no recognisable shape (a bare 32-hex Twilio auth token, a
// password in prose without "password=" or "password:") are not found by
// any rule.
//
// Each call returns new rules the caller may change: the patterns are
// compiled once per process (compiling them took ~2 ms and 0.5 MB at
// every engine Open, BENCHMARKS.md "Open: the damaged-embedding scan on
// SQLite") and each returned Rule holds its own copy of its Regexp (as
// Regexp.Copy makes: Longest on it changes no other) and of its Triggers.
func DefaultRules() []Rule {
	compiled := defaultRules()
	rules := make([]Rule, len(compiled))
	for i, r := range compiled {
		re := *r.Pattern
		r.Pattern, r.Triggers = &re, slices.Clone(r.Triggers)
		rules[i] = r
	}
	return rules
}

// defaultRules compiles the rules of DefaultRules once; they are never
// handed out, only copies of them.
var defaultRules = sync.OnceValue(func() []Rule {
	rules := append(structuralRules(), vendorRules()...)
	rules = append(rules, cardRule())
	rules = append(rules, fileRules()...)
	rules = append(rules, puttyRule())
	rules = append(rules, cliRules()...)
	rules = append(rules, assignmentRules()...)
	// After the assignments: a cookie's value may hold a credential name
	// and its value (sid=x;password: y), which that rule must see first.
	return append(rules, cookieRules()...)
})

var mustRe = regexp.MustCompile

// structuralRules recognise secrets by their framing: key blocks, tokens
// with a fixed structure, HTTP credentials, URLs.
func structuralRules() []Rule {
	return []Rule{
		// RFC 7468 (PEM "-----BEGIN … PRIVATE KEY-----"), RFC 4880 §6.2
		// (OpenPGP "PRIVATE KEY BLOCK"), OpenSSH PROTOCOL.key. A block cut
		// before its END line is redacted to the end of the text. The
		// words of the BEGIN and END lines may be apart by blanks and line
		// breaks, as a chat's wrapping or a careless copy leaves them
		// (-----BEGIN RSA PRIVATE\nKEY-----, ----- BEGIN … -----): before
		// (red62), such a block was stored whole. Every match holds
		// PRIVATE whole: "private", not "begin" (every begin of prose
		// and code) nor "private key" (PRIVATE\nKEY), triggers it.
		{Name: "private-key", Pattern: mustRe(`-----[ \t]*BEGIN[A-Z0-9\s]*PRIVATE\s+KEY(?:\s+BLOCK)?[ \t]*-----[\s\S]*?(?:-----[ \t]*END[A-Z0-9\s]*PRIVATE\s+KEY(?:\s+BLOCK)?[ \t]*-----|\z)`),
			Replacement: RedactionMark, Triggers: []string{"private"}},
		// RFC 7519 §3 and RFC 7515 §7.1: base64url(header).base64url(claims).
		// base64url(signature); a JSON header and claims set start with
		// "ey" ("{" and a quote or space). An unsecured JWT has an empty
		// signature.
		{Name: "jwt", Pattern: mustRe(leftEdge + `ey[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*`),
			Replacement: "${edge}" + RedactionMark, Triggers: []string{".ey"}},
		// RFC 6750 §2.1: "Bearer" b64token. Verified to hold a digit or a
		// b64token symbol, so "Bearer authentication" stays, and not to be
		// an assignment (bearerToken), so an OAuth response's
		// token_type=bearer expires_in=3600 (RFC 6749 §5.1) stays; the
		// token is on the scheme's line (token_type: bearer, then
		// expires_in: 3600 on the next line, stays). The match takes '='
		// anywhere in the run, so that the token's padding and whatever
		// a sloppy writer put after it go with it (walk48 F2: "Bearer
		// dGhp…Vu==." and "Bearer Zm9v…V4=Zm9vYmFy" were kept whole when
		// the match had to end at the padding).
		{Name: "bearer", Pattern: mustRe(`(?i)\b(bearer)[ \t]+[A-Za-z0-9\-._~+/][A-Za-z0-9\-._~+/=]{7,}`),
			Replacement: "${1} " + RedactionMark, Triggers: []string{"bearer"}, Verify: bearerToken},
		// RFC 9110 §11.6.2 Authorization and §11.7.2 Proxy-Authorization,
		// any scheme (Basic RFC 7617, Digest RFC 7616, GitHub's "token");
		// a value that is a reference ($TOKEN, ${{ secrets.X }}) stays.
		// A template ({{ … }}, ${{ … }}) is taken whole, blanks and all,
		// and kept when it is a reference: cut at its first blank it was
		// too short for a value, and the scheme word was taken for the
		// secret (sec48: Bearer ${{ secrets.X }} lost "Bearer").
		// A word holding a digit after the template goes with it, and
		// the match is then no reference (walk48:
		// Authorization: {{ .Values.secret }} realsecret123456 kept it).
		{Name: "authorization-header", Pattern: mustRe(`(?i)\b((?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:[A-Za-z][A-Za-z0-9_-]*\s+)?)(?:\$?\{\{[^{}\r\n]*\}\}` + headerByte + `*(?:[ \t]+` + headerByte + `*[0-9]` + headerByte + `*)?|` + headerByte + `{4,})`),
			Replacement: "${1}" + RedactionMark, Triggers: []string{"authorization"}, Verify: notReference},
		// RFC 7617 §2: "Basic" base64(user-id ":" password) outside a
		// header; verified by decoding to printable text with a colon.
		{Name: "basic-auth", Pattern: mustRe(`(?i)\b(basic)\s+[A-Za-z0-9+/]{8,}={0,2}`),
			Replacement: "${1} " + RedactionMark, Triggers: []string{"basic"}, Verify: basicCredentials},
		// Docker's config.json ("docker login": auths.<registry>.auth) and
		// npm's .npmrc (_auth): base64 of user:password, as Basic
		// credentials are. Decided by decoding, not by the name alone
		// ("auth": "oauth2" stays): verified as basic-auth is.
		{Name: "auth-field", Pattern: mustRe(`(?i)\b(_?auth\\?["']?[ \t]*[:=][ \t]*\\?["']?)[A-Za-z0-9+/]{8,}={0,2}`),
			Replacement: "${1}" + RedactionMark, Triggers: []string{"auth"}, Verify: authField},
		// curl(1): -u/--user user:password.
		{Name: "curl-user", Pattern: mustRe(`(\s-u\s*|\s--user[=\s]\s*)(['"]?)(?:[^\s:'"\\]|\\[^nr\s:'"])+:(?:[^\s'"\\]|\\[^nr\s'"])+`),
			Replacement: "${1}${2}" + RedactionMark, Triggers: []string{"-u"}},
		// RFC 3986 §3.2.1 userinfo "user:password@". The password runs to the
		// last '@' before the path, query or fragment, so an unescaped '@'
		// in it (postgres://admin:p@ss@host) is covered.
		{Name: "url-credentials", Pattern: mustRe(`([a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s:@]*:[^/\s?#]*@`),
			Replacement: "${1}" + RedactionMark + "@", Triggers: []string{"://"}},
		// Credential parameters in URLs and forms: OAuth 2.0 (RFC 6749
		// §4.2.2, §6) tokens, AWS SigV4 presigned URLs (X-Amz-Signature,
		// X-Amz-Credential, X-Amz-Security-Token), Azure SAS (sig=), API keys.
		{Name: "url-param", Pattern: mustRe(`(?i)([?&;](?:access_token|refresh_token|id_token|token|api_key|apikey|key|sig|signature|secret|client_secret|password|passwd|passcode|pass|pwd|x-amz-signature|x-amz-credential|x-amz-security-token)=)` + queryByte + `+`),
			Replacement: "${1}" + RedactionMark, Triggers: []string{"token=", "key=", "sig=", "signature=", "secret=", "passw", "pass=", "passcode=", "pwd=", "credential="}},
		// Slack, "Sending messages using incoming webhooks" and Workflow
		// Builder triggers: the path is the secret.
		{Name: "slack-webhook", Pattern: mustRe(`(?i)(https?://hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9_/+-]+`),
			Replacement: "${1}" + RedactionMark, Triggers: []string{"hooks.slack.com/"}},
		// Discord, "Webhook resource": /webhooks/{webhook.id}/{webhook.token}.
		{Name: "discord-webhook", Pattern: mustRe(`(?i)(https?://(?:(?:canary|ptb)\.)?discord(?:app)?\.com/api(?:/v\d+)?/webhooks/\d+/)[A-Za-z0-9_-]+`),
			Replacement: "${1}" + RedactionMark, Triggers: []string{"/webhooks/"}},
	}
}

// leftEdge is where a token may start (group edge, kept by the
// replacement: Go's regexp has no look-behind): the start of the text, a
// character that is no ASCII letter or digit, '_' included (a name glued
// to the token: OPENAI_KEY_sk-…, my_AKIA…), or a JSON escape that ends in
// a letter or digit (\n, \t, \r, \b, \f, \u000a), as in JSON text a token
// on its own line follows "\n". Before, the rules began with \b, which
// none of these is before a letter: a tool result
// {"stdout":"ghp_…1\nghp_…2\n"} kept the second token.
const leftEdge = `(?P<edge>^|[^A-Za-z0-9]|\\[nrtbf]|\\u[0-9A-Fa-f]{4})`

// bareByte is one character of a bare value that runs to the next blank:
// no blank, and no line break escaped as two characters (\n, \r), as a
// JSON or logfmt string in other text writes one: the value ends there
// and the next line is kept. A backslash before another character is
// taken with it (\\ is one escaped backslash).
const bareByte = `(?:[^\s\\]|\\[^nr\s])`

// headerByte is one character of an Authorization header's value: no
// blank, quote, ',' or ';', and no escaped line break (bareByte).
const headerByte = `(?:[^\s"',;\\]|\\[^nr\s"',;])`

// queryByte is one character of a URL query value: no '&', '#', quote or
// blank, and no escaped line break (bareByte).
const queryByte = `(?:[^&\s#"'\\]|\\[^nr\s#"'&])`

// vendor is a token with a documented fixed prefix; pattern is its
// alternatives, each after leftEdge, and the whole token is replaced.
func vendor(name, pattern string, triggers ...string) Rule {
	return Rule{Name: name, Pattern: mustRe(leftEdge + `(?:` + pattern + `)`), Replacement: "${edge}" + RedactionMark + "${right}", Triggers: triggers, again: true}
}

// rightEdge ends a token whose characters exclude '_' (a fixed-length
// AWS key id, an npm token): a word boundary, or a '_' that glues a word
// to it on the right (AKIA…_old), kept by the replacement (group right).
// Before, such tokens ended in \b, which a '_' after them is not, so
// AKIA…_old was kept. A token whose characters include '_' (Google API
// keys, SendGrid) still ends in \b: its last characters and a glued word
// cannot be told apart.
const rightEdge = `(?:\b|(?P<right>_))`

// vendorRules recognise tokens by their documented prefixes, one vendor
// family after the other (the order in which they run).
func vendorRules() []Rule {
	var rules []Rule
	for _, family := range []func() []Rule{apiKeyRules, devPlatformRules, saasRules, infraRules} {
		rules = append(rules, family()...)
	}
	return rules
}

// apiKeyRules recognise the API keys of model providers and payments:
// OpenAI, Anthropic, OpenRouter, Stripe.
func apiKeyRules() []Rule {
	return []Rule{
		// OpenAI "API keys" (sk-…, sk-proj-…), Anthropic (sk-ant-api03-…),
		// OpenRouter (sk-or-v1-…).
		vendor("api-key", `(?:sk|pk|rk)-(?:[A-Za-z0-9_-]+-)?[A-Za-z0-9_-]{16,}`, "sk-", "pk-", "rk-"),
		// Stripe "API keys": secret sk_live_/sk_test_, restricted
		// rk_live_/rk_test_; "Webhooks": signing secret whsec_.
		vendor("stripe", `(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}`, "k_live_", "k_test_"),
		vendor("stripe-webhook-secret", `whsec_[0-9A-Za-z+/=]{20,}`, "whsec_"),
	}
}

// devPlatformRules recognise the tokens of cloud and developer platforms:
// AWS, GitHub, GitLab, Hugging Face, npm, PyPI, Slack.
func devPlatformRules() []Rule {
	return []Rule{
		// AWS IAM "Unique identifier prefixes": AKIA (access key), ASIA
		// (temporary), ABIA, ACCA.
		vendor("aws-access-key-id", `(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}`+rightEdge, "akia", "asia", "abia", "acca"),
		// GitHub "About authentication to GitHub": ghp_, gho_, ghu_, ghs_,
		// ghr_, github_pat_.
		vendor("github-token", `(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}`, "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
		// GitLab "Token prefixes".
		vendor("gitlab-token", `gl(?:pat|dt|rt|rtr|ptt|ft|imt|cbt|oas|agent|soat|ffct|wt)-[0-9A-Za-z_-]{20,}`,
			"glpat-", "gldt-", "glrt-", "glrtr-", "glptt-", "glft-", "glimt-", "glcbt-", "gloas-", "glagent-", "glsoat-", "glffct-", "glwt-"),
		// Hugging Face "User access tokens": hf_ and 34 letters.
		vendor("huggingface-token", `hf_[A-Za-z0-9]{30,}`+rightEdge, "hf_"),
		// npm "About access tokens": npm_ and 36 base62 characters.
		vendor("npm-token", `npm_[A-Za-z0-9]{36}`+rightEdge, "npm_"),
		// PyPI "API tokens": pypi- and a macaroon ("AgE…").
		vendor("pypi-token", `pypi-AgE[A-Za-z0-9_-]{50,}`, "pypi-age"),
		// Slack "Token types": xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-,
		// xoxo-; app-level xapp-.
		vendor("slack-token", `xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,}`, "xox", "xapp-"),
	}
}

// saasRules recognise the tokens of hosted services: Google, SendGrid,
// Shopify, DigitalOcean, Databricks, Atlassian, Square, Grafana, Docker Hub,
// Doppler, Postman, Linear, Notion, Mailchimp.
func saasRules() []Rule {
	return []Rule{
		// Google Cloud "API keys" (AIza…), OAuth client secrets (GOCSPX-),
		// OAuth 2.0 access tokens (ya29.) and refresh tokens (1//0…).
		vendor("google-api-key", `AIza[0-9A-Za-z_-]{35}\b`, "aiza"),
		vendor("google-oauth", `GOCSPX-[0-9A-Za-z_-]{24,}|ya29\.[0-9A-Za-z_-]{20,}|1//0[0-9A-Za-z_-]{30,}`, "gocspx-", "ya29.", "1//0"),
		// SendGrid "API keys": SG.<22>.<43>.
		vendor("sendgrid", `SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b`, "sg."),
		// Shopify "Access tokens": shpat_, shpca_, shppa_, shpss_ and 32 hex.
		vendor("shopify", `shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`+rightEdge, "shpat_", "shpca_", "shppa_", "shpss_"),
		// DigitalOcean "Personal access tokens": dop_v1_, doo_v1_, dor_v1_.
		vendor("digitalocean", `do[por]_v1_[a-f0-9]{64}`+rightEdge, "_v1_"),
		// Databricks "Personal access tokens": dapi and 32 hex.
		vendor("databricks", `dapi[a-f0-9]{32}(?:-\d+)?`+rightEdge, "dapi"),
		// Atlassian "API tokens": ATATT3….
		vendor("atlassian", `ATATT3[A-Za-z0-9_=-]{20,}`, "atatt3"),
		// Square "Access tokens": sq0atp-, sq0csp-.
		vendor("square", `sq0(?:atp|csp)-[0-9A-Za-z_-]{22,}`, "sq0"),
		// Grafana Cloud access policy tokens (glc_) and service account
		// tokens (glsa_).
		vendor("grafana", `glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`+rightEdge, "glc_", "glsa_"),
		// Docker Hub "Personal access tokens" and organisation tokens.
		vendor("docker-hub", `dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}`, "dckr_"),
		// Doppler "Token formats": dp.pt., dp.st., dp.sa., dp.ct., dp.scim.,
		// dp.audit.
		vendor("doppler", `dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}`, "dp."),
		// Postman "API keys": PMAK-<24 hex>-<34 hex>.
		vendor("postman", `PMAK-[a-f0-9]{24}-[a-f0-9]{34}`+rightEdge, "pmak-"),
		// Linear "API": personal keys lin_api_.
		vendor("linear", `lin_api_[A-Za-z0-9]{40}`+rightEdge, "lin_api_"),
		// Notion "Authorization": integration tokens ntn_ (and the older
		// secret_ with 43 characters).
		vendor("notion", `ntn_[A-Za-z0-9]{40,}`+rightEdge+`|secret_[A-Za-z0-9]{43}`+rightEdge, "ntn_", "secret_"),
		// Mailchimp Marketing API keys: 32 hex and the data centre (-us6).
		vendor("mailchimp", `[0-9a-f]{32}-us\d{1,2}`+rightEdge, "-us"),
	}
}

// infraRules recognise the tokens of further model providers, monitoring
// and infrastructure: Groq, xAI, Replicate, Perplexity, Sentry, HashiCorp
// Vault and Terraform Cloud, Heroku, New Relic, age, Azure AD, Mapbox.
func infraRules() []Rule {
	return []Rule{
		// Groq (gsk_), xAI (xai-), Replicate (r8_), Perplexity (pplx-) API keys.
		vendor("llm-provider-key", `gsk_[A-Za-z0-9]{40,}`+rightEdge+`|xai-[A-Za-z0-9]{60,}`+rightEdge+`|r8_[A-Za-z0-9]{30,}`+rightEdge+`|pplx-[A-Za-z0-9]{40,}`+rightEdge, "gsk_", "xai-", "r8_", "pplx-"),
		// Sentry "Auth tokens": sntrys_ (organisation), sntryu_ (user).
		vendor("sentry", `sntry[su]_[A-Za-z0-9+/=_-]{40,}`, "sntry"),
		// HashiCorp Vault "Tokens": service hvs., batch hvb., recovery hvr.
		vendor("vault-token", `hv[sbr]\.[A-Za-z0-9_-]{24,}`, "hvs.", "hvb.", "hvr."),
		// Terraform Cloud / HCP Terraform API tokens: <14>.atlasv1.<…>.
		vendor("terraform-cloud", `[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}`, ".atlasv1."),
		// Heroku "API tokens" (HRKU-…).
		vendor("heroku", `HRKU-[A-Za-z0-9_-]{20,}`, "hrku-"),
		// New Relic "API keys": user keys NRAK- and 27 characters.
		vendor("newrelic", `NRAK-[A-Z0-9]{27}`+rightEdge, "nrak-"),
		// age (age-encryption.org/v1): Bech32 "AGE-SECRET-KEY-1…".
		vendor("age-secret-key", `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`+rightEdge, "age-secret-key-1"),
		// Microsoft Entra ID (Azure AD) client secrets: three characters, a
		// digit, "Q~", then 31–34 characters.
		vendor("azure-ad-client-secret", `[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}`, "q~"),
		// Mapbox "Access tokens": secret tokens sk.eyJ….
		vendor("mapbox-secret", `sk\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{20,}`, "sk.eyj"),
	}
}

// tokenLike reports whether the token after a scheme word holds a digit or
// one of the b64token symbols, as generated tokens do and words do not.
func tokenLike(match string) bool {
	f := strings.Fields(match)
	tok := f[len(f)-1]
	return strings.ContainsAny(tok, "0123456789-._~+/=")
}

// bearerToken reports whether the run after "Bearer" is a token: it is
// tokenLike, and not an assignment whose name holds no digit (in
// token_type=bearer expires_in=3600 the run is "expires_in=3600": sec48
// found it stored "bearer [REDACTED]3600"; a base64 token with '=' inside
// it, "Zm9vYmFyYmF6cXV4=Zm9v", holds digits before it).
func bearerToken(match string) bool {
	if !tokenLike(match) {
		return false
	}
	f := strings.Fields(match)
	tok := f[len(f)-1]
	i := strings.IndexByte(tok, '=')
	if i <= 0 || i+1 == len(tok) || !isAlnum(tok[i+1]) {
		return true // no '=', or padding: nothing or no word after it
	}
	return strings.ContainsAny(tok[:i], "0123456789")
}

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return 'a' <= lowerByte[c] && lowerByte[c] <= 'z' || '0' <= c && c <= '9'
}

// basicCredentials reports whether the token after "Basic" decodes to
// credentials (userPassword).
func basicCredentials(match string) bool {
	f := strings.Fields(match)
	return userPassword(f[len(f)-1])
}

// authField reports whether the value of an auth or _auth field (the
// base64 run that ends match) decodes to credentials (userPassword).
func authField(match string) bool {
	// The padding ('=') is no separator: cut before the last separator of
	// the match without it (walk47 F1: "auth":"Ym9iOlMzY3JldA==" was cut
	// after its last '=' to "", which decodes to nothing, and kept).
	return userPassword(match[strings.LastIndexAny(strings.TrimRight(match, "="), `"':= \t\`)+1:])
}

// userPassword reports whether tok decodes (RFC 4648 base64, padded or
// not) to printable text holding a colon, as user:password does.
func userPassword(tok string) bool {
	b, err := base64.StdEncoding.DecodeString(tok)
	if err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(tok, "=")); err != nil {
			return false
		}
	}
	s := string(b)
	if !utf8.ValidString(s) || !strings.Contains(s, ":") {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
