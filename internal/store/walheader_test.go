package store_test

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
)

// integrity runs SQLite's integrity_check on the image; "ok" when sound.
func (im walImage) integrity(t *testing.T) string {
	t.Helper()
	db, err := store.Open(context.Background(), im.path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(db)
	var got string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&got); err != nil {
		return err.Error()
	}
	return got
}

// TestWALPageNumberDamaged: a frame's page number damaged in more than
// one byte, to a page that a later frame writes again, passed for a frame
// superseded by that later one: the log was "repaired" and the update of
// the frame's own page was lost (the table's b-tree pointed at a page the
// database did not have: "database disk image is malformed"). The header
// is restored now from the frame's checksum when its page is intact
// (page 259 damaged to 2, two bytes; a byte of the page number and one of
// the commit size): every row is there. When its page is damaged too, the
// page number it claims is checked against its transaction's (SQLite
// writes a transaction's pages in ascending order) and the damage is
// reported (PageNumberAndPage).
func TestWALPageNumberDamaged(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n        int    // rows; 300 big ones make page numbers past 255
		minPgno  uint32 // of the damaged frame
		damage   func(b []byte, off int, later uint32)
		repaired bool
	}{
		{"PageNumberTwoBytes", 300, 256, func(b []byte, off int, later uint32) {
			binary.BigEndian.PutUint32(b[off:], later)
		}, true},
		{"PageNumberAndCommitSize", 30, 0, func(b []byte, off int, later uint32) {
			binary.BigEndian.PutUint32(b[off:], later)
			b[off+7] ^= 0x5a
		}, true},
		{"PageNumberAndPage", 30, 0, func(b []byte, off int, later uint32) {
			binary.BigEndian.PutUint32(b[off:], later)
			b[off+24+100] ^= 0x5a
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			im := crashImage(t, t.TempDir(), tc.n, true, false)
			k, later := pageNumberTarget(t, im, tc.minPgno)
			im.rewrite(t, func(b []byte) []byte { tc.damage(b, im.frameOff(k), later); return b })
			got, d := im.rows(t)
			if d == nil || d.Repaired != tc.repaired {
				t.Fatalf("rows=%d, WALDamageOf=%+v; want the damage found, repaired=%v", got, d, tc.repaired)
			}
			if !tc.repaired {
				if got >= tc.n || d.Scan.Exact {
					t.Fatalf("rows=%d scan %+v, want fewer than %d rows, the commits not applied reported", got, d.Scan, tc.n)
				}
				return
			}
			if got != tc.n {
				t.Fatalf("rows=%d after the repair, want %d", got, tc.n)
			}
			if got := im.integrity(t); got != "ok" {
				t.Fatalf("integrity_check=%q after the repair, want ok", got)
			}
		})
	}
}

// pageNumberTarget is a frame k of the image's log whose page (at least
// minPgno) no later frame writes, after a frame of its transaction, and
// the page of that frame, which a frame after k writes again and whose
// number differs from k's in at least one byte of the last two.
func pageNumberTarget(t *testing.T, im walImage, minPgno uint32) (int, uint32) {
	t.Helper()
	b := im.rewrite(t, func(b []byte) []byte { return b })
	frames := im.frames(t)
	pgnos, sizes := make([]uint32, frames+1), make([]uint32, frames+1)
	for i := 1; i <= frames; i++ {
		pgnos[i], sizes[i] = binary.BigEndian.Uint32(b[im.frameOff(i):]), binary.BigEndian.Uint32(b[im.frameOff(i)+4:])
	}
	for k := 5; k < frames; k++ {
		if pgnos[k] < minPgno || sizes[k-1] != 0 || pgnos[k-1] >= pgnos[k] || pgnos[k-1] > 255 {
			continue
		}
		once, again := true, false
		for j := k + 1; j <= frames; j++ {
			once = once && pgnos[j] != pgnos[k]
			again = again || pgnos[j] == pgnos[k-1]
		}
		if once && again {
			return k, pgnos[k-1]
		}
	}
	t.Fatalf("no frame of a page from %d written once after a page written again", minPgno)
	return 0, 0
}

// TestWALHeaderAndFrameOneDamaged: a damaged log header was rebuilt only
// when frame 1 checked under it; with frame 1 damaged too the log was
// reported though it could be repaired exactly. Frame 1's stored
// checksums damaged: frames 1 and 2 run backwards to a header's checksum,
// so both are intact and the log is repaired. Frame 1's page number
// damaged under a zeroed header: the header rebuilt from frame 2's salts
// and the checkpoint sequence found (0: a log never restarted) seeds frame
// 1, whose page number is then restored. A restarted log's checkpoint
// sequence, zeroed, is unknown: that is reported, not guessed.
func TestWALHeaderAndFrameOneDamaged(t *testing.T) {
	const n = 40
	for _, tc := range []struct {
		name     string
		restart  bool
		damage   func(im walImage, b []byte)
		repaired bool
	}{
		{"FrameOneChecksum", false, func(im walImage, b []byte) {
			b[3] ^= 0x5a
			b[im.frameOff(1)+17] ^= 0x5a
		}, true},
		{"HeaderZeroedFrameOnePageNumber", false, func(im walImage, b []byte) {
			clear(b[:32])
			b[im.frameOff(1)+2] ^= 0x5a
			b[im.frameOff(1)+3] ^= 0x5a
		}, true},
		{"RestartedHeaderZeroedFrameOnePageNumber", true, func(im walImage, b []byte) {
			clear(b[:32])
			b[im.frameOff(1)+2] ^= 0x5a
			b[im.frameOff(1)+3] ^= 0x5a
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			im := crashImage(t, t.TempDir(), n, false, tc.restart)
			im.rewrite(t, func(b []byte) []byte { tc.damage(im, b); return b })
			got, d := im.rows(t)
			if d == nil || d.Repaired != tc.repaired || !d.Scan.HeaderDamaged {
				t.Fatalf("rows=%d, WALDamageOf=%+v; want the header damaged, repaired=%v", got, d, tc.repaired)
			}
			if tc.repaired && got != n {
				t.Fatalf("rows=%d after the repair, want %d", got, n)
			}
		})
	}
}
