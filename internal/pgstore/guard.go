package pgstore

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// This file is the migration guard: a build about to migrate a schema
// that older builds may still be writing (walk35: an old server kept
// writing lexical entries without the date columns the new schema reads,
// and its messages then ranked lower; mnemo check said ok) first looks for
// their sessions and refuses while there are any.

// Session is a connection to the database that the migration guard takes
// for a mnemo process of an older build on the schema it would migrate.
type Session struct {
	PID     int32  // the server process (pg_stat_activity.pid)
	AppName string // its application_name, "" for none
	Client  string // address:port it connects from, "local" for a Unix socket
	// Version is the schema version its build writes, from its session
	// mark; 0 when unknown: a build from before the marks (schema 7), seen
	// by its statements and its empty application_name, whose schema
	// cannot be told (it may be another schema of the database).
	Version int
}

// UnderLoadError is returned by Open, OpenExisting, OpenWith and OpenDB
// (errors.Is ErrMigrationUnderLoad) when the schema needs migrating from
// version From to To and Sessions of older builds are connected to it;
// nothing was migrated.
type UnderLoadError struct {
	From, To int
	Sessions []Session
}

// maxNamed bounds how many sessions UnderLoadError's text names.
const maxNamed = 5

func (e *UnderLoadError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: the schema is at version %d and this build would migrate it to %d, but %d %s of an older mnemo %s connected (",
		ErrMigrationUnderLoad, e.From, e.To, len(e.Sessions), plural(len(e.Sessions), "session", "sessions"),
		plural(len(e.Sessions), "is", "are"))
	for i, s := range e.Sessions {
		if i == maxNamed {
			fmt.Fprintf(&b, "; and %d more", len(e.Sessions)-maxNamed)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "pid %d, application_name %q, client %s, ", s.PID, s.AppName, s.Client)
		if s.Version > 0 {
			fmt.Fprintf(&b, "schema version %d", s.Version)
		} else {
			b.WriteString("a build before session marks, schema not known")
		}
	}
	b.WriteString("): rows they write into the migrated schema would lack what it needs. Stop them, then open again; " +
		"or migrate anyway with --migrate-under-load (engine.Config.MigrateUnderLoad) and run mnemo reindex once they are stopped " +
		"(docs/postgres.md, \"Upgrading\")")
	return b.String()
}

func (e *UnderLoadError) Unwrap() error { return ErrMigrationUnderLoad }

// plural is one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// oldBuild matches the statement texts by which a session of a build from
// before the session marks is recognised: mnemo's tables, and pgvector-go's
// type lookup, each connection's first statement. Such a build sets no
// application_name.
var oldBuild = regexp.MustCompile(`\b(lexical_docs|lexical_stats|lexical_df|schema_version|outbox|message_blobs|messages|threads|` +
	`working_memory|working_config|observations|dispatches|embedders|embeddings|journal)\b|to_regtype\('_sparsevec'\)`)

// sessionsSQL lists the other client sessions on the database with their
// mark on this schema (here: the highest version, NULL for none) and
// whether they hold a mark at all (on any schema). $1 is sessionMarkClass.
const sessionsSQL = `SELECT a.pid, coalesce(a.application_name, ''), coalesce(host(a.client_addr), ''), coalesce(a.client_port, -1),
	coalesce(a.query, ''),
	(SELECT max(l.classid::bigint - $1) FROM pg_locks l
		WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.objsubid = 2 AND l.classid::bigint BETWEEN $1 + 1 AND $1 + 255
		AND l.objid = hashtext(coalesce(current_schema(), ''))::oid),
	EXISTS (SELECT 1 FROM pg_locks l
		WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.objsubid = 2 AND l.classid::bigint BETWEEN $1 + 1 AND $1 + 255)
FROM pg_stat_activity a
WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.backend_type = 'client backend'
ORDER BY a.pid`

// staleSessions returns the sessions of builds older than target on tx's
// schema: a session marked on this schema with a lower version; an
// unmarked one whose application_name is appName's of a lower version
// (one still connecting); an unmarked one with no application_name whose
// last statement is mnemo's (oldBuild). keep, when not nil, keeps only the
// sessions it reports true for (tests: the shared server's other sessions).
func staleSessions(ctx context.Context, tx pgx.Tx, target int, keep func(pid int32) bool) ([]Session, error) {
	rows, err := tx.Query(ctx, sessionsSQL, int64(sessionMarkClass))
	if err != nil {
		return nil, fmt.Errorf("list the database's sessions: %w", err)
	}
	var out []Session
	for rows.Next() {
		var s Session
		var addr, query string
		var port int32
		var here *int64
		var marked bool
		if err := rows.Scan(&s.PID, &s.AppName, &addr, &port, &query, &here, &marked); err != nil {
			return nil, fmt.Errorf("list the database's sessions: %w", err)
		}
		s.Client = client(addr, port)
		if keep != nil && !keep(s.PID) {
			continue
		}
		if v, stale := sessionVersion(s.AppName, query, here, marked, target); stale {
			s.Version = v
			out = append(out, s)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list the database's sessions: %w", err)
	}
	return out, nil
}

// sessionVersion decides whether a session is of a build older than
// target on this schema (stale) and the version its build writes (0:
// unknown), from its mark on this schema (here), whether it has any mark,
// its application_name and its last statement.
func sessionVersion(app, query string, here *int64, marked bool, target int) (v int, stale bool) {
	switch {
	case here != nil:
		return int(*here), int(*here) < target
	case marked:
		return 0, false // a mnemo session of another schema
	case strings.HasPrefix(app, appNamePrefix):
		n, err := strconv.Atoi(strings.TrimPrefix(app, appNamePrefix))
		return n, err == nil && n < target
	case app == "" && oldBuild.MatchString(query):
		return 0, true
	}
	return 0, false
}

// client is a session's address as Session.Client gives it.
func client(addr string, port int32) string {
	if addr == "" || port < 0 {
		return "local"
	}
	if strings.Contains(addr, ":") {
		return "[" + addr + "]:" + strconv.Itoa(int(port))
	}
	return addr + ":" + strconv.Itoa(int(port))
}
