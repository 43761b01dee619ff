// Package legacyid lets tests store the ids that only a store written
// before mnemo refused them for new data can hold: "." and "..", and ids
// beginning with "erased-" (engine.ValidNewID).
// Such a store stays readable and erasable by those ids; the tests of
// package engine, server, inspector and the commands need one, on SQLite
// and on Postgres alike, without writing rows behind the engine's back.
//
// Allow is nil until package engine is initialised, which sets it; it is
// never changed after. Nothing but tests calls it.
//
// # Imports
//
// legacyid imports nothing. Package engine imports it to set Allow (the
// engine's field it flips is unexported); tests of other packages import
// it to call Allow.
package legacyid

// Allow makes e, an *engine.Engine, take "." and ".." and ids beginning
// with "erased-" as new thread, resource, message, tool-call and run ids
// from then on, as engine.ValidID did before engine.ValidNewID, for a test
// that needs a store holding them.
// It panics when e is not an *engine.Engine.
var Allow func(e any)
