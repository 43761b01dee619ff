package server

import (
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// checkQuery refuses a query of a /v1 route as CheckQuery does, with the
// parameters the route documents. Only the /v1 routes are checked;
// /healthz, /metrics and /openapi.json take none and ignore any.
func checkQuery(rt *route, r *http.Request) error {
	if !strings.HasPrefix(rt.path, "/v1/") {
		return nil
	}
	names := make([]string, len(rt.query))
	for i, p := range rt.query {
		names[i] = p.name
	}
	return CheckQuery(r, rt.pattern(), names)
}

// CheckQuery refuses r's query as the /v1 routes do (and the inspector's
// pages, which call it): a parameter not among names (a misspelt ?from=
// was ignored, and the caller got the whole thread), and one of names
// given more than once (the first was used) unless repeatable lists it: a
// 400 naming the parameter and, for an unknown one, those page ("GET
// /v1/threads") takes; one given with no value (?resourceId= read as left
// out, so an empty resourceId listed every resource's runs): a 400 naming
// it; and a query string that does not parse (a ";" separator, a bad
// %-escape), whose pair URL.Query drops (so ?resourceId=R; read as no
// resourceId): a 400 saying it is malformed. The errors are the API's
// (Describe: status 400, Field the parameter). An empty query is nil.
func CheckQuery(r *http.Request, page string, names []string, repeatable ...string) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return errorf(kindInvalid, "", "malformed query string: %v", err)
	}
	given := make([]string, 0, len(q))
	for name := range q {
		given = append(given, name)
	}
	sort.Strings(given)
	for _, name := range given {
		if !slices.Contains(names, name) {
			return errorf(kindInvalid, name, "unknown query parameter %q: %s", name, takesWhat(page, names))
		}
		if len(q[name]) > 1 && !slices.Contains(repeatable, name) {
			return errorf(kindInvalid, name, "query parameter %q given %d times: give it once", name, len(q[name]))
		}
		if slices.Contains(q[name], "") {
			return errorf(kindInvalid, name, "query parameter %q is empty: give a value or leave it out", name)
		}
	}
	return nil
}

// takesWhat says which query parameters page takes.
func takesWhat(page string, names []string) string {
	if len(names) == 0 {
		return page + " takes no query parameter"
	}
	return page + " takes " + strings.Join(names, ", ")
}

// IntParam reads the integer query parameter name of r, from min to max;
// absent means def. A value that is not an integer or out of range is a
// 400 naming the parameter and its bounds (the upper one unless max is
// math.MaxInt64). The bounds are the CLI's for the same flag (mnemo
// messages --from, mnemo runs --limit). A number in range written with a
// sign or leading zeros (+5, 05, -0) is a 400 too, saying how to write it
// ("limit must be a whole number written without a sign: 5, not +5"), as
// a JSON body's number is refused (JSON has neither).
func IntParam(r *http.Request, name string, def, min, max int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case (err != nil || n < min) && max == math.MaxInt64:
		return 0, errorf(kindInvalid, name, "%s must be an integer >= %d, got %q", name, min, v)
	case err != nil || n < min || n > max:
		return 0, errorf(kindInvalid, name, "%s must be an integer from %d to %d, got %q", name, min, max, v)
	}
	if digits := strconv.FormatInt(n, 10); v != digits {
		how := "leading zeros"
		if v[0] == '+' || v[0] == '-' {
			how = "a sign"
		}
		return 0, errorf(kindInvalid, name, "%s must be a whole number written without %s: %s, not %s", name, how, digits, v)
	}
	return n, nil
}

// intParam is IntParam with no upper bound.
func intParam(r *http.Request, name string, def, min int64) (int64, error) {
	return IntParam(r, name, def, min, math.MaxInt64)
}
