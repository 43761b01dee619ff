package pgstore

import (
	"errors"

	"github.com/mnemo-go/mnemo/internal/store"
)

// The texts of ErrSchemaTooNew, ErrNoSuchSchema, ErrNoVector,
// ErrVectorNotOnPath, ErrEncoding, ErrMigrationUnderLoad and
// ErrSchemaMigrated name engine, not this package: the
// engine re-exports these values (engine.ErrSchemaTooNew,
// engine.ErrNoSuchSchema, engine.ErrNoVector, engine.ErrVectorNotOnPath,
// engine.ErrDatabaseEncoding), and users meet them there.

// ErrSchemaTooNew is returned by Open when the database's schema_version is
// above SchemaVersion: it was migrated by a newer mnemo. Nothing is written.
// It is store.ErrSchemaTooNew, so one errors.Is check serves both
// backends.
var ErrSchemaTooNew = store.ErrSchemaTooNew

// ErrMigrationUnderLoad is returned by Open, OpenExisting, OpenWith and
// OpenDB (as an *UnderLoadError naming the sessions) when the schema needs
// migrating and sessions of older mnemo builds are connected to it: they
// would go on writing rows of their version into the migrated schema.
// Nothing was migrated.
var ErrMigrationUnderLoad = errors.New("engine: schema migration refused while older mnemo processes use the schema")

// ErrSchemaMigrated is returned by CheckVersion when the schema's version
// is no longer this build's: a newer build migrated it while this process
// ran. Nothing of the transaction is written.
var ErrSchemaMigrated = errors.New("engine: the schema was migrated by another mnemo build while this process ran")

// ErrNoSchema is returned by OpenExisting when the database (the first
// schema of its search_path) holds no mnemo tables; nothing was created.
var ErrNoSchema = errors.New("pgstore: no mnemo tables in this database")

// ErrNoSuchSchema is returned by Open and OpenExisting when the first
// schema the DSN's search_path names does not exist: Postgres would create
// mnemo's tables in the next schema of the path that does (public, say),
// so nothing is created and the error names the schema to create. A path
// that starts with "$user" is checked only when no schema of it exists
// (Postgres: "no schema has been selected to create in"): the error then
// names the role's schema that "$user" stands for.
var ErrNoSuchSchema = errors.New("engine: the search_path's first schema does not exist")

// ErrNoVector is returned by Open when the pgvector extension is neither
// installed in the database nor installable by the connecting role (it is
// packaged as postgresql-NN-pgvector; CREATE EXTENSION vector needs a role
// allowed to create it).
var ErrNoVector = errors.New("engine: the pgvector extension (vector) is not available")

// ErrVectorNotOnPath is returned by Open when the pgvector extension is
// installed in a schema the DSN's search_path leaves out
// (search_path=walk31 where vector lives in public): mnemo's tables could
// not name its type (Postgres said `type "vector" does not exist`). The
// message names that schema and the search_path to give
// (search_path=walk31,public); nothing is created.
var ErrVectorNotOnPath = errors.New("engine: the pgvector extension's schema is not on the search_path")

// ErrEncoding is returned by Open, OpenExisting and OpenDB when the
// database's server_encoding is not UTF8 (a database created with
// ENCODING 'SQL_ASCII' or 'LATIN1'), or the connection's client_encoding
// is not: such a database cuts text inside a character or cannot hold it.
// The message names the encoding and how to create a UTF8 database;
// nothing is read from or written to the database first.
var ErrEncoding = errors.New("engine: the database's encoding is not UTF8")

// ErrEmbedderDims is returned by EnsureEmbedder when the embedder is
// already registered with another number of dimensions.
var ErrEmbedderDims = errors.New("pgstore: embedder registered with other dimensions")

// ErrInvalid is returned for a malformed argument; the message names the
// field.
var ErrInvalid = errors.New("pgstore: invalid argument")
