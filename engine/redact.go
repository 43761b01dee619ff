package engine

import (
	"regexp"
	"strings"
)

// Redactor removes secrets from text before it is stored. Implementations
// must be safe for concurrent use and deterministic (the same input gives the
// same output), since idempotent Append compares redacted content.
type Redactor interface {
	Redact(s string) string
}

// RedactorFunc adapts a function to Redactor.
type RedactorFunc func(string) string

// Redact calls f(s).
func (f RedactorFunc) Redact(s string) string { return f(s) }

// NoRedaction stores text unchanged.
var NoRedaction Redactor = RedactorFunc(func(s string) string { return s })

// RedactionMark replaces a secret.
const RedactionMark = "[REDACTED]"

// Rule is one redaction rule: every match of Pattern is replaced by
// Replacement, which may refer to submatches as in regexp.Expand ("${1}").
//
// Triggers, when set, is a cheap prefilter: the rule runs only when the
// text, lowercased (ASCII), contains at least one of them. Every match of
// Pattern must contain one of the Triggers in lowercase, or the rule would
// miss it; nil means the rule always runs. The prefilter exists because the
// regexes cost about 17 % of an Append on ordinary text that holds no
// secret (CPU profile of `mnemo bench`, BENCHMARKS.md).
type Rule struct {
	Name        string
	Pattern     *regexp.Regexp
	Replacement string
	Triggers    []string
}

// PatternRedactor applies its rules in order. It is safe for concurrent use.
type PatternRedactor struct {
	Rules []Rule
}

// Redact applies every rule to s; a rule with Triggers runs only when one
// of them occurs in s.
func (r *PatternRedactor) Redact(s string) string {
	var lower string
	lowered := false
	// ſ (U+017F) and K (U+212A) are the only non-ASCII runes that (?i)
	// folds to ASCII letters (s and k): with them, no rule is skipped.
	filter := !strings.ContainsAny(s, "\u017f\u212a")
	for _, rule := range r.Rules {
		if filter && len(rule.Triggers) > 0 {
			if !lowered {
				lower, lowered = asciiLower(s), true
			}
			if !containsAny(lower, rule.Triggers) {
				continue
			}
		}
		if out := rule.Pattern.ReplaceAllString(s, rule.Replacement); out != s {
			s, lowered = out, false
		}
	}
	return s
}

// asciiLower lowercases ASCII letters only, so byte offsets are kept and
// every (?i) ASCII match in s is a plain match in the result.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// With returns a redactor with r's rules followed by extra.
func (r *PatternRedactor) With(extra ...Rule) *PatternRedactor {
	return &PatternRedactor{Rules: append(append([]Rule(nil), r.Rules...), extra...)}
}

// DefaultRules are the rules of DefaultRedactor: bearer tokens, sk-… style
// API keys, AWS access key ids and secret keys, GitHub and Slack tokens,
// private-key blocks, credentials in URLs (user:password@host) and
// token=/key=/sig=/secret=/password= style URL and form parameters.
func DefaultRules() []Rule {
	m := regexp.MustCompile
	return []Rule{
		{"private-key", m(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`), RedactionMark, []string{"private key-----"}},
		{"bearer", m(`(?i)\b(bearer)\s+[A-Za-z0-9\-._~+/]{8,}=*`), "${1} " + RedactionMark, []string{"bearer"}},
		{"api-key", m(`\b(sk|pk|rk)-(?:[A-Za-z0-9_-]+-)?[A-Za-z0-9_-]{16,}`), RedactionMark, []string{"sk-", "pk-", "rk-"}},
		{"aws-access-key-id", m(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`), RedactionMark, []string{"akia", "asia"}},
		{"aws-secret", m(`(?i)(aws_?secret_?access_?key\s*[=:]\s*"?)[A-Za-z0-9/+=]{40}`), "${1}" + RedactionMark, []string{"secret"}},
		{"github-token", m(`\b(ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}`), RedactionMark, []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
		{"slack-token", m(`\bxox[abprs]-[A-Za-z0-9-]{10,}`), RedactionMark, []string{"xox"}},
		{"google-api-key", m(`\bAIza[0-9A-Za-z_-]{35}\b`), RedactionMark, []string{"aiza"}},
		{"url-credentials", m(`([a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@`), "${1}" + RedactionMark + "@", []string{"://"}},
		{"url-param", m(`(?i)([?&;](?:access_token|token|api_key|apikey|key|sig|signature|secret|password|passwd|pwd|x-amz-signature|x-amz-credential)=)[^&\s#"']+`), "${1}" + RedactionMark, []string{"="}},
		{"assignment", m(`(?i)\b((?:api[_-]?key|secret|password|passwd|access[_-]?token|auth[_-]?token|client[_-]?secret)\s*[=:]\s*"?)[^\s"',;]{6,}`), "${1}" + RedactionMark, []string{"key", "secret", "passw", "token"}},
	}
}

// DefaultRedactor returns a redactor with DefaultRules. Extend it with
// DefaultRedactor().With(rule…) or replace it through Config.Redactor.
func DefaultRedactor() *PatternRedactor {
	return &PatternRedactor{Rules: DefaultRules()}
}
