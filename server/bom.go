package server

import (
	"bytes"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// utf8BOM is the UTF-8 byte-order mark, U+FEFF: what Notepad, and other
// editors saving "UTF-8 with BOM", put before a file's text.
var utf8BOM = []byte("\uFEFF")

// skipBOM makes a request body's leading UTF-8 byte-order mark white
// space, in place, and returns the body; a body sent as UTF-16 (one that
// begins with the byte-order mark FF FE or FE FF, as Windows PowerShell 5
// writes a file) is a 400 naming the encoding. RFC 8259 §8.1 lets a
// parser ignore the mark, and mnemo ingest skips a file's: a body read
// from such a file (curl --data-binary @msg.json) was refused as
// "malformed JSON at byte 0". The mark becomes three spaces rather than
// being cut so that every byte offset an error names still counts from
// the body's first byte, as the client sent it. A mark further on is
// malformed JSON, named so (syntaxDetail).
func skipBOM(data []byte) ([]byte, error) {
	n, utf16 := jsonkey.ByteOrderMark(data)
	if utf16 != "" {
		return nil, errorf(kindInvalid, "", "the body is UTF-16 (it begins with the byte-order mark %s): send JSON as UTF-8", utf16)
	}
	copy(data[:n], "   ")
	return data, nil
}

// syntaxDetail is the detail of a body data that encoding/json stopped
// reading at offset off: "malformed JSON at byte N", naming a byte-order
// mark when one is there (two files joined, a mark pasted in the middle;
// encoding/json said "invalid character 'ï'").
func syntaxDetail(data []byte, off int64) string {
	if off >= 0 && off < int64(len(data)) && bytes.HasPrefix(data[off:], utf8BOM) {
		return fmt.Sprintf("malformed JSON at byte %d: a UTF-8 byte-order mark (EF BB BF, U+FEFF), which only the body's start may hold: remove it", off)
	}
	return fmt.Sprintf("malformed JSON at byte %d", off)
}
