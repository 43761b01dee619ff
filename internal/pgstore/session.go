package pgstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// This file marks every connection of this build as a mnemo session of its
// schema and version, so that a later build about to migrate that schema
// sees it (staleSessions) and does not migrate under it.

// appName is the application_name of this build's connections when the
// DSN (or PGAPPNAME) sets none: "mnemo/schema=7" for SchemaVersion 7,
// shown in pg_stat_activity for operators. The migration guard does not
// depend on it for sessions of this build on (a DSN may name its own): it
// reads the session mark.
func appName() string { return appNamePrefix + strconv.Itoa(SchemaVersion) }

// appNamePrefix begins appName.
const appNamePrefix = "mnemo/schema="

// sessionMarkClass is the first key of the session mark, the shared
// session-level advisory lock every connection of a pool holds from its
// schema check until it closes: sessionMarkClass | version ("mns" and the
// schema version this build writes), the second key
// hashtext(current_schema()). pg_locks shows it to any role (classid,
// objid, objsubid 2), so a migrator tells a session of its schema and of
// an older version (staleSessions) from one of another schema. The range
// 0x6d6e7301–0x6d6e73ff is mnemo's alone (msgstore's thread locks are
// 0x6d6e0001 and 0x6d6e0002, the journal's 0x6d6e6a6c).
const sessionMarkClass = 0x6d6e7300

// markSession takes c's session mark of SchemaVersion, for the schema
// of c's search_path (after ensureSchema): one statement, no wait (a
// shared lock that nothing takes exclusively).
func markSession(ctx context.Context, c *pgx.Conn) error {
	mark := fmt.Sprintf(`SELECT pg_advisory_lock_shared(%d, hashtext(coalesce(current_schema(), '')))`, sessionMarkClass|SchemaVersion)
	if _, err := c.Exec(ctx, mark, pgx.QueryExecModeSimpleProtocol); err != nil {
		return fmt.Errorf("mark the session: %w", err)
	}
	return nil
}
