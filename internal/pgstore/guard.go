package pgstore

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

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
	// by its statements and its empty application_name.
	Version int
	// Locked reports that a session without a mark on this schema holds
	// or awaits a lock on one of the schema's tables, so it is on this
	// schema (it is in a statement or a transaction). A session of a
	// build before the marks that holds no lock there may be on another
	// schema of the database: its schema cannot be told ("schema not
	// known"); one that holds locks only on another mnemo schema's tables
	// is not listed.
	Locked bool
	// State is its pg_stat_activity.state ("active", "idle", "idle in
	// transaction", …; "" when the role may not see it), and Idle, when
	// the state is "idle", how long since its last statement ended
	// (state_change), else 0. An idle session belongs to a running
	// process: a backend ends when its client closes the connection, and
	// mnemo's pool (pgxpool) closes one after 30 minutes idle.
	State string
	Idle  time.Duration
	// Table names what its last statement was recognised by, for a
	// session without a mark (Version 0): one of mnemo's tables,
	// "pgvector's type lookup" (each connection's first statement), "a
	// ping (-- ping, as a health check sends)", or "pgx's commit" (also
	// begin, rollback: a transaction's end, as pgx spells it); ""
	// otherwise.
	Table string
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
		switch {
		case s.Version > 0:
			fmt.Fprintf(&b, "schema version %d", s.Version)
		case s.Locked:
			b.WriteString("a build before session marks, in a transaction on this schema")
		default:
			b.WriteString("a build before session marks, " + s.unplaced() + ", schema not known")
		}
	}
	b.WriteString("): rows they write into the migrated schema would lack what it needs. Stop them, then open again; " +
		"or migrate anyway with --migrate-under-load (engine.Config.MigrateUnderLoad) and run mnemo reindex once they are stopped")
	if slices.ContainsFunc(e.Sessions, func(s Session) bool { return s.Version == 0 && !s.Locked }) {
		b.WriteString(". A session of a build before the marks shows its schema only while in a statement or a transaction; " +
			"an idle one is a running process's (its pool keeps it between requests): find each process by its client address " +
			"and port on that host (ss -tnp 'sport = :PORT'). If every one of them serves another schema of this database, " +
			"--migrate-under-load is safe here and no reindex is needed; if one serves this schema, stop it first")
	}
	b.WriteString(" (docs/postgres.md, \"Upgrading\")")
	return b.String()
}

// unplaced describes a session of a build before the marks that holds no
// lock on a schema: its state, how long it has been idle, and the table
// its last statement was recognised by.
func (s Session) unplaced() string {
	state := s.State
	switch {
	case state == "":
		state = "state not visible"
	case state == "idle":
		state = "idle " + s.Idle.Round(time.Second).String()
	}
	switch {
	case s.Table == "":
		return state
	case s.Table == typeLookup || s.Table == pgxPing || strings.HasPrefix(s.Table, "pgx's "):
		return state + " since " + s.Table
	}
	return state + " since a statement on " + s.Table
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
// before the session marks is recognised: mnemo's tables; pgvector-go's
// type lookup, each connection's first statement; pgx's ping ("--
// ping", the whole statement), which engine.Ping sends (GET /healthz): a
// serve that only answered health checks since its last request keeps a
// pooled session whose last statement is that ping (seen with a build of
// 1488ed8^, which a migration then went past); and the statements by
// which pgx begins and ends a transaction ("begin…", "commit",
// "rollback", lower case as pgx sends them), the last of a pooled session
// after every write (seen with the same build). Such a build sets no
// application_name. Another pgx program without one whose last statement
// was one of these is taken for one too ("schema not known").
var oldBuild = regexp.MustCompile(`\b(lexical_docs|lexical_stats|lexical_df|schema_version|outbox|message_blobs|messages|threads|` +
	`working_memory|working_config|observations|dispatches|embedders|embeddings|journal)\b|to_regtype\('_sparsevec'\)|^(-- ping|commit|rollback|begin)( |$)`)

// What oldBuild recognised a session by when it was not a table's name
// (Session.Table).
const (
	typeLookup = "pgvector's type lookup"
	pgxPing    = "a ping (-- ping, as a health check sends)"
)

// sessionsSQL lists the other client sessions on the database with their
// mark on this schema (here: the highest version, NULL for none), whether
// they hold a mark at all (on any schema), and whether they hold or await
// a lock on a relation of this schema (the relation locks of a statement
// or a transaction; pg_locks shows them to any role) and on one of
// another schema holding mnemo's tables (one with schema_version); with
// its last statement, its state and, idle, for how long (microseconds).
// $1 is sessionMarkClass.
const sessionsSQL = `WITH here AS (SELECT oid FROM pg_namespace WHERE nspname = current_schema()),
	db AS (SELECT oid FROM pg_database WHERE datname = current_database()),
	rel AS (SELECT l.pid, c.relnamespace AS ns FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
		WHERE l.locktype = 'relation' AND l.database = (SELECT oid FROM db))
SELECT a.pid, coalesce(a.application_name, ''), coalesce(host(a.client_addr), ''), coalesce(a.client_port, -1),
	coalesce(a.query, ''), coalesce(a.state, ''),
	CASE WHEN a.state = 'idle' THEN (extract(epoch FROM clock_timestamp() - a.state_change) * 1e6)::bigint ELSE 0 END,
	(SELECT max(l.classid::bigint - $1) FROM pg_locks l
		WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.objsubid = 2 AND l.classid::bigint BETWEEN $1 + 1 AND $1 + 255
		AND l.objid = hashtext(coalesce(current_schema(), ''))::oid),
	EXISTS (SELECT 1 FROM pg_locks l
		WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.objsubid = 2 AND l.classid::bigint BETWEEN $1 + 1 AND $1 + 255),
	EXISTS (SELECT 1 FROM rel WHERE rel.pid = a.pid AND rel.ns = (SELECT oid FROM here)),
	EXISTS (SELECT 1 FROM rel WHERE rel.pid = a.pid AND rel.ns IS DISTINCT FROM (SELECT oid FROM here)
		AND EXISTS (SELECT 1 FROM pg_class v WHERE v.relnamespace = rel.ns AND v.relname = 'schema_version'))
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
		var idleMicros int64
		var m seen
		if err := rows.Scan(&s.PID, &s.AppName, &addr, &port, &query, &s.State, &idleMicros,
			&m.here, &m.marked, &m.lockedHere, &m.lockedElsewhere); err != nil {
			return nil, fmt.Errorf("list the database's sessions: %w", err)
		}
		s.Client = client(addr, port)
		if keep != nil && !keep(s.PID) {
			continue
		}
		if v, stale := m.version(s.AppName, query, target); stale {
			s.Version, s.Locked = v, m.here == nil && m.lockedHere
			s.Idle = time.Duration(idleMicros) * time.Microsecond
			if v == 0 {
				s.Table = recognisedBy(query)
			}
			out = append(out, s)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list the database's sessions: %w", err)
	}
	return out, nil
}

// seen is what pg_locks shows of a session: its mark on this schema
// (here: the version, nil for none), whether it has a mark on any schema,
// and whether it holds or awaits relation locks on this schema's tables
// or on another mnemo schema's.
type seen struct {
	here                        *int64
	marked                      bool
	lockedHere, lockedElsewhere bool
}

// version decides whether a session is of a build older than target on
// this schema (stale) and the version its build writes (0: unknown), from
// its marks and locks (m), its application_name and its last statement:
// a session marked on this schema is stale when its version is lower; one
// marked only on another schema is not. An unmarked one named
// mnemo/schema=N (N lower: still connecting), or with no application_name
// whose last statement is mnemo's (oldBuild: a build before the marks),
// is stale unless its relation locks place it on another mnemo schema
// only (it is busy there); when it holds none its schema is not known and
// it is taken for this schema's.
func (m seen) version(app, query string, target int) (v int, stale bool) {
	switch {
	case m.here != nil:
		return int(*m.here), int(*m.here) < target
	case m.marked:
		return 0, false // a mnemo session of another schema
	case m.lockedElsewhere && !m.lockedHere:
		return 0, false // busy on another mnemo schema
	case strings.HasPrefix(app, appNamePrefix):
		n, err := strconv.Atoi(strings.TrimPrefix(app, appNamePrefix))
		return n, err == nil && n < target
	case app == "" && oldBuild.MatchString(query):
		return 0, true
	}
	return 0, false
}

// recognisedBy is what in query oldBuild matched: a table's name,
// typeLookup or pgxPing; "" when nothing did.
func recognisedBy(query string) string {
	switch m := oldBuild.FindString(query); {
	case m == "":
		return ""
	case strings.HasPrefix(m, "to_regtype"):
		return typeLookup
	case m == "-- ping":
		return pgxPing
	case m == "commit" || m == "rollback" || strings.HasPrefix(m, "begin"):
		return "pgx's " + strings.TrimSpace(m)
	default:
		return m
	}
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
