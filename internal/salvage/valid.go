package salvage

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/journal"
)

// SQLite checks the structure of b-tree pages but nothing of the bytes of
// a value, and an overflow page (the rest of a long value) has no
// structure to check beyond its link to the next one: a damaged overflow
// page reads back as a row whose text is garbled. What mnemo writes has
// shapes a garbled value almost never keeps, and a row that breaks one is
// dropped as garbled rather than copied: messages have their digest
// (fixup.go), and here every text is valid UTF-8 (the engine refuses
// anything else, engine/validate.go), the JSON columns hold JSON, a memctx
// record is JSON, a stored vector is dims finite float32s of length
// about 1 (recall.Embedder returns L2-normalised vectors; an empty blob is
// a derived vector), and a message's seq is at least 1 (seqs start at 1,
// msgstore.Append). A message's digest covers its text, not its seq: a
// byte of a small seq flipped in place reads back as a whole row whose
// seq is negative (6 became -7), which was copied, and the salvaged
// directory then failed mnemo check with a gap no reindex mends. A seq
// garbled to another positive number is found by its place (seqs.go). A
// message's digest is not held to UTF-8 here: the repair compares it with
// the digest of the text (fixup.go), and recomputes one whose damage alone
// made them differ.

// jsonColumns are the columns that hold compact JSON text.
var jsonColumns = map[string]bool{"metadata": true, "tool_calls": true, "sources": true, "config": true}

// garbledRow reports whether the row read (cols named as in names) breaks
// one of the shapes above.
func garbledRow(table string, names []string, vals []any) bool {
	var scope string
	var dims int64 = -1
	for i, v := range vals {
		switch x := v.(type) {
		case string:
			if table == "messages" && names[i] == "digest" {
				continue // compared with the text's by the repair (fixup.go): damage to it alone costs no message
			}
			if !utf8.ValidString(x) || jsonColumns[names[i]] && x != "" && !json.Valid([]byte(x)) {
				return true
			}
			if names[i] == "scope" {
				scope = x
			}
		case int64:
			if names[i] == "dims" {
				dims = x
			}
			if table == "messages" && names[i] == "seq" && x < 1 {
				return true
			}
		}
	}
	for i, v := range vals {
		b, ok := v.([]byte)
		if !ok || len(b) == 0 {
			continue
		}
		switch {
		case table == "journal" && names[i] == "output" && scope == journal.ScopeMemCtx:
			if !json.Valid(b) {
				return true
			}
		case table == "embeddings" && names[i] == "vector":
			if !plausibleVector(b, dims) {
				return true
			}
		}
	}
	return false
}

// plausibleVector reports whether b holds dims little-endian float32s,
// finite, of L2 norm within 1% of 1 (or all zero).
func plausibleVector(b []byte, dims int64) bool {
	if dims < 0 || int64(len(b)) != 4*dims {
		return false
	}
	var sum float64
	for i := 0; i+4 <= len(b); i += 4 {
		f := float64(math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
		sum += f * f
	}
	return sum == 0 || math.Abs(math.Sqrt(sum)-1) < 0.01
}
