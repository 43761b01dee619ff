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
//     copied out of the module.
//
// # Imports
//
// Its tests read the module's Go files with go/build; they import nothing
// of mnemo.
package layout
