package layout_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestNoInternalAliases: no exported type of publicPackages is an alias of
// a type of an internal/ package. go doc shows an alias's declaration
// only ("type Server = fakeopenai.Server"), none of its fields or
// methods, and a user cannot look the internal package up (openaitest's
// types were such aliases).
func TestNoInternalAliases(t *testing.T) {
	for _, p := range publicPackages {
		_, files := nonTestFiles(t, module+"/"+p)
		for _, name := range sortedFileNames(files) {
			for _, bad := range internalAliases(files[name]) {
				t.Errorf("%s (%s): %s", p, name, bad)
			}
		}
	}
}

// TestNoInternalAliasesCatches: the checker reports an exported alias of
// an internal package's type, in a group or alone, and accepts an alias
// of a public package's type, an unexported alias and a defined type.
func TestNoInternalAliasesCatches(t *testing.T) {
	src := `package p

import (
	fake "example.com/m/internal/fakeopenai"
	"example.com/m/internal/store"
	"example.com/m/recall"
)

type Server = fake.Server

type (
	DB      = store.DB
	Hit     = recall.Hit
	stmts   = store.Stmts
	Defined store.DB
)
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := internalAliases(f)
	if len(got) != 2 || !strings.HasPrefix(got[0], "Server ") || !strings.HasPrefix(got[1], "DB ") {
		t.Fatalf("reported %q, want Server and DB", got)
	}
}

// internalAliases returns "Name = pkg.Type …" for each exported type alias
// of f whose target is a type of an imported internal/ package.
func internalAliases(f *ast.File) []string {
	imports := importPaths(f)
	var bad []string
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			ts := s.(*ast.TypeSpec)
			sel, ok := ts.Type.(*ast.SelectorExpr)
			if !ts.Assign.IsValid() || !ts.Name.IsExported() || !ok {
				continue
			}
			x, ok := sel.X.(*ast.Ident)
			if path := imports[x.Name]; ok && strings.Contains(path+"/", "/internal/") {
				bad = append(bad, ts.Name.Name+" = "+x.Name+"."+sel.Sel.Name+" is an alias of "+path+"'s type: go doc shows none of its fields or methods; declare the type here")
			}
		}
	}
	return bad
}
