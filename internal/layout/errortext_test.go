package layout_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestErrorTextsPublic: no exported variable of publicPackages is an error
// whose text begins with the name of a package under internal/, which a
// user can neither import nor look up ("pgstore: the pgvector extension
// …" was engine.ErrNoVector's text). The text is read from the source: an
// errors.New or fmt.Errorf literal, the first string of a composite
// (&narrowError{"…", …}), followed through another variable of the
// package or of an internal package it imports (ErrNoVector =
// pgstore.ErrNoVector).
func TestErrorTextsPublic(t *testing.T) {
	internals := internalPackages(t)
	for _, p := range publicPackages {
		_, files := nonTestFiles(t, module+"/"+p)
		for _, bad := range internalErrorTexts(p, files, internals, varsOf(t)) {
			t.Error(bad)
		}
	}
}

// TestErrorTextsCatchesInternal: the checker reports a text that begins
// with an internal package's name, directly, through a variable of the
// package and through an imported one, and accepts the package's own.
func TestErrorTextsCatchesInternal(t *testing.T) {
	src := `package p

import (
	"errors"
	"fmt"

	"example.com/m/internal/pgstore"
)

var ErrOwn = errors.New("p: own")
var ErrDirect = errors.New("store: direct")
var ErrFormat = fmt.Errorf("pgstore: wrapped: %w", ErrOwn)
var ErrImported = pgstore.ErrNoVector
var ErrNarrow error = &narrow{"bm25: narrowed", ErrOwn}
var (
	ErrLocal  = errLocal
	errLocal  = errors.New("store: local")
	ErrFine   = pgstore.ErrFine
	notAnErr  = errors.New("store: unexported")
)
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	internals := map[string]bool{"store": true, "pgstore": true, "bm25": true}
	lookup := func(path, name string) string {
		if path == "example.com/m/internal/pgstore" && name == "ErrNoVector" {
			return "pgstore: no vector"
		}
		return "engine: fine"
	}
	got := internalErrorTexts("p", map[string]*ast.File{"p.go": f}, internals, lookup)
	want := []string{"p.ErrDirect", "p.ErrFormat", "p.ErrImported", "p.ErrNarrow", "p.ErrLocal"}
	if len(got) != len(want) {
		t.Fatalf("reported %q, want %v", got, want)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w+" ") {
			t.Errorf("report %d = %q, want %s", i, got[i], w)
		}
	}
}

// internalPackages returns the last elements of the module's package
// paths under internal/ (pgstore, store, bm25…).
func internalPackages(t *testing.T) map[string]bool {
	t.Helper()
	root := moduleRoot(t)
	names := map[string]bool{}
	for _, d := range packageDirs(t, root) {
		if rel, _ := filepath.Rel(root, d); strings.HasPrefix(filepath.ToSlash(rel), "internal/") {
			names[filepath.Base(d)] = true
		}
	}
	return names
}

// varsOf returns a lookup of a variable's error text in a package of the
// module by import path ("" when it is not one the checker reads),
// following the variables it names in turn.
func varsOf(t *testing.T) func(path, name string) string {
	var lookup func(path, name string) string
	lookup = func(path, name string) string {
		if !strings.HasPrefix(path, module+"/") {
			return ""
		}
		if _, err := os.Stat(dir(t, path)); err != nil {
			return ""
		}
		_, files := nonTestFiles(t, path)
		vars := topVars(files)
		for _, f := range files {
			if slices.Contains(varNames(f), name) {
				return errorText(vars[name], vars, importPaths(f), lookup)
			}
		}
		return ""
	}
	return lookup
}

// internalErrorTexts returns "pkg.Name reads TEXT" for every exported
// variable of files whose error text begins "NAME: " with NAME in
// internals, sorted by file and position.
func internalErrorTexts(pkg string, files map[string]*ast.File, internals map[string]bool, lookup func(path, name string) string) []string {
	vars := topVars(files)
	var bad []string
	for _, name := range sortedFileNames(files) {
		imports := importPaths(files[name])
		for _, n := range varNames(files[name]) {
			if !ast.IsExported(n) {
				continue
			}
			text := errorText(vars[n], vars, imports, lookup)
			if prefix, _, ok := strings.Cut(text, ": "); ok && internals[prefix] {
				bad = append(bad, pkg+"."+n+" reads "+strconv.Quote(text)+", the name of internal/"+prefix+": say the public package's")
			}
		}
	}
	return bad
}

// errorText returns the text of the error e makes ("" when it cannot
// tell): the first string literal of errors.New, fmt.Errorf or a
// composite, or the text of the variable it names (in vars, or through
// imports and lookup).
func errorText(e ast.Expr, vars map[string]ast.Expr, imports map[string]string, lookup func(path, name string) string) string {
	switch e := e.(type) {
	case *ast.BasicLit:
		if s, err := strconv.Unquote(e.Value); err == nil && e.Kind == token.STRING {
			return s
		}
	case *ast.BinaryExpr:
		return errorText(e.X, vars, imports, lookup)
	case *ast.ParenExpr:
		return errorText(e.X, vars, imports, lookup)
	case *ast.UnaryExpr:
		return errorText(e.X, vars, imports, lookup)
	case *ast.CompositeLit:
		if len(e.Elts) > 0 {
			if kv, ok := e.Elts[0].(*ast.KeyValueExpr); ok {
				return errorText(kv.Value, vars, imports, lookup)
			}
			return errorText(e.Elts[0], vars, imports, lookup)
		}
	case *ast.CallExpr:
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok && len(e.Args) > 0 && (sel.Sel.Name == "New" || sel.Sel.Name == "Errorf") {
			return errorText(e.Args[0], vars, imports, lookup)
		}
	case *ast.Ident:
		if v, ok := vars[e.Name]; ok {
			delete(vars, e.Name) // no loop through a self-reference
			defer func() { vars[e.Name] = v }()
			return errorText(v, vars, imports, lookup)
		}
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok && imports[x.Name] != "" && lookup != nil {
			return lookup(imports[x.Name], e.Sel.Name)
		}
	}
	return ""
}

// topVars maps each package-level variable of files with one value to it.
func topVars(files map[string]*ast.File) map[string]ast.Expr {
	vars := map[string]ast.Expr{}
	for _, f := range files {
		for _, vs := range varSpecs(f) {
			for i, n := range vs.Names {
				if len(vs.Values) == len(vs.Names) {
					vars[n.Name] = vs.Values[i]
				}
			}
		}
	}
	return vars
}

// varNames returns f's package-level variable names, in source order.
func varNames(f *ast.File) []string {
	var names []string
	for _, vs := range varSpecs(f) {
		for _, n := range vs.Names {
			names = append(names, n.Name)
		}
	}
	return names
}

func varSpecs(f *ast.File) []*ast.ValueSpec {
	var specs []*ast.ValueSpec
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			for _, s := range gd.Specs {
				specs = append(specs, s.(*ast.ValueSpec))
			}
		}
	}
	return specs
}

// importPaths maps f's import names (the path's last element unless
// renamed) to their paths.
func importPaths(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		m[name] = path
	}
	return m
}

func sortedFileNames(files map[string]*ast.File) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
