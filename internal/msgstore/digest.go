package msgstore

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// Digest is the content digest stored with a message (messages.digest):
// the SHA-256, in hex, of "len:value;" for its role, content (the full
// text of a large tool result, message_blobs), name, tool call id and
// tool calls (the stored JSON, empty when none), lengths in decimal. The
// engine compares it to make appends idempotent; a salvage compares it to
// tell a row read whole from one whose text a damaged page garbled. The
// digests stored by earlier builds were written so (fmt.Fprintf) and must
// still match.
func Digest(role, content, name, toolCallID string, calls []byte) string {
	b := make([]byte, 0, 5*21+len(role)+len(content)+len(name)+len(toolCallID)+len(calls))
	for _, s := range [...]string{role, content, name, toolCallID} {
		b = append(strconv.AppendInt(b, int64(len(s)), 10), ':')
		b = append(append(b, s...), ';')
	}
	b = append(strconv.AppendInt(b, int64(len(calls)), 10), ':')
	b = append(append(b, calls...), ';')
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
