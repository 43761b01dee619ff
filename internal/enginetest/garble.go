package enginetest

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"
)

// PageHolding is the page (1-based, as SQLite's dbstat numbers them) of
// the SQLite file at path whose bytes hold marker; the test fails when no
// page does (a WAL not checkpointed into the file, say).
func PageHolding(t testing.TB, path, marker string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(b, []byte(marker))
	if at < 0 {
		t.Fatalf("marker not in %s (WAL not checkpointed?)", path)
	}
	return at/pageSize(b) + 1
}

// GarblePage overwrites the first 12 bytes of page (1-based) of the
// SQLite file at path with 0xff: no b-tree page type and a garbled cell
// count, so every read that reaches the page is SQLITE_CORRUPT.
func GarblePage(t testing.TB, path string, page int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copy(b[(page-1)*pageSize(b):], bytes.Repeat([]byte{0xff}, 12))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// pageSize is the page size a SQLite file's header gives (bytes 16-17,
// big-endian; 1 stands for 65536).
func pageSize(b []byte) int {
	ps := int(binary.BigEndian.Uint16(b[16:18]))
	if ps == 1 {
		ps = 65536
	}
	return ps
}
