// Package enginetest holds test helpers shared by mnemo's packages: an engine
// on a temporary directory that is checked for consistency when the test ends
// (MustOpen), and a private TMPDIR that fails the run when a test leaves files
// behind (PrivateTempDir). Only tests import it.
//
// # Imports
//
// It may import engine and recall: it and its subpackage synth (the
// synthetic corpus of tests and `mnemo bench`) are the only packages under
// internal/ that stand above the engine (internal/layout checks this),
// because their helpers open engines or build engine messages.
package enginetest
