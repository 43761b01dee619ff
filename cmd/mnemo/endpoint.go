package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/mnemo-go/mnemo/engine"
)

// errBadEndpoint marks a model endpoint (mnemo.json's observe.endpoint,
// OPENAI_BASE_URL, MNEMO_RERANK_BASE_URL) that cannot be used as the API
// root: one without an http or https scheme or a host, or with
// credentials (user:password@), a query string, a fragment (given or
// escaped in the path as %3F, %23), path parameters (;…), a port outside
// 1-65535, a host name beyond ASCII, or a path with a control character,
// a twice-escaped character, a name=value or what reads as a secret. Exit 2, before any
// call. The error is an *endpointError.
var errBadEndpoint = errors.New("bad model endpoint")

// exampleRoot is the API root the advice shows when it cannot derive one
// from the endpoint given.
const exampleRoot = "http://localhost:11434/v1"

// endpointError is a model endpoint checkEndpoint refuses: Field names
// where it comes from (a mnemo.json member or an environment variable),
// Fault what is wrong ("holds a query string (?…)"), and Advice what to
// do, in the words every command shares (main prints it as the "What to
// do:" line; a stored mnemo.json's refusal puts it first in its own).
// Neither holds the endpoint's credentials, query, fragment or
// parameters.
type endpointError struct {
	Field, Fault, Advice string
}

func (e *endpointError) Error() string {
	return fmt.Sprintf("%v: %s %s", errBadEndpoint, e.Field, e.Fault)
}

func (e *endpointError) Unwrap() error { return errBadEndpoint }

// checkEndpoint refuses (an *endpointError, errBadEndpoint) a base URL the
// OpenAI-compatible clients append their paths to ("/chat/completions",
// "/embeddings") that is no http or https URL of a host
// ("localhost:11434/v1" has no scheme; "ftp://…"; "http:///v1"), or that
// holds a query string, fragment or path parameters, given or escaped (the
// path would land after them: "…/v1?api-version=x/chat/completions", and
// a key in them would be sent and logged with every call) or userinfo (a
// credential stored or logged in clear). field names where it comes from;
// apiKey is where the key goes instead. The error never holds the URL's
// query, fragment, parameters or userinfo, only its scheme, host and the
// path before them. "" (the default) passes.
func checkEndpoint(field, base, apiKey string) error {
	base = strings.TrimSpace(base)
	if base == "" {
		return nil
	}
	fault, advice := endpointFault(field, base, apiKey)
	if fault == "" {
		return nil
	}
	return &endpointError{Field: field, Fault: fault, Advice: advice}
}

// endpointFault says what is wrong with base, the value of field, and
// what to do; "" when base is an API root.
func endpointFault(field, base, apiKey string) (fault, advice string) {
	if !schemeSlashes.MatchString(base) {
		return schemeFault(field, base)
	}
	u, err := url.Parse(base)
	switch {
	case err != nil: // url's error quotes the whole URL: not given
		return "is not a URL", fmt.Sprintf("give %s an http or https API root such as %s", field, exampleRoot)
	case u.Scheme != "http" && u.Scheme != "https": // Parse lowers it
		return fmt.Sprintf("has the scheme %q: a model is called over http or https only", u.Scheme),
			fmt.Sprintf("give %s an http or https API root such as %s", field, exampleRoot)
	case u.Host == "" || u.Hostname() == "":
		return "names no host", fmt.Sprintf("give %s the API root with its host, such as %s", field, exampleRoot)
	}
	if fault, advice := hostFault(field, u); fault != "" {
		return fault, advice
	}
	var what string
	switch {
	case u.User != nil:
		what = "credentials (user:password@)"
	case u.RawQuery != "" || u.ForceQuery:
		what = "a query string (?…)"
	case u.Fragment != "" || strings.Contains(base, "#"):
		what = "a fragment (#…)"
	case strings.ContainsAny(u.Path, "?#"):
		what = "an escaped query string or fragment (%3F or %23 in the path)"
	case strings.Contains(u.Path, ";"):
		what = "path parameters (;…)"
	case strings.ContainsFunc(u.Path, unicode.IsControl):
		what = "a control character in its path (%0A, %00…)"
	case strings.Contains(u.Path, "%"):
		what = "a character escaped twice in its path (%25…)"
	case strings.Contains(u.Path, "="):
		what = "a name=value in its path (a key?)"
	case secretPath(u.Path):
		what = "what reads as a secret in its path"
	default:
		return "", ""
	}
	return "holds " + what, fmt.Sprintf("give %s the API root alone (%s) and the key in the environment variable %s; "+
		"the request paths are appended to the endpoint, so a query, fragment or parameter breaks them", field, safeRoot(u), apiKey)
}

// schemeFault is endpointFault's for base, which does not begin with a
// scheme and "//": "http:/host/v1" (one slash; the advice said
// "http://http:/host/v1") or no scheme at all ("localhost:11434/v1").
func schemeFault(field, base string) (fault, advice string) {
	scheme, rest := "http", base
	fault = "has no scheme (http:// or https://)"
	if m := httpNoSlashes.FindStringSubmatch(base); m != nil {
		scheme, rest = strings.ToLower(m[1]), base[len(m[0]):]
		fault = fmt.Sprintf("has the scheme %s: without the two slashes that follow it (%s://)", scheme, scheme)
	}
	root := exampleRoot
	if u, err := url.Parse(scheme + "://" + rest); err == nil && u.Host != "" {
		root = safeRoot(u)
	}
	return fault, fmt.Sprintf("begin %s with http:// or https:// (%s; https for a server beyond this machine)", field, root)
}

// httpNoSlashes matches an http or https scheme followed by a colon and
// anything but the two slashes of an authority ("http:/", "https:").
var httpNoSlashes = regexp.MustCompile(`^(?i)(https?):/?`)

// hostFault is what is wrong with u's host: a port outside 1-65535
// (url.Parse takes any digits), or a name with characters beyond ASCII
// (full-width "ｌｏｃａｌｈｏｓｔ" was taken; the advice gives its NFKC
// form when that is ASCII: "localhost"). "" when it is sound.
func hostFault(field string, u *url.URL) (fault, advice string) {
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Sprintf("has the port %s: a port is 1 to 65535", p),
				fmt.Sprintf("give %s the API root with its server's port, such as %s", field, exampleRoot)
		}
	}
	host := u.Hostname()
	if isASCII(host) {
		return "", ""
	}
	fault = "has a host name with characters beyond ASCII"
	if h := norm.NFKC.String(host); isASCII(h) {
		v := *u
		v.Host = h
		if u.Port() != "" {
			v.Host = net.JoinHostPort(h, u.Port())
		}
		return fault, fmt.Sprintf("give %s its host in ASCII (%s)", field, safeRoot(&v))
	}
	return fault, fmt.Sprintf("give %s its host in ASCII (an international name in its punycode form, xn--…)", field)
}

func isASCII(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r > unicode.MaxASCII })
}

// secretPath reports whether path holds a name=value ("/v1/key=SECRET3")
// or anything else the default redactor changes ("/v1/sk-proj-…"): a key
// there would be sent and logged with every call, and the advice would
// echo it.
func secretPath(path string) bool {
	return strings.Contains(path, "=") || engine.DefaultRedactor().Redact(path) != path
}

// schemeSlashes matches a URL that begins with a scheme and "//" (RFC
// 3986's scheme syntax): "localhost:11434/v1" would parse with the scheme
// "localhost".
var schemeSlashes = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

// safeRoot is u's scheme, host and path up to the first '?', '#' or ';'
// (given or escaped): what may be shown of an endpoint.
//
// A path that holds a control character, a '%' or what reads as a secret
// is left out.
func safeRoot(u *url.URL) string {
	p := u.Path
	if i := strings.IndexAny(p, "?#;"); i >= 0 {
		p = p[:i]
	}
	if strings.ContainsFunc(p, unicode.IsControl) || strings.Contains(p, "%") || secretPath(p) {
		p = ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: p}).String()
}
