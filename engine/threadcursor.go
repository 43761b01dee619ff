package engine

import (
	"encoding/base64"
	"encoding/binary"

	"github.com/mnemo-go/mnemo/internal/msgstore"
)

// A thread cursor is the place of the last thread of a page in
// ListThreads' order (resource, creation time, id), opaque to clients:
// base64url without padding of a version byte (1), the resource id's
// length (uvarint) and bytes, the creation time in Unix milliseconds
// (varint) and the thread id's bytes. It is a place, not a grant: the
// resources a listing asks for filter every page, whatever the cursor
// names. The encoding is canonical: a string that decodes re-encodes to
// itself, so one place has one cursor.
const (
	cursorVersion = 1
	// maxCursorID bounds each id a cursor holds, in bytes (ValidID).
	maxCursorID = 128
	// maxCursorLen is the longest cursor text parseThreadCursor reads:
	// the base64 of the longest encoding.
	maxCursorLen = ((1+2*binary.MaxVarintLen64+2*maxCursorID)*4 + 2) / 3
)

// threadCursor returns the cursor of k's place.
func threadCursor(k msgstore.ThreadKey) string {
	b := make([]byte, 0, 1+2*binary.MaxVarintLen64+len(k.ResourceID)+len(k.ID))
	b = append(b, cursorVersion)
	b = binary.AppendUvarint(b, uint64(len(k.ResourceID)))
	b = append(b, k.ResourceID...)
	b = binary.AppendVarint(b, k.CreatedAt)
	b = append(b, k.ID...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ThreadCursor returns the cursor that continues a listing after t: the
// next page is the threads that follow t in ListThreads' order.
func ThreadCursor(t Thread) string { return threadCursor(msgstore.Thread(t).Key()) }

// parseThreadCursor reads a cursor of threadCursor. Errors: a
// *ValidationError naming "cursor" for anything else: too long, not
// base64url, another version, truncated, an id that breaks ValidID's
// rule (every stored thread's and resource's id keeps it: Append checks
// them), or not the canonical encoding.
func parseThreadCursor(s string) (msgstore.ThreadKey, error) {
	var k msgstore.ThreadKey
	bad := func(why string) (msgstore.ThreadKey, error) {
		return msgstore.ThreadKey{}, invalid(-1, "cursor", "not a cursor of this listing (%s): give the nextCursor of a page, or none for the first page", why)
	}
	if len(s) > maxCursorLen {
		return bad("too long")
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return bad("not base64url")
	}
	if len(b) == 0 || b[0] != cursorVersion {
		return bad("unknown version")
	}
	n, w := binary.Uvarint(b[1:])
	if w <= 0 || n == 0 || n > maxCursorID || uint64(len(b)-1-w) < n {
		return bad("truncated resource")
	}
	rest := b[1+w:]
	k.ResourceID, rest = string(rest[:n]), rest[n:]
	c, w := binary.Varint(rest)
	if w <= 0 {
		return bad("truncated time")
	}
	k.CreatedAt, k.ID = c, string(rest[w:])
	switch {
	case !ValidID(k.ResourceID) || !ValidID(k.ID):
		return bad("not an id")
	case threadCursor(k) != s:
		return bad("not canonical")
	}
	return k, nil
}
