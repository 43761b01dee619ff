package server

import (
	"fmt"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// DuplicateKey returns the path of the first key that one object of the
// JSON value data names twice ("messages[0].role" for two "role" members
// of the first message), or "" when no object does or data is not JSON.
// encoding/json would keep the last of the two silently; a request body
// and an MCP tool's arguments that repeat a key are refused instead, at
// any depth (metadata, tool-call arguments and recall filters included).
func DuplicateKey(data []byte) string {
	path, _, ok := jsonkey.Repeated(data)
	if !ok {
		return ""
	}
	return path
}

// duplicateDetail is the problem detail for DuplicateKey's path.
func duplicateDetail(path string) string {
	return fmt.Sprintf("%q is given twice in one object; give each member once", path)
}
