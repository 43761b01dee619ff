package server

import "net/url"

// PageCursor returns the cursor query parameter of a paged listing (GET
// /v1/threads, GET /v1/runs, the inspector's index): "" when it is absent
// (the first page, or a page by the deprecated offset). Errors: one the
// API answers as a 400 naming "cursor" when cursor is given empty
// (?cursor=: read as absent, it answered the first page) or beside offset
// (which a cursor would silently override). Whether the text is a cursor
// is for the listing to say (engine.ThreadsRequest.Cursor,
// ParseRunCursor).
func PageCursor(q url.Values) (string, error) {
	if q.Has("cursor") && (q.Get("cursor") == "" || q.Has("offset")) {
		return "", errorf(kindInvalid, "cursor", "cursor must be a nextCursor of an earlier page (none for the first page), without offset")
	}
	return q.Get("cursor"), nil
}
