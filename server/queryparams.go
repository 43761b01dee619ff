package server

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// checkQuery refuses a query parameter the route does not document (a
// misspelt ?from= was ignored, and the caller got the whole thread), and a
// documented one given more than once (the first was used): a 400 naming
// the parameter and the ones the route takes; and one given with no value
// (?resourceId= read as left out, so an empty resourceId listed every
// resource's runs): a 400 naming it; and a query string that does not
// parse (a ";" separator, a bad %-escape), whose pair URL.Query drops (so
// ?resourceId=R; read as no resourceId): a 400 saying it is malformed.
// Only the /v1 routes are checked; /healthz, /metrics and /openapi.json
// take none and ignore any.
func checkQuery(rt *route, r *http.Request) error {
	if !strings.HasPrefix(rt.path, "/v1/") || r.URL.RawQuery == "" {
		return nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return errorf(kindInvalid, "", "malformed query string: %v", err)
	}
	names := make([]string, 0, len(q))
	for name := range q {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !rt.takes(name) {
			return errorf(kindInvalid, name, "unknown query parameter %q: %s", name, rt.takesWhat())
		}
		if len(q[name]) > 1 {
			return errorf(kindInvalid, name, "query parameter %q given %d times: give it once", name, len(q[name]))
		}
		if q[name][0] == "" {
			return errorf(kindInvalid, name, "query parameter %q is empty: give a value or leave it out", name)
		}
	}
	return nil
}

// takes reports whether the route documents the query parameter name.
func (rt *route) takes(name string) bool {
	for _, p := range rt.query {
		if p.name == name {
			return true
		}
	}
	return false
}

// takesWhat says which query parameters the route takes.
func (rt *route) takesWhat() string {
	if len(rt.query) == 0 {
		return rt.pattern() + " takes no query parameter"
	}
	names := make([]string, len(rt.query))
	for i, p := range rt.query {
		names[i] = p.name
	}
	return rt.pattern() + " takes " + strings.Join(names, ", ")
}
