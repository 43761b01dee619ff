// Package storetest runs a table owner's tests on every backend: SQLite
// (internal/store, a file under t.TempDir()) and Postgres (internal/pgstore
// through pgx's database/sql driver, on a throwaway schema of the server
// named by MNEMO_TEST_POSTGRES; skipped with a message when it is unset).
// The owners' conformance suites (journal, working, observe, tools,
// internal/msgstore) loop over Backends with the same assertions, so each
// owner must behave the same on both. Backend.Plan gives a statement's
// plan on either (EXPLAIN QUERY PLAN, EXPLAIN), with which the owners'
// tests pin that a listing reads an index rather than sorting a table.
// Only tests import it.
//
// # Imports
//
// It may import internal/store, internal/pgstore and internal/pgstore/pgtest;
// never engine or the owners it tests.
package storetest
