package layout_test

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// dir is pkg's directory (pkg an import path of the module).
func dir(t *testing.T, pkg string) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")))
}

// library reports whether pkg is library code, where the rules on function
// length and package docs apply: everything but commands and examples.
func library(pkg string) bool {
	rel := strings.TrimPrefix(pkg, module+"/")
	return rel != module && !strings.HasPrefix(rel, "cmd/") && !strings.HasPrefix(rel, "examples/")
}

// nonTestFiles parses pkg's non-test Go files, keyed by file name.
func nonTestFiles(t *testing.T, pkg string) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	bp, err := build.Default.ImportDir(dir(t, pkg), 0)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(bp.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
	}
	return fset, files
}

// TestRecallStandsAlone: recall ranks; it reports its own status and reads
// stored messages through its Source interface, so it needs no storage
// package, no journal and no engine.
func TestRecallStandsAlone(t *testing.T) {
	pkgs := loadModule(t)
	for _, banned := range []string{"journal", "engine", "internal/msgstore", "internal/store", "working", "observe"} {
		if chain := dependsOn(pkgs, module+"/recall", module+"/"+banned); chain != "" {
			t.Errorf("recall depends on %s: %s", banned, chain)
		}
	}
}

// TestMessageStoreBelowEngine: the message store builds on the bottom floor
// (internal/store, with internal/filekind beneath it) and on recall, whose
// Source it implements (with what recall itself builds on: internal/bm25,
// the BM25 formula, and internal/jsonkey, the repeated-key check, import
// nothing of mnemo);
// nothing else of mnemo.
func TestMessageStoreBelowEngine(t *testing.T) {
	pkgs := loadModule(t)
	for _, p := range sortedKeys(pkgs) {
		if p == module+"/internal/msgstore" || slices.Contains([]string{"internal/store", "recall", "recall/uselite", "internal/models", "internal/bm25", "internal/jsonkey", "internal/filekind"}, strings.TrimPrefix(p, module+"/")) {
			continue
		}
		if chain := dependsOn(pkgs, module+"/internal/msgstore", p); chain != "" {
			t.Errorf("internal/msgstore depends on %s: %s", p, chain)
		}
	}
}

// sqlText matches the start of an SQL statement in a string literal.
var sqlText = regexp.MustCompile(`\b(SELECT\s|INSERT\s+(OR\s+\w+\s+)?INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b|CREATE\s+(TABLE|INDEX|TRIGGER)\b|PRAGMA\s|VACUUM\b)`)

// hasSQL reports whether a string literal of f holds an SQL statement.
func hasSQL(f *ast.File) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil && sqlText.MatchString(s) {
				found = true
			}
		}
		return !found
	})
	return found
}

// TestEngineWritesLittleSQL: each table has one owner below the engine
// (internal/msgstore, journal, working, observe; the schema in
// internal/store); the engine orchestrates them. At most 3 of its files may
// hold SQL (issue 13).
func TestEngineWritesLittleSQL(t *testing.T) {
	_, files := nonTestFiles(t, module+"/engine")
	var withSQL []string
	for name, f := range files {
		if hasSQL(f) {
			withSQL = append(withSQL, name)
		}
	}
	slices.Sort(withSQL)
	if len(withSQL) > 3 {
		t.Errorf("%d non-test files of engine hold SQL (at most 3): %v", len(withSQL), withSQL)
	}
}

// journalSQL matches a statement's naming of the journal table (not of
// journal_tool_obs, whose name goes on past the word).
var journalSQL = regexp.MustCompile(`(?i)\b(FROM|INTO|UPDATE|JOIN)\s+journal\b`)

// namesJournal returns the string literals of f that name the journal
// table in SQL (journalSQL).
func namesJournal(f *ast.File) []string {
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil && journalSQL.MatchString(s) {
				found = append(found, s)
			}
		}
		return true
	})
	return found
}

// TestJournalOwnsItsTable: the journal table is the journal package's
// (DESIGN.md, one owner per table): observe and working, the other owners
// beside it, reach its rows through its functions (observe's memo entries:
// journal.HasMemo, MemoKeys, Memos, ForgetMemo, ForgetMemos) and hold no
// statement of their own on it. Before, observe read and deleted its memo
// entries with its own SQL in observe_range.go, invalidate.go and skip.go.
func TestJournalOwnsItsTable(t *testing.T) {
	for _, pkg := range []string{"observe", "working"} {
		_, files := nonTestFiles(t, module+"/"+pkg)
		for name, f := range files {
			for _, s := range namesJournal(f) {
				t.Errorf("%s/%s names the journal table: %q", pkg, name, s)
			}
		}
	}
	src := "package p\nconst a = `DELETE FROM journal WHERE key = ?`\nconst b = `INSERT INTO journal_tool_obs (obs_id) VALUES (?)`\nconst c = \"the journal records it\""
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := namesJournal(f); len(got) != 1 || !strings.HasPrefix(got[0], "DELETE FROM journal") {
		t.Errorf("namesJournal found %q, want the DELETE only", got)
	}
}

// TestSQLDetector: the detector above finds statements (so the rule can
// fail) and ignores prose.
func TestSQLDetector(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"package p\nconst q = `SELECT id FROM messages`", true},
		{"package p\nvar q = \"DELETE FROM outbox WHERE id = ?\"", true},
		{"package p\nconst q = `INSERT OR IGNORE INTO runs (id) VALUES (?)`", true},
		{"package p\nconst q = `UPDATE threads SET title = ?`", true},
		{"package p\nconst q = \"select the turns to keep\"", false},
		{"package p\n// SELECT in a comment is not SQL\nconst q = \"recall\"", false},
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", tc.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := hasSQL(f); got != tc.want {
			t.Errorf("hasSQL(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
}

// TestEngineHidesItsDatabase: no caller reaches the raw pool through the
// engine; everything goes through its methods.
func TestEngineHidesItsDatabase(t *testing.T) {
	_, files := nonTestFiles(t, module+"/engine")
	for name, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && fd.Name.Name == "DB" {
				t.Errorf("engine/%s: Engine.DB is exported", name)
			}
		}
	}
}

// maxFuncLines bounds a library function's length (STYLE.md: a function
// reads whole on one screen; issue 13).
const maxFuncLines = 80

func TestFunctionLength(t *testing.T) {
	pkgs := loadModule(t)
	for _, p := range sortedKeys(pkgs) {
		if !library(p) {
			continue
		}
		fset, files := nonTestFiles(t, p)
		for name, f := range files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
					t.Errorf("%s/%s: %s is %d lines (at most %d)", strings.TrimPrefix(p, module+"/"), name, fd.Name.Name, n, maxFuncLines)
				}
			}
		}
	}
}

// TestPackageDocs: every library package has a doc.go whose package
// comment says what the package owns and what it may import (an
// "# Imports" section, STYLE.md's doc.go with Invariants, Concurrency and
// Errors).
func TestPackageDocs(t *testing.T) {
	pkgs := loadModule(t)
	for _, p := range sortedKeys(pkgs) {
		bp, err := build.Default.ImportDir(dir(t, p), 0)
		if !library(p) || err != nil || len(bp.GoFiles) == 0 {
			continue
		}
		b, err := os.ReadFile(filepath.Join(bp.Dir, "doc.go"))
		if err != nil {
			t.Errorf("%s has no doc.go", p)
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), "doc.go", b, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil || f.Doc == nil {
			t.Errorf("%s/doc.go has no package comment", p)
			continue
		}
		if !strings.Contains(f.Doc.Text(), "# Imports") {
			t.Errorf("%s/doc.go: the package comment has no \"# Imports\" section", p)
		}
	}
}

// TestPostgresRecallImports: internal/pgrecall, recall on Postgres, builds
// on recall (whose ranking it reuses, with internal/bm25 and
// internal/jsonkey beneath it) and internal/pgstore (with internal/store
// and internal/filekind beneath it);
// nothing else of mnemo (no engine, no SQLite store or owner), and recall
// itself still needs no storage package (TestRecallStandsAlone).
func TestPostgresRecallImports(t *testing.T) {
	pkgs := loadModule(t)
	from := module + "/internal/pgrecall"
	if _, ok := pkgs[from]; !ok {
		t.Fatalf("%s not found", from)
	}
	allowed := []string{"internal/pgrecall", "recall", "internal/bm25", "internal/jsonkey", "internal/pgstore", "internal/store", "internal/filekind"}
	for _, p := range sortedKeys(pkgs) {
		if slices.Contains(allowed, strings.TrimPrefix(p, module+"/")) {
			continue
		}
		if chain := dependsOn(pkgs, from, p); chain != "" {
			t.Errorf("internal/pgrecall depends on %s: %s", p, chain)
		}
	}
	if chain := dependsOn(pkgs, module+"/recall", from); chain != "" {
		t.Errorf("recall depends on internal/pgrecall: %s", chain)
	}
}
