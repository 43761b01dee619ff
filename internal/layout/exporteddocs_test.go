package layout_test

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// publicPackages are the library packages whose every exported identifier
// and exported struct field has a doc comment (STYLE.md, "Comments").
// Add a package here once its gaps are filled.
var publicPackages = []string{
	"demodata", "engine", "importer", "inspector", "journal", "mcpserver", "observe", "openaitest", "recall", "recall/uselite", "server", "tools", "working",
}

// TestExportedDocs: every exported type, function, method, constant,
// variable and struct field of publicPackages has a doc comment (a comment
// on its own line above it, or, for a constant or variable in a documented
// group, the group's; a field's or value's trailing line comment counts).
// A comment above "A, B int" documents both; one above A alone does not
// document a B on the next line, which go doc shows bare.
func TestExportedDocs(t *testing.T) {
	for _, p := range publicPackages {
		bp, err := build.Default.ImportDir(dir(t, module+"/"+p), 0)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		var missing []string
		for _, name := range bp.GoFiles {
			b, err := os.ReadFile(filepath.Join(bp.Dir, name))
			if err != nil {
				t.Fatal(err)
			}
			missing = append(missing, undocumented(fset, parseNamed(t, fset, name, string(b)))...)
		}
		sort.Strings(missing)
		for _, m := range missing {
			t.Errorf("%s: %s has no doc comment", p, m)
		}
	}
}

// TestExportedDocsCatchesGaps: the checker reports an undocumented type,
// field, function, method and constant, and accepts documented ones.
func TestExportedDocsCatchesGaps(t *testing.T) {
	src := `package p

// Doc is documented.
type Doc struct {
	// A is documented.
	A int
	B int // B is documented by its line comment.
	C, D string
	hidden int
}

type Bare struct{}

func F() {}

// G is documented.
func G() {}

func (Doc) M() {}

const K = 1

// Group is documented.
const (
	L = 2
	M = 3
)

var (
	// V is documented.
	V = 1
	W = 2
)
`
	fset := token.NewFileSet()
	f := parseNamed(t, fset, "p.go", src)
	got := strings.Join(undocumented(fset, f), ", ")
	want := "Doc.C (p.go:8), Doc.D (p.go:8), Bare (p.go:12), F (p.go:14), Doc.M (p.go:19), K (p.go:21), W (p.go:32)"
	if got != want {
		t.Fatalf("undocumented:\n got %s\nwant %s", got, want)
	}
}

// undocumented lists f's exported declarations and exported struct fields
// (of exported types) that have no doc comment, as "Name (file:line)".
func undocumented(fset *token.FileSet, f *ast.File) []string {
	var out []string
	report := func(name string, pos token.Pos) {
		p := fset.Position(pos)
		out = append(out, fmt.Sprintf("%s (%s:%d)", name, baseName(p.Filename), p.Line))
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || d.Doc != nil {
				continue
			}
			name := d.Name.Name
			if d.Recv != nil {
				recv := receiverName(d.Recv.List[0].Type)
				if !ast.IsExported(recv) {
					continue
				}
				name = recv + "." + name
			}
			report(name, d.Pos())
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					if s.Doc == nil && d.Doc == nil {
						report(s.Name.Name, s.Pos())
					}
					if st, ok := s.Type.(*ast.StructType); ok {
						fields(s.Name.Name, st, report)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() && s.Doc == nil && s.Comment == nil && d.Doc == nil {
							report(n.Name, n.Pos())
						}
					}
				}
			}
		}
	}
	return out
}

// fields reports the exported fields of st (a struct of type typ) that
// have neither a doc comment nor a line comment.
func fields(typ string, st *ast.StructType, report func(string, token.Pos)) {
	for _, fld := range st.Fields.List {
		if fld.Doc != nil || fld.Comment != nil {
			continue
		}
		if len(fld.Names) == 0 { // embedded: documented by its own type
			continue
		}
		for _, n := range fld.Names {
			if n.IsExported() {
				report(typ+"."+n.Name, n.Pos())
			}
		}
	}
}

// receiverName is the type name of a method receiver (T, *T, T[P]).
func receiverName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverName(e.X)
	case *ast.IndexExpr:
		return receiverName(e.X)
	case *ast.IndexListExpr:
		return receiverName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// parseNamed parses src, comments included, as the file name.
func parseNamed(t *testing.T, fset *token.FileSet, name, src string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func baseName(path string) string {
	return path[strings.LastIndexAny(path, `/\`)+1:]
}
