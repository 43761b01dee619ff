// Package pgtest gives tests a throwaway Postgres schema on the server
// named by MNEMO_TEST_POSTGRES (start one with
// ../shared/scripts/pg-test-server start, or use any Postgres with
// pgvector installed). Tests that need Postgres call DSN and skip, with a
// message, when the variable is unset, so the suite runs without Postgres.
//
// # Imports
//
// pgtest imports pgx (with its pgxpool), testing and the standard library
// only, nothing of mnemo; test code of any package may use it. Proxy puts a loopback
// proxy between an engine and the server, for tests of an outage.
//
// # Invariants
//
//   - DSN's schema is new and empty, and is dropped with everything in it
//     when the test ends; its search_path is that schema then public, where
//     pgvector's types live. A session still working in the schema then,
//     deadlocked with the drop, fails rather than the drop (adminPool).
//
// # Concurrency
//
// Tests in parallel each get their own schema; nothing is shared but the
// server and the pool of connections (one per server for the test
// process) the schemas are created and dropped on.
//
// # Errors
//
// Failures to reach the server or create the schema fail the test
// (tb.Fatalf); an unset MNEMO_TEST_POSTGRES skips it.
package pgtest
