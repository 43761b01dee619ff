package engine_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestResidueCheck: the residue check of a purge zeroes an erased text
// left in the free space of a b-tree page, in place, and does not vacuum,
// whether it looks for one text or many; it leaves alone a text a live row
// still holds (no VACUUM takes that out: it vacuumed for one every time
// before); it vacuums when a copy lies where it cannot tell live bytes from
// free ones (a free-list trunk page); it does not vacuum for texts the
// file does not hold, nor for one shorter than the 12 bytes it looks for;
// and past ResidueMaxPatterns texts (the bound on what it keeps in memory)
// it vacuums without searching, so its guarantee holds for an erasure of
// any size. It says why it vacuumed (engine.Vacuum), "" when it did not.
func TestResidueCheck(t *testing.T) {
	ctx := context.Background()
	e := enginetest.SQLite.MustOpen(t, engine.Config{})
	path := filepath.Join(e.Dir(), engine.DatabaseFile)
	const live, short = "a text a live row of this store holds", "tomato"
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{
		{Role: engine.RoleUser, Content: live}, {Role: engine.RoleUser, Content: short},
	}}); err != nil {
		t.Fatal(err)
	}
	absent := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("a text this store never held, number %06d", i)
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		planted string // planted in a leaf page's free space first
		trunk   string // planted in a free-list trunk page first
		texts   []string
		want    engine.Vacuum
		cleared bool // the planted text is zeroed in place
	}{
		{"Planted", "the planted residue of an erased turn", "", []string{"the planted residue of an erased turn"}, "", true},
		{"PlantedAmongMany", "another planted residue, among many", "", append(absent(1000), "another planted residue, among many"), "", true},
		{"Live", "", "", []string{live}, "", false},
		{"InTrunk", "", "a residue where no page says what is live", []string{"a residue where no page says what is live"}, engine.VacuumResidue, false},
		{"Absent", "", "", absent(1), "", false},
		{"Short", "", "", []string{short}, "", false},
		{"AtBound", "", "", absent(engine.ResidueMaxPatterns), "", false},
		{"PastBound", "", "", absent(engine.ResidueMaxPatterns + 1), engine.VacuumTooLarge, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.planted != "" {
				enginetest.PlantLeftover(t, path, tc.planted)
			}
			if tc.trunk != "" {
				enginetest.PlantInTrunk(t, path, tc.trunk)
			}
			before := engine.ClearedPages(e)
			got, err := engine.CheckResidue(ctx, e, tc.texts)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("vacuumed %q, want %q", got, tc.want)
			}
			if cleared := engine.ClearedPages(e) > before; cleared != tc.cleared {
				t.Fatalf("cleared pages %v, want %v", cleared, tc.cleared)
			}
			for _, text := range []string{tc.planted, tc.trunk} {
				if held, err := engine.FileHolds(path, [][]byte{[]byte(text)}); text != "" && (err != nil || held) {
					t.Fatalf("the file still holds %q (%v)", text, err)
				}
			}
			if held, err := engine.FileHolds(path, [][]byte{[]byte(live)}); err != nil || !held {
				t.Fatalf("the live row's text left the file (%v)", err)
			}
		})
	}
}

// TestEraseSaysVacuumed: an erasure's result says when and why its purge
// rewrote the file with VACUUM (EraseResult.Vacuumed), which it did
// without a word before (an erasure of 80,010 messages shrank mnemo.db
// from 48 MB to 184 KB and mnemo delete listed the purge's steps without
// it). A text erased from one thread and still stored deep in a long
// message of another lies in an overflow page, part of that row's chain,
// and one still stored as a short message of another in a live cell of a
// b-tree page: no VACUUM takes either out, so neither erasure vacuums
// (the first did until erase70, the second until vac64); nor does one
// erasing a text stored nowhere else. A copy where the check cannot tell
// live bytes from free ones vacuums (TestResidueCheck's InTrunk).
func TestEraseSaysVacuumed(t *testing.T) {
	ctx := context.Background()
	const shared, own = "a sentence two threads both hold, word for word", "a sentence only the first thread ever held"
	long := strings.Repeat("a long message whose end spills to overflow pages. ", 200) + shared
	for _, tc := range []struct {
		name, text, kept string
		want             engine.Vacuum
	}{
		{"CopyInOverflow", shared, long, ""},
		{"CopyLive", shared, shared, ""},
		{"NoCopy", own, shared, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := enginetest.SQLite.MustOpen(t, engine.Config{})
			for thread, text := range map[string]string{"gone": tc.text, "kept": tc.kept} {
				if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "r", Messages: []engine.Message{
					{Role: engine.RoleUser, Content: text}}}); err != nil {
					t.Fatal(err)
				}
			}
			res, err := e.DeleteThread(ctx, "gone")
			if err != nil {
				t.Fatal(err)
			}
			if res.Vacuumed != tc.want {
				t.Fatalf("EraseResult.Vacuumed %q, want %q", res.Vacuumed, tc.want)
			}
		})
	}
}

// TestErasureZeroesLeftoverCopy: a copy of an erased text that a page
// rebalance left in a b-tree page's free space (planted there) leaves the
// database file and its WAL with the erasure, zeroed in place: no VACUUM
// (EraseResult.Vacuumed ""), the other thread's rows kept.
func TestErasureZeroesLeftoverCopy(t *testing.T) {
	ctx := context.Background()
	const secret = "my leftover secret is zq-4411-vv-0093, keep it"
	e := enginetest.SQLite.MustOpen(t, engine.Config{})
	appendUser(t, e, "gone", "r", secret)
	appendUser(t, e, "kept", "r", "a turn of another thread, kept")
	path := filepath.Join(e.Dir(), engine.DatabaseFile)
	enginetest.PlantLeftover(t, path, secret)
	before := engine.ClearedPages(e)
	res, err := e.DeleteThread(ctx, "gone")
	if err != nil {
		t.Fatal(err)
	}
	if res.Vacuumed != "" || engine.ClearedPages(e) == before {
		t.Fatalf("Vacuumed %q, cleared pages %d; want no VACUUM and a page cleared", res.Vacuumed, engine.ClearedPages(e)-before)
	}
	for _, f := range []string{path, path + "-wal"} {
		if held, err := engine.FileHolds(f, [][]byte{[]byte(secret)}); err != nil && !os.IsNotExist(err) || held {
			t.Fatalf("%s still holds the erased text (%v)", f, err)
		}
	}
	if held, err := engine.FileHolds(path, [][]byte{[]byte("a turn of another thread, kept")}); err != nil || !held {
		t.Fatalf("the kept thread's text left the file (%v)", err)
	}
}

// TestResidueFreeListDamaged: when the page holding an erased text's copy
// is in a file whose free list does not hold together (a trunk page past
// the end of the file, a count other than the header's), the residue
// check vacuums (VacuumResidue), which takes the copy out and leaves a
// sound file; it failed with ErrEraseIncomplete instead, on every retry
// (rev65 #4). The erasure of a thread does too, end to end.
func TestResidueFreeListDamaged(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		damage func(page1 []byte, pages uint32)
		erase  bool // by DeleteThread, not the check alone (SQLite's own writes do not read the count)
	}{
		{"TrunkOutOfFile", func(p1 []byte, pages uint32) { binary.BigEndian.PutUint32(p1[32:], pages+100) }, false},
		{"CountWrong", func(p1 []byte, _ uint32) { binary.BigEndian.PutUint32(p1[36:], binary.BigEndian.Uint32(p1[36:])+1) }, false},
		{"CountWrongDeleteThread", func(p1 []byte, _ uint32) { binary.BigEndian.PutUint32(p1[36:], binary.BigEndian.Uint32(p1[36:])+1) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const secret, kept = "my leftover secret is zq-8812-vv-0451, keep it", "a turn of another thread, kept"
			e := enginetest.SQLite.MustOpen(t, engine.Config{})
			if tc.erase {
				appendUser(t, e, "gone", "r", secret)
			}
			appendUser(t, e, "kept", "r", kept)
			path := filepath.Join(e.Dir(), engine.DatabaseFile)
			enginetest.PlantInTrunk(t, path, "") // a free list
			enginetest.PlantLeftover(t, path, secret)
			db := engine.DBOf(e)
			var page1 []byte
			var pages uint32
			if err := db.QueryRowContext(ctx, `SELECT data FROM sqlite_dbpage WHERE pgno = 1`).Scan(&page1); err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
				t.Fatal(err)
			}
			tc.damage(page1, pages)
			if _, err := db.ExecContext(ctx, `UPDATE sqlite_dbpage SET data = ? WHERE pgno = 1`, page1); err != nil {
				t.Fatal(err)
			}
			var why engine.Vacuum
			var err error
			if tc.erase {
				var res *engine.EraseResult
				if res, err = e.DeleteThread(ctx, "gone"); res != nil {
					why = res.Vacuumed
				}
			} else {
				why, err = engine.CheckResidue(ctx, e, []string{secret})
			}
			if err != nil || why != engine.VacuumResidue {
				t.Fatalf("vacuumed %q, %v; want %q, no error", why, err, engine.VacuumResidue)
			}
			if held, err := engine.FileHolds(path, [][]byte{[]byte(secret)}); err != nil || held {
				t.Fatalf("the file still holds the erased text (%v)", err)
			}
			if held, err := engine.FileHolds(path, [][]byte{[]byte(kept)}); err != nil || !held {
				t.Fatalf("the kept thread's text left the file (%v)", err)
			}
			var ok string
			if err := db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
				t.Fatalf("integrity_check: %q, %v", ok, err)
			}
		})
	}
}

// TestResidueCountsLivePages: the residue check counts the pages whose
// live rows hold an erased text's start (engine.LivePages), which it
// leaves: none after the erasure of a thread whose text no other row
// holds, some when another thread quotes it. A copy an erasure forgot to
// delete would show so; it was left without a word (rev65 #1).
func TestResidueCountsLivePages(t *testing.T) {
	ctx := context.Background()
	const own, quoted = "a sentence only the erased thread ever held, zq-3310", "a sentence the erased thread and another both hold, zq-7702"
	for _, tc := range []struct {
		name, text string
		quote      bool // another thread holds the same text
	}{
		{"NotQuoted", own, false},
		{"Quoted", quoted, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := enginetest.SQLite.MustOpen(t, engine.Config{})
			appendUser(t, e, "gone", "r", tc.text)
			other := "a turn of another thread, kept"
			if tc.quote {
				other = tc.text
			}
			appendUser(t, e, "kept", "r", other)
			before := engine.LivePages(e)
			res, err := e.DeleteThread(ctx, "gone")
			if err != nil {
				t.Fatal(err)
			}
			if live := engine.LivePages(e) - before; (live > 0) != tc.quote {
				t.Fatalf("pages counted holding the erased text in live rows: %d, want more than 0: %v (vacuumed %q)", live, tc.quote, res.Vacuumed)
			}
		})
	}
}
