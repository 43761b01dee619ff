package layout_test

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/mnemo-go/mnemo"

// pkg is one package of the module: its non-test imports and, separately,
// the imports of its test files.
type pkg struct {
	imports, testImports []string
}

// moduleRoot returns the module's directory (two levels up).
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	return root
}

// packageDirs returns the module's directories holding Go files, outside
// testdata and hidden directories.
func packageDirs(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if matches, _ := filepath.Glob(filepath.Join(path, "*.go")); len(matches) > 0 {
			dirs = append(dirs, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("found %d package directories under %s; the walk is broken", len(dirs), root)
	}
	return dirs
}

// loadModule reads every package of the module, keyed by import path.
func loadModule(t *testing.T) map[string]pkg {
	t.Helper()
	root := moduleRoot(t)
	pkgs := map[string]pkg{}
	for _, path := range packageDirs(t, root) {
		p, err := build.Default.ImportDir(path, 0)
		if err != nil {
			continue // no Go files for this platform
		}
		rel, _ := filepath.Rel(root, path)
		ip := module
		if rel != "." {
			ip += "/" + filepath.ToSlash(rel)
		}
		pkgs[ip] = pkg{imports: p.Imports, testImports: append(append([]string(nil), p.TestImports...), p.XTestImports...)}
	}
	return pkgs
}

// dependsOn returns the chain of non-test imports by which from reaches
// target within the module ("" when it does not).
func dependsOn(pkgs map[string]pkg, from, target string) string {
	seen := map[string]bool{}
	var walk func(p string) []string
	walk = func(p string) []string {
		if p == target {
			return []string{p}
		}
		if seen[p] {
			return nil
		}
		seen[p] = true
		for _, imp := range pkgs[p].imports {
			if _, ok := pkgs[imp]; !ok {
				continue
			}
			if chain := walk(imp); chain != nil {
				return append([]string{p}, chain...)
			}
		}
		return nil
	}
	return strings.Join(walk(from), " → ")
}

func sortedKeys(pkgs map[string]pkg) []string {
	keys := make([]string, 0, len(pkgs))
	for k := range pkgs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestBelowEngine: no internal/ package outside internal/enginetest, and
// no domain package, depends on engine.
func TestBelowEngine(t *testing.T) {
	pkgs := loadModule(t)
	engine := module + "/engine"
	if _, ok := pkgs[engine]; !ok {
		t.Fatalf("%s not found", engine)
	}
	for _, p := range sortedKeys(pkgs) {
		internal := strings.HasPrefix(p, module+"/internal/")
		helper := p == module+"/internal/enginetest" || strings.HasPrefix(p, module+"/internal/enginetest/") || p == module+"/internal/layout"
		domain := false
		for _, d := range []string{"recall", "journal", "working", "observe", "tools"} {
			if p == module+"/"+d || strings.HasPrefix(p, module+"/"+d+"/") {
				domain = true
			}
		}
		if (!internal || helper) && !domain {
			continue
		}
		if chain := dependsOn(pkgs, p, engine); chain != "" {
			t.Errorf("%s depends on engine: %s", p, chain)
		}
	}
}

// TestExamplesPublic: the examples, tests included, import no internal/
// package of the module.
func TestExamplesPublic(t *testing.T) {
	pkgs := loadModule(t)
	n := 0
	for _, p := range sortedKeys(pkgs) {
		if !strings.HasPrefix(p, module+"/examples/") {
			continue
		}
		n++
		seen := map[string]bool{}
		for _, imp := range append(append([]string(nil), pkgs[p].imports...), pkgs[p].testImports...) {
			if !seen[imp] && strings.HasPrefix(imp, module+"/") && strings.Contains(imp+"/", "/internal/") {
				seen[imp] = true
				t.Errorf("%s imports %s: examples use public packages only", p, imp)
			}
		}
	}
	if n == 0 {
		t.Fatal("no examples found")
	}
}
