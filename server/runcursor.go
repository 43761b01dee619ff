package server

import (
	"encoding/base64"
	"encoding/binary"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
)

// A run cursor (GET /v1/runs?cursor=, RunList.NextCursor) is the place of
// the last run of a page in journal.ListRuns' order, opaque to clients:
// base64url without padding of a version byte (1), the record's creation
// time in Unix milliseconds (varint) and the run id's bytes. The encoding
// is canonical (a text that decodes re-encodes to itself). It is a place,
// not a grant: the listing's resource or thread filters every page.
const runCursorVersion = 1

// maxRunCursorLen is the longest run cursor text: the base64 of the
// longest encoding (an id is 128 bytes at most, engine.ValidID).
const maxRunCursorLen = ((1+binary.MaxVarintLen64+128)*4 + 2) / 3

// RunCursor returns the cursor of k's place (journal.RunInfo.Key of a
// page's last run; server.RunInfo has no key): the listing continues after
// that run. mnemo runs prints the same cursors (--cursor, nextCursor).
func RunCursor(k journal.RunKey) string {
	b := append([]byte{runCursorVersion}, binary.AppendVarint(nil, k.CreatedAt)...)
	return base64.RawURLEncoding.EncodeToString(append(b, k.RunID...))
}

// ParseRunCursor reads a cursor of RunCursor, the place to list after
// (journal.RunFilter.Before). Errors: one the API answers as a 400 naming
// "cursor", for any other text (too long, not base64url, another version,
// truncated, a run id that breaks engine.ValidID, not canonical).
func ParseRunCursor(s string) (journal.RunKey, error) {
	bad := errorf(kindInvalid, "cursor", "cursor is not a nextCursor of GET /v1/runs: give the nextCursor of a page, or none for the first page")
	if len(s) > maxRunCursorLen {
		return journal.RunKey{}, bad
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || len(b) < 2 || b[0] != runCursorVersion {
		return journal.RunKey{}, bad
	}
	c, w := binary.Varint(b[1:])
	if w <= 0 {
		return journal.RunKey{}, bad
	}
	k := journal.RunKey{CreatedAt: c, RunID: string(b[1+w:])}
	if !engine.ValidID(k.RunID) || RunCursor(k) != s {
		return journal.RunKey{}, bad
	}
	return k, nil
}
