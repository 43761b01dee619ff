// Package layout holds no code: its tests check the module's package
// layering (the floors of DESIGN.md's layout table), so that a change
// that breaks it fails `go test ./...`:
//
//   - below the engine: no package under internal/ depends on engine,
//     directly or through another package, except internal/enginetest and
//     its subpackages (test helpers that open engines);
//   - the domain packages (recall, journal, working, observe, tools) do
//     not depend on engine;
//   - examples/ import no internal/ package, so their programs can be
//     copied out of the module;
//   - one owner per table (issue 13): recall needs no storage package, no
//     journal and no engine; internal/msgstore builds only on internal/store
//     and recall; at most 3 non-test files of engine hold SQL; Engine
//     exposes no raw database pool;
//   - internal/pgrecall (recall on Postgres) builds only on recall,
//     internal/bm25 and internal/pgstore;
//   - no non-test function of a library package is longer than 80 lines,
//     and every library package has a doc.go with an "# Imports" section.
//   - every platform's build (linux, darwin, freebsd, windows) declares
//     each top-level name once and every name its files use that Linux
//     declares (the files with build constraints; parsed, not compiled).
//   - the README's test command ("Two commands") lifts go test's
//     10-minute timeout a package and is the line .ci/run runs;
//   - no exported type of a public package is an alias of an internal/
//     package's type (go doc would show none of its fields or methods);
//   - no exported error variable of a public package has a text that
//     begins with the name of a package under internal/ (a re-exported
//     sentinel says "engine: …", not "pgstore: …");
//   - every relative link of README.md, BENCHMARKS.md and docs/*.md names
//     a file that exists and, with "#anchor", a heading or <a id> of it
//     (GitHub's anchor rule), and every docs/NAME.md a Go file names
//     exists.
//
// # Imports
//
// Its tests read the module's Go files with go/build; they import nothing
// of mnemo.
package layout
