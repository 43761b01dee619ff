package server

import (
	"errors"

	"github.com/mnemo-go/mnemo/engine"
)

// DatabaseDamagedDetail is the detail of the 503 "database-damaged"
// problem of a request that met a damaged page of mnemo.db, or came after
// one did and would store new data
// (engine.ErrDatabaseCorrupt), the HTTP API's and the MCP tools' alike,
// and of GET /healthz from then on. It names no page, row or path (the
// server log has the path): the damaged page may hold another tenant's
// data, so the commands to run name the directory DIR. Its steps are
// those of the CLI's advice (cmd/mnemo printCorruptAdvice, which server
// may not import): restore, delete the -wal and -shm, reindex, check
// --full; before, it named only the restore and check --full, and a
// backup restored beside the damaged server's WAL read as damaged. Answered without
// Retry-After: the file does not heal (though a server refusing because
// of the record alone stores again once the record is removed: it reads
// it again at most every 2 seconds).
const DatabaseDamagedDetail = "the database file was found damaged (SQLite met a damaged page of it, in this server or in a process before it, " +
	"which left a record of it beside the file): this server answers no request that needs a damaged page, and stores nothing new " +
	"(messages, contexts and their records, working memory, observations), until its operator stops it and, in the server's data directory DIR, " +
	"restores mnemo.db from a backup (docs/operations.md, \"Backups\"), deletes mnemo.db-wal and mnemo.db-shm beside it " +
	"(this server's write-ahead log would be applied over the backup), rebuilds the indexes from it: mnemo --dir DIR reindex, " +
	"then runs mnemo --dir DIR check --full (which removes the record once it finds the file sound); " +
	"or, without a backup, runs mnemo --dir DIR salvage; then starts it again (the server log has the path); reads that miss the damaged pages still answer"

// DatabaseReplacedDetail is the detail of the 503 "database-replaced"
// problem (engine.ErrDatabaseReplaced): mnemo.db, or the mnemo.db-wal the
// server writes, was replaced at its path while the server had it open
// (a backup renamed over it under the running server), so every write
// would go into the old file, lost when the server stops. Answered by
// every write and by GET /healthz from then on, without Retry-After: it
// lasts until the server is restarted.
const DatabaseReplacedDetail = "mnemo.db was replaced while this process had it open; restart it: stop the server, " +
	"delete mnemo.db-wal and mnemo.db-shm beside the new mnemo.db in the server's data directory (they are the old file's, " +
	"and the next start would apply that log over the new file), and start it again; nothing was stored since the replacement was noticed"

// PostgresDamagedDetail is DatabaseDamagedDetail on Postgres: the server
// answered a statement of this request with SQLSTATE XX001
// (data_corrupted) or XX002 (index_corrupted).
const PostgresDamagedDetail = "the Postgres database reported damaged data (SQLSTATE XX001 data_corrupted or XX002 index_corrupted) " +
	"to this request, so it was not done; the server's operator must repair the database (REINDEX a damaged index, " +
	"restore damaged table data from a backup; the server log has the error)"

// databaseDamaged is the problem of err when it is a damaged database's
// (engine.IsDatabaseCorrupt), or a replaced one's (engine.ErrDatabaseReplaced:
// 503 "database-replaced"), nil for any other error: 503
// "database-damaged" without Retry-After (lasting), as /healthz answers
// once the engine has found its file damaged. A 500 "internal" before
// 2026-12-06, 503 "unavailable" before 2026-12-07.
func databaseDamaged(err error) *apiError {
	switch {
	case errors.Is(err, engine.ErrDatabaseReplaced):
		return &apiError{kind: kindReplaced, detail: DatabaseReplacedDetail, cause: err, lasting: true}
	case errors.Is(err, engine.ErrDatabaseCorrupt):
		return &apiError{kind: kindDamaged, detail: DatabaseDamagedDetail, cause: err, lasting: true}
	case engine.IsDatabaseCorrupt(err):
		return &apiError{kind: kindDamaged, detail: PostgresDamagedDetail, cause: err, lasting: true}
	}
	return nil
}
