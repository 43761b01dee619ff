package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestWALUnlinked: the look for a removed -wal (walUnlinked) answers as
// the read of every descriptor (heldUnlinked) does, from the descriptor
// it remembered: false while the -wal is at its path, true once it was
// removed or another file renamed over it, and false again, with no
// descriptor remembered, once the last connection closed it. Moved to
// another name (the kernel names it there, not "(deleted)", so the read
// of every descriptor does not find it) it is true too (readme71 F5: the
// writes went on into moved-wal, never noticed); moved while a
// checkpoint left it empty, true once a write gave it its header.
func TestWALUnlinked(t *testing.T) {
	if _, err := os.ReadDir(procFD); err != nil {
		t.Skip("no /proc/self/fd: a removed -wal is not noticed here")
	}
	open := func(t *testing.T) (*damage, string) {
		path := filepath.Join(t.TempDir(), "mnemo.db")
		db, err := Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { CloseDB(db) })
		if _, err := db.Exec(`CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1)`); err != nil {
			t.Fatal(err)
		}
		v, _ := damages.Load(db)
		d := v.(*damage)
		if d.walUnlinked() || d.walFD.Load() == nil {
			t.Fatalf("the -wal at its path: unlinked %v, descriptor %v; want false and one", d.walUnlinked(), d.walFD.Load())
		}
		if d.walUnlinked() {
			t.Fatal("the -wal at its path, from the remembered descriptor: unlinked")
		}
		return d, path + "-wal"
	}
	for _, c := range []struct {
		name   string
		change func(t *testing.T, wal string) error
		want   bool
		all    bool // what the read of every descriptor says
	}{
		{"Removed", func(t *testing.T, wal string) error { return os.Remove(wal) }, true, true},
		{"RenamedOver", func(t *testing.T, wal string) error {
			other := filepath.Join(filepath.Dir(wal), "other")
			if err := os.WriteFile(other, nil, 0o600); err != nil {
				return err
			}
			return os.Rename(other, wal)
		}, true, true},
		{"MovedAway", func(t *testing.T, wal string) error {
			return os.Rename(wal, filepath.Join(filepath.Dir(wal), "moved-wal"))
		}, true, false},
		{"MovedAwayAndNewAtPath", func(t *testing.T, wal string) error {
			if err := os.Rename(wal, filepath.Join(filepath.Dir(wal), "moved-wal")); err != nil {
				return err
			}
			return os.WriteFile(wal, nil, 0o600)
		}, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, wal := open(t)
			if err := c.change(t, wal); err != nil {
				t.Fatal(err)
			}
			if got, all := d.walUnlinked(), first(heldUnlinked(wal)); got != c.want || all != c.all {
				t.Fatalf("walUnlinked %v, every descriptor read %v; want %v and %v", got, all, c.want, c.all)
			}
			if !d.walUnlinked() {
				t.Fatal("the second look: false")
			}
		})
	}
	t.Run("MovedAwayEmpty", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "mnemo.db")
		db, err := Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { CloseDB(db) })
		db.SetMaxOpenConns(1) // one connection: its log, moved, gets the next write
		if _, err := db.Exec(`CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1)`); err != nil {
			t.Fatal(err)
		}
		v, _ := damages.Load(db)
		d := v.(*damage)
		if d.walUnlinked() {
			t.Fatal("unlinked while at its path")
		}
		if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+"-wal", filepath.Join(filepath.Dir(path), "moved-wal")); err != nil {
			t.Fatal(err)
		}
		if d.walUnlinked() || d.walFD.Load() == nil {
			t.Fatalf("moved empty: unlinked %v, descriptor %v; want false and the one kept", d.walUnlinked(), d.walFD.Load())
		}
		if _, err := db.Exec(`INSERT INTO t VALUES (2)`); err != nil {
			t.Fatal(err)
		}
		if !d.walUnlinked() {
			t.Fatal("moved, then written: not unlinked")
		}
	})
	t.Run("Closed", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "mnemo.db")
		db, err := Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`CREATE TABLE t (n INTEGER)`); err != nil {
			t.Fatal(err)
		}
		v, _ := damages.Load(db)
		d := v.(*damage)
		if d.walUnlinked() {
			t.Fatal("unlinked while open")
		}
		if err := db.Close(); err != nil { // the last connection deletes the -wal
			t.Fatal(err)
		}
		if d.walUnlinked() || d.walFD.Load() != nil {
			t.Fatalf("closed: unlinked %v, descriptor %v; want false and none", d.walUnlinked(), d.walFD.Load())
		}
		CloseDB(db)
	})
}

func first(b bool, _ *heldWAL) bool { return b }
