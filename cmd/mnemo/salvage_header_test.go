package main

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// setHeaderPageCount writes n as the page count in the file header of the
// database at path (offset 28), as one flipped byte there does.
func setHeaderPageCount(t *testing.T, path string, n uint32) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], n)
	if _, err := f.WriteAt(b[:], 28); err != nil {
		t.Fatal(err)
	}
}

// TestSalvageHeaderPageCount: the page count in the file header lowered
// (readme68 F2: 0 of 60,000 messages kept, "no message lost", exit 0) or
// raised past the end of the file (F10: every command says the file is
// corrupt, salvage said it passes integrity_check: a loop). Salvage reads
// its copy by the file's size: every message is kept, none lost, and
// check is ok.
func TestSalvageHeaderPageCount(t *testing.T) {
	for _, tc := range []struct {
		name  string
		count func(pages uint32) uint32
	}{
		{"lowered", func(uint32) uint32 { return 5 }},
		{"raised", func(p uint32) uint32 { return p + 1<<16 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := storedDir(t, engine.Config{}, false, inThreadT(harbourMessages()...))
			path := filepath.Join(dir, engine.DatabaseFile)
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			setHeaderPageCount(t, path, tc.count(uint32(st.Size()/4096)))
			code, out, stderr := run(t, nil, "--dir", dir, "salvage", "--json")
			var rep engine.SalvageReport
			if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Sound || len(rep.Lost) != 0 {
				t.Fatalf("salvage: exit %d\n%s%s", code, out, stderr)
			}
			if !strings.Contains(strings.Join(rep.Findings, "\n"), "page count (offset 28)") {
				t.Fatalf("salvage's findings do not name the header's page count: %q", rep.Findings)
			}
			for _, tb := range rep.Tables {
				if tb.Name == "messages" && (tb.Kept != 200 || len(tb.Unreadable) != 0) {
					t.Fatalf("messages: kept %d, unreadable %v; want 200, none", tb.Kept, tb.Unreadable)
				}
			}
			code, out, stderr = run(t, nil, "--dir", dir, "check")
			if code != 0 {
				t.Fatalf("check after salvage: exit %d\n%s%s", code, out, stderr)
			}
		})
	}
}

// TestSalvageHeaderFields: one byte of page 1 flipped where the file
// header holds fixed text or what the other pages tell (readme68 F3):
// the magic string, the page size (made invalid, or another valid size
// that divides the file), the schema root page's type or its cell count.
// Salvage said "nothing to salvage; restore it from a backup"; it repairs
// the field on its copy and keeps every message, and check is ok.
func TestSalvageHeaderFields(t *testing.T) {
	for _, tc := range []struct {
		name string
		off  int64
		edit func(byte) byte
		note string
	}{
		{"magic", 0, func(b byte) byte { return b ^ 0x07 }, "magic string"},
		{"pageSizeInvalid", 17, func(b byte) byte { return b ^ 0x20 }, "page size"},
		{"pageSizeOther", 16, func(byte) byte { return 0x02 }, "page size"},
		{"schemaType", 100, func(byte) byte { return 0 }, "schema table's first page"},
		{"schemaCount", 104, func(b byte) byte { return b + 1 }, "schema table's first page"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := storedDir(t, engine.Config{}, false, inThreadT(harbourMessages()...))
			path := filepath.Join(dir, engine.DatabaseFile)
			rewriteFile(t, path, func(b []byte) []byte {
				b[tc.off] = tc.edit(b[tc.off])
				return b
			})
			code, out, stderr := run(t, nil, "--dir", dir, "salvage", "--json")
			var rep engine.SalvageReport
			if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Sound || len(rep.Lost) != 0 {
				t.Fatalf("salvage: exit %d\n%s%s", code, out, stderr)
			}
			if !strings.Contains(strings.Join(rep.Findings, "\n"), tc.note) {
				t.Fatalf("salvage's findings do not name the %s: %q", tc.note, rep.Findings)
			}
			for _, tb := range rep.Tables {
				if tb.Name == "messages" && (tb.Kept != 200 || len(tb.Unreadable) != 0) {
					t.Fatalf("messages: kept %d, unreadable %v; want 200, none", tb.Kept, tb.Unreadable)
				}
			}
			if code, out, stderr = run(t, nil, "--dir", dir, "check"); code != 0 {
				t.Fatalf("check after salvage: exit %d\n%s%s", code, out, stderr)
			}
		})
	}
}

// TestSalvageHeaderRepairShown: the note saying which field of page 1
// salvage repaired comes first among the findings, in the text report and
// in --json: it came after integrity_check's, which are the field's
// consequences, and the text hid it under "… and 96 more" (readme71 F6).
func TestSalvageHeaderRepairShown(t *testing.T) {
	for _, tc := range []struct {
		name string
		off  int64
		b    byte
		note string
	}{
		{"pageSize", 16, 0x02, "page size (offset 16) said 512 bytes"},
		{"schemaType", 100, 0, "schema table's first page (offset 100)"},
	} {
		damaged := func(t *testing.T) string {
			dir := storedDir(t, engine.Config{}, false, inThreadT(harbourMessages()...))
			rewriteFile(t, filepath.Join(dir, engine.DatabaseFile), func(b []byte) []byte {
				b[tc.off] = tc.b
				return b
			})
			return dir
		}
		t.Run(tc.name+"/text", func(t *testing.T) {
			code, out, stderr := run(t, nil, "--dir", damaged(t), "salvage")
			if code != 0 || !strings.Contains(out, "more (--json lists them)") {
				t.Fatalf("salvage: exit %d, the findings are not cut short\n%s%s", code, out, stderr)
			}
			if !strings.Contains(out, tc.note) {
				t.Fatalf("the text does not say %q\n%s", tc.note, out)
			}
		})
		t.Run(tc.name+"/json", func(t *testing.T) {
			code, out, stderr := run(t, nil, "--dir", damaged(t), "salvage", "--json")
			var rep engine.SalvageReport
			if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Findings) < 2 {
				t.Fatalf("salvage --json: exit %d\n%s%s", code, out, stderr)
			}
			if !strings.Contains(rep.Findings[0], tc.note) {
				t.Fatalf("the first finding is not %q: %q", tc.note, rep.Findings)
			}
		})
	}
}
