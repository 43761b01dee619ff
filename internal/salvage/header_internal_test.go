package salvage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFixHeaderPageSize: a sound file is left as it is; one whose header
// gives any other page size, valid or not, is read at the size by which
// its pages parse (4096), and only offset 16 changes. The note gives the
// field as it stood (readme71 F7: an invalid size was said to be 0).
func TestFixHeaderPageSize(t *testing.T) {
	sound := filepath.Join(t.TempDir(), "sound.db")
	writeFixture(t, sound, "t")
	want, err := os.ReadFile(sound)
	if err != nil {
		t.Fatal(err)
	}
	if notes, err := FixHeader(sound); err != nil || notes != nil {
		t.Fatalf("a sound file: %q, %v", notes, err)
	}
	for _, size := range []uint16{512, 1024, 2048, 8192, 16384, 32768, 1, 0x1020, 0, 0xffff} {
		t.Run(strconv.Itoa(int(size)), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "damaged.db")
			copyFile(t, sound, path)
			var b [2]byte
			binary.BigEndian.PutUint16(b[:], size)
			writeAt(t, path, 16, b[:])
			notes, err := FixHeader(path)
			got, _ := os.ReadFile(path)
			if err != nil || len(notes) != 1 || !bytes.Equal(got, want) {
				t.Fatalf("notes %q, err %v; the file is as before: %v", notes, err, bytes.Equal(got, want))
			}
			said := int(size) // the field as it stood, valid or not
			if size == 1 {
				said = 65536
			}
			if !strings.Contains(notes[0], fmt.Sprintf("said %d bytes,", said)) {
				t.Fatalf("the note does not give the field as it stood (%d): %q", said, notes[0])
			}
		})
	}
}
