package layout_test

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// platforms are the systems whose builds TestPlatformDeclarations checks
// besides the one running the test: the files with build constraints
// (recall's mappings and huge-page hints, engine's locks, use-lite's
// kernels) have Linux, other-Unix and non-Unix variants.
var platforms = []string{"linux", "darwin", "freebsd", "windows"}

// TestPlatformDeclarations reads every package's files as each platform's
// build selects them and fails when a top-level name is declared twice
// (two helpers each adding a non-Linux stub of the same function broke the
// Windows build once), or when a name declared on Linux is used but not
// declared on another platform. It parses, it does not type-check: a
// cross-compile of the module costs minutes, this under a second.
func TestPlatformDeclarations(t *testing.T) {
	root := moduleRoot(t)
	for _, dir := range packageDirs(t, root) {
		rel, _ := filepath.Rel(root, dir)
		linux := declared(t, dir, "linux")
		for _, goos := range platforms {
			decls := declared(t, dir, goos)
			for name, files := range decls.names {
				if len(files) > 1 {
					t.Errorf("%s (GOOS=%s): %s declared in %s", rel, goos, name, strings.Join(files, " and "))
				}
			}
			for _, name := range sortedNames(linux.names) {
				if _, ok := decls.names[name]; !ok && decls.used[name] {
					t.Errorf("%s (GOOS=%s): %s is used but declared only for Linux (%s)", rel, goos, name, linux.names[name][0])
				}
			}
		}
	}
}

// decls is one platform's view of a package: its top-level names with the
// files declaring them, and every identifier its files use.
type decls struct {
	names map[string][]string
	used  map[string]bool
}

// declared parses the non-test files of dir that goos's build selects.
func declared(t *testing.T, dir, goos string) decls {
	t.Helper()
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = goos, "amd64", false
	p, err := ctx.ImportDir(dir, 0)
	d := decls{names: map[string][]string{}, used: map[string]bool{}}
	if err != nil {
		return d // no Go files for this platform
	}
	fset := token.NewFileSet()
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range topLevelNames(f) {
			d.names[n] = append(d.names[n], name)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				d.used[id.Name] = true
			}
			return true
		})
	}
	return d
}

// topLevelNames returns f's package-level functions (not methods), types,
// variables and constants, "_" and init left out.
func topLevelNames(f *ast.File) []string {
	var names []string
	add := func(id *ast.Ident) {
		if id.Name != "_" && id.Name != "init" {
			names = append(names, id.Name)
		}
	}
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			if decl.Recv == nil {
				add(decl.Name)
			}
		case *ast.GenDecl:
			for _, spec := range decl.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					add(spec.Name)
				case *ast.ValueSpec:
					for _, id := range spec.Names {
						add(id)
					}
				}
			}
		}
	}
	return names
}

func sortedNames(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
