package main

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// errBadEndpoint marks a model endpoint (mnemo.json's observe.endpoint,
// OPENAI_BASE_URL, MNEMO_RERANK_BASE_URL) that cannot be used as the API
// root: one with credentials (user:password@), a query string or a
// fragment. Exit 2, before any call.
var errBadEndpoint = errors.New("bad model endpoint")

// checkEndpoint refuses (errBadEndpoint) a base URL the OpenAI-compatible
// clients append their paths to ("/chat/completions", "/embeddings") that
// holds a query string or fragment (the path would land after it:
// "…/v1?api-version=x/chat/completions") or userinfo (a credential stored
// or logged in clear). field names where it comes from; apiKey is where
// the key goes instead. The error never holds the URL's query, fragment or
// userinfo, only its scheme, host and path. "" (the default) passes.
func checkEndpoint(field, base, apiKey string) error {
	base = strings.TrimSpace(base)
	if base == "" {
		return nil
	}
	u, err := url.Parse(base)
	if err != nil { // url's error quotes the whole URL: not given
		return fmt.Errorf("%w: %s is not a URL (an http or https API root such as http://localhost:11434/v1)", errBadEndpoint, field)
	}
	var what string
	switch {
	case u.User != nil:
		what = "credentials (user:password@)"
	case u.RawQuery != "" || u.ForceQuery:
		what = "a query string (?…)"
	case u.Fragment != "" || strings.Contains(base, "#"):
		what = "a fragment (#…)"
	default:
		return nil
	}
	safe := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
	return fmt.Errorf("%w: %s holds %s: give the API root alone (%s) and the key in the environment variable %s; the request paths are appended to the endpoint, so a query or fragment breaks them",
		errBadEndpoint, field, what, safe, apiKey)
}
