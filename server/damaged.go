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
// problem (engine.ErrDatabaseReplaced): mnemo.db was replaced at its
// path while the server had it open (a backup renamed over it under the
// running server), so every write would go into the old file, lost when
// the server stops. Answered by every write and by GET /healthz from
// then on, without Retry-After: it lasts until the server is restarted.
// Its steps end with mnemo --dir DIR reindex: the lexical index holds
// the text of the messages the new file lacks (mnemo check reported
// them, and no erasure reaches them; readme68 F5).
const DatabaseReplacedDetail = "mnemo.db was replaced while this process had it open; restart it: stop the server, " +
	"delete mnemo.db-wal and mnemo.db-shm beside the new mnemo.db in the server's data directory DIR (they are the old file's, " +
	"and the next start would apply that log over the new file), rebuild the indexes from the new file: mnemo --dir DIR reindex " +
	"(they hold the text of messages it lacks), and start it again; nothing was stored since the replacement was noticed"

// WALReplacedDetail is the detail of the 503 "database-replaced" problem
// when only mnemo.db-wal was removed from its path (deleted or moved to
// another name; or another file put there) while the server had it open
// (engine.ErrWALReplaced): mnemo.db is still the server's file, and the log the server holds open has the
// writes it acknowledged that are not yet in mnemo.db. A clean stop
// writes them into mnemo.db; a kill loses them. It said mnemo.db was
// replaced and that the writes were lost (readme68 F11).
const WALReplacedDetail = "mnemo.db-wal, the write-ahead log of this server's mnemo.db, was removed, moved or replaced while this process had it open; " +
	"nothing more is stored. The writes it acknowledged that are not yet in mnemo.db are in the removed or moved log, which this process holds open: " +
	"stop the server cleanly (SIGTERM or Ctrl-C, not kill -9), and its close writes them into mnemo.db and deletes mnemo.db-wal and mnemo.db-shm; " +
	"then start it again. A log moved to another name stays there with their text, which no erasure reaches: delete it after the stop (mnemo check names it). " +
	"If it was killed, they are lost: then run mnemo --dir DIR reindex (DIR: its data directory) before starting it again"

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
	case errors.Is(err, engine.ErrWALReplaced):
		return &apiError{kind: kindReplaced, detail: WALReplacedDetail, cause: err, lasting: true}
	case errors.Is(err, engine.ErrDatabaseReplaced):
		return &apiError{kind: kindReplaced, detail: DatabaseReplacedDetail, cause: err, lasting: true}
	case errors.Is(err, engine.ErrDatabaseCorrupt):
		return &apiError{kind: kindDamaged, detail: DatabaseDamagedDetail, cause: err, lasting: true}
	case engine.IsDatabaseCorrupt(err):
		return &apiError{kind: kindDamaged, detail: PostgresDamagedDetail, cause: err, lasting: true}
	}
	return nil
}
