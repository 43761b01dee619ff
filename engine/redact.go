package engine

import (
	"regexp"
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
type Rule struct {
	Name        string
	Pattern     *regexp.Regexp
	Replacement string
}

// PatternRedactor applies its rules in order. It is safe for concurrent use.
type PatternRedactor struct {
	Rules []Rule
}

// Redact applies every rule to s.
func (r *PatternRedactor) Redact(s string) string {
	for _, rule := range r.Rules {
		s = rule.Pattern.ReplaceAllString(s, rule.Replacement)
	}
	return s
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
		{"private-key", m(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`), RedactionMark},
		{"bearer", m(`(?i)\b(bearer)\s+[A-Za-z0-9\-._~+/]{8,}=*`), "${1} " + RedactionMark},
		{"api-key", m(`\b(sk|pk|rk)-(?:[A-Za-z0-9_-]+-)?[A-Za-z0-9_-]{16,}`), RedactionMark},
		{"aws-access-key-id", m(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`), RedactionMark},
		{"aws-secret", m(`(?i)(aws_?secret_?access_?key\s*[=:]\s*"?)[A-Za-z0-9/+=]{40}`), "${1}" + RedactionMark},
		{"github-token", m(`\b(ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}`), RedactionMark},
		{"slack-token", m(`\bxox[abprs]-[A-Za-z0-9-]{10,}`), RedactionMark},
		{"google-api-key", m(`\bAIza[0-9A-Za-z_-]{35}\b`), RedactionMark},
		{"url-credentials", m(`([a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@`), "${1}" + RedactionMark + "@"},
		{"url-param", m(`(?i)([?&;](?:access_token|token|api_key|apikey|key|sig|signature|secret|password|passwd|pwd|x-amz-signature|x-amz-credential)=)[^&\s#"']+`), "${1}" + RedactionMark},
		{"assignment", m(`(?i)\b((?:api[_-]?key|secret|password|passwd|access[_-]?token|auth[_-]?token|client[_-]?secret)\s*[=:]\s*"?)[^\s"',;]{6,}`), "${1}" + RedactionMark},
	}
}

// DefaultRedactor returns a redactor with DefaultRules. Extend it with
// DefaultRedactor().With(rule…) or replace it through Config.Redactor.
func DefaultRedactor() *PatternRedactor {
	return &PatternRedactor{Rules: DefaultRules()}
}
