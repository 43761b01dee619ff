package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestGoneDatabaseRefusal: a read of a data directory whose mnemo.db is
// missing while its write-ahead log (not empty) or index/ is there (Open
// with MustExist, CheckFile, Backup, Salvage) is a *GoneDatabaseError,
// matching ErrNotDataDir, naming the log's size and index/ and saying to
// restore mnemo.db before writing; the files stay where they are. A
// directory with neither, or an empty log, is the plain ErrNotDataDir.
// Before (walk38 #4), every one was the plain "holds no mnemo.db", and
// the CLI's hint led to the write that puts the files aside.
//
// SQLite only: it removes the database file.
func TestGoneDatabaseRefusal(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		walBytes int // a log of that many bytes; 0: none
		index    bool
		want     []string // in the error; nil: the plain ErrNotDataDir
	}{
		{"log and index", 1000, true, []string{"mnemo.db-wal (1000 bytes) and index/ of the database that was there are", "restore mnemo.db from a backup before writing"}},
		{"log", 1000, false, []string{"mnemo.db-wal (1000 bytes) of the database that was there is"}},
		{"index", 0, true, []string{"holds no mnemo.db, but the index/ of the database that was there is"}},
		{"empty log", -1, false, nil},
		{"nothing", 0, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := closedDir(t, "")
			removeDatabaseFiles(t, dir)
			if !tc.index {
				if err := os.RemoveAll(filepath.Join(dir, filepath.Dir(engine.LexicalDir))); err != nil {
					t.Fatal(err)
				}
			}
			if tc.walBytes != 0 {
				if err := os.WriteFile(filepath.Join(dir, engine.DatabaseFile+"-wal"), make([]byte, max(tc.walBytes, 0)), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			reads := map[string]func() error{
				"Open": func() error {
					e, err := engine.Open(ctx, engine.Config{Dir: dir, MustExist: true})
					if err == nil {
						e.Close()
					}
					return err
				},
				"CheckFile": func() error { return engine.CheckFile(ctx, engine.Config{Dir: dir}, engine.CheckOptions{}) },
				"Backup": func() error {
					_, err := engine.Backup(ctx, engine.Config{Dir: dir}, filepath.Join(t.TempDir(), "b"), engine.BackupOptions{})
					return err
				},
				"Salvage": func() error {
					_, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{})
					return err
				},
			}
			for name, read := range reads {
				err := read()
				var gone *engine.GoneDatabaseError
				isGone := errors.As(err, &gone)
				switch {
				case !errors.Is(err, engine.ErrNotDataDir):
					t.Errorf("%s: %v, want ErrNotDataDir", name, err)
				case tc.want == nil && isGone:
					t.Errorf("%s: %v, want the plain ErrNotDataDir", name, err)
				case tc.want != nil && (!isGone || gone.WALBytes != int64(max(tc.walBytes, 0)) || gone.Index != tc.index):
					t.Errorf("%s: %v (%+v), want a *GoneDatabaseError of %d log bytes, index %v", name, err, gone, tc.walBytes, tc.index)
				}
				for _, w := range tc.want {
					if err != nil && !strings.Contains(err.Error(), w) {
						t.Errorf("%s: %q lacks %q", name, err, w)
					}
				}
			}
			if _, err := os.Stat(filepath.Join(dir, engine.DatabaseFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a read created mnemo.db: %v", err)
			}
		})
	}
}

// TestGoneDatabaseLink: a mnemo.db that is a symbolic link to a file that
// does not exist, beside a log and index/, is refused by the reads
// (Open with MustExist, CheckFile, Backup, Salvage) and by a writing
// Open alike with a *GoneDatabaseError whose Link is the target, matching
// ErrNotDataDir and ErrDatabaseNotFile but not ErrDatabaseCorrupt, its
// text naming the link and the target and not a write that would create
// a database; nothing is moved or created. Before (walk39 #4), the reads
// said "a write creates a new, empty database and keeps them aside" and
// the write refused it as a corrupt database (the CLI then advised
// deleting the log). The same link with neither log nor index/ is the
// same refusal.
func TestGoneDatabaseLink(t *testing.T) {
	ctx := context.Background()
	for _, files := range []bool{true, false} {
		dir := closedDir(t, "")
		removeDatabaseFiles(t, dir)
		if files {
			if err := os.WriteFile(filepath.Join(dir, engine.DatabaseFile+"-wal"), make([]byte, 1000), 0o600); err != nil {
				t.Fatal(err)
			}
		} else if err := os.RemoveAll(filepath.Join(dir, filepath.Dir(engine.LexicalDir))); err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(t.TempDir(), "volume", engine.DatabaseFile)
		link := filepath.Join(dir, engine.DatabaseFile)
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("symlink: %v", err)
		}
		calls := map[string]func() error{
			"Open": func() error {
				e, err := engine.Open(ctx, engine.Config{Dir: dir})
				if err == nil {
					e.Close()
				}
				return err
			},
			"Open MustExist": func() error {
				e, err := engine.Open(ctx, engine.Config{Dir: dir, MustExist: true})
				if err == nil {
					e.Close()
				}
				return err
			},
			"CheckFile": func() error { return engine.CheckFile(ctx, engine.Config{Dir: dir}, engine.CheckOptions{}) },
			"Backup": func() error {
				_, err := engine.Backup(ctx, engine.Config{Dir: dir}, filepath.Join(t.TempDir(), "b"), engine.BackupOptions{})
				return err
			},
			"Salvage": func() error {
				_, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{})
				return err
			},
		}
		want := link + " is a symbolic link to " + target + ", which does not exist"
		for name, call := range calls {
			err := call()
			var gone *engine.GoneDatabaseError
			if !errors.As(err, &gone) || gone.Link != target || !errors.Is(err, engine.ErrNotDataDir) ||
				!errors.Is(err, engine.ErrDatabaseNotFile) || errors.Is(err, engine.ErrDatabaseCorrupt) {
				t.Errorf("%s (log and index %v): %v, want a *GoneDatabaseError with Link %s, matching ErrNotDataDir and ErrDatabaseNotFile, not ErrDatabaseCorrupt", name, files, err, target)
				continue
			}
			if msg := err.Error(); !strings.Contains(msg, want) || strings.Contains(msg, "a write creates") ||
				files != strings.Contains(msg, "mnemo.db-wal (1000 bytes) and index/ of the database are beside it") {
				t.Errorf("%s (log and index %v): %q, want it to name %q and the files there, not a write that creates a database", name, files, msg, want)
			}
		}
		if _, err := os.Lstat(filepath.Dir(target)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the link's target's directory was created (%v)", err)
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.Contains(e.Name(), "damaged") {
				t.Errorf("a file was kept aside: %s", e.Name())
			}
		}
	}
}

// TestGoneDatabaseLinkWritesNothing: a directory holding only mnemo.db, a
// symbolic link to nothing (relative or absolute), is refused by every
// open with a *GoneDatabaseError and holds only the link afterwards.
// Before (walk41 #5), a writing Open created and left a LOCK file: it
// took the directory's lock before it looked at the link.
func TestGoneDatabaseLinkWritesNothing(t *testing.T) {
	ctx := context.Background()
	calls := map[string]func(dir string) error{
		"Open": func(dir string) error { _, err := engine.Open(ctx, engine.Config{Dir: dir}); return err },
		"Open MustExist": func(dir string) error {
			_, err := engine.Open(ctx, engine.Config{Dir: dir, MustExist: true})
			return err
		},
		"CheckFile": func(dir string) error { return engine.CheckFile(ctx, engine.Config{Dir: dir}, engine.CheckOptions{}) },
		"Backup": func(dir string) error {
			_, err := engine.Backup(ctx, engine.Config{Dir: dir}, filepath.Join(t.TempDir(), "b"), engine.BackupOptions{})
			return err
		},
		"Salvage": func(dir string) error {
			_, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{})
			return err
		},
	}
	for _, target := range []string{"missing.db", filepath.Join(t.TempDir(), "volume", engine.DatabaseFile)} {
		for name, call := range calls {
			dir := t.TempDir()
			if err := os.Symlink(target, filepath.Join(dir, engine.DatabaseFile)); err != nil {
				t.Skipf("symlink: %v", err)
			}
			var gone *engine.GoneDatabaseError
			if err := call(dir); !errors.As(err, &gone) || gone.Link != target {
				t.Errorf("%s (link to %s): %v, want a *GoneDatabaseError with Link %s", name, target, err, target)
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if e.Name() != engine.DatabaseFile {
					t.Errorf("%s (link to %s) left %s in the directory", name, target, e.Name())
				}
			}
		}
	}
}
