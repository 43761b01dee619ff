package inspector

import (
	"fmt"
	"math"
	"net/http"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// The pages read their queries as the API reads its own (server.CheckQuery,
// server.IntParam, server.PageCursor): an unknown or repeated parameter, an
// empty value or an integer out of range is a 400 page naming the
// parameter, never ignored or read as left out.

// indexQuery reads the index page's query as GET /v1/threads reads it:
// limit (1 to engine.MaxPageLimit; absent: 0, engine.DefaultPageLimit),
// cursor (a NextCursor; not empty, not beside offset) and the deprecated
// offset (0 to math.MaxInt32). Errors: the API's 400 naming the parameter.
func indexQuery(r *http.Request) (limit int, cursor string, offset int, err error) {
	if err = server.CheckQuery(r, "GET /ui/", []string{"limit", "cursor", "offset"}); err != nil {
		return 0, "", 0, err
	}
	l, err := server.IntParam(r, "limit", 0, 1, engine.MaxPageLimit)
	if err != nil {
		return 0, "", 0, err
	}
	o, err := server.IntParam(r, "offset", 0, 0, math.MaxInt32)
	if err != nil {
		return 0, "", 0, err
	}
	if cursor, err = server.PageCursor(r.URL.Query()); err != nil {
		return 0, "", 0, err
	}
	return int(l), cursor, int(o), nil
}

// threadQuery reads the thread page's query: beforeSeq (>= 1; absent: 0,
// the newest page), as GET /v1/threads/{thread}/messages reads it.
// Errors: the API's 400 naming the parameter.
func threadQuery(r *http.Request) (beforeSeq int64, err error) {
	if err := server.CheckQuery(r, "GET /ui/threads/{thread}", []string{"beforeSeq"}); err != nil {
		return 0, err
	}
	return server.IntParam(r, "beforeSeq", 0, 1, math.MaxInt64)
}

// runQuery reads the run page's query: without, given once for each part
// the replay leaves out (recalled, observations, workingMemory; BuildRun
// refuses another, and one given twice); none replays the run as recorded. Errors: the API's
// 400 naming the parameter.
func runQuery(r *http.Request) (without []string, err error) {
	if err := server.CheckQuery(r, "GET /ui/runs/{run}", []string{"without"}, "without"); err != nil {
		return nil, err
	}
	return r.URL.Query()["without"], nil
}

// loginQuery reads the sign-in page's query: next, the page to go to once
// signed in (absent: "/ui/"), a local path of the inspector (localNext:
// under /ui/, no scheme or host, no backslash, control byte or dot
// segment). Errors: the API's 400 naming the parameter (server.CheckQuery:
// unknown, repeated or empty), and a *engine.ValidationError naming
// "next" for any other next (?next=https://evil.example/ was dropped for
// /ui/ silently).
func loginQuery(r *http.Request) (next string, err error) {
	if err := server.CheckQuery(r, "GET /ui/login", []string{"next"}); err != nil {
		return "", err
	}
	next = r.URL.Query().Get("next")
	switch {
	case next == "":
		return "/ui/", nil
	case !localNext(next):
		return "", &engine.ValidationError{Index: -1, Field: "next", Rule: fmt.Sprintf("must be a path of this inspector (under /ui/, no scheme or host, no backslash or dot segment), got %q", next)}
	}
	return next, nil
}
