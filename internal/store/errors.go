package store

import "errors"

// ErrSchemaTooNew is returned by Open when the database was written by a newer
// version of mnemo (its schema version is above SchemaVersion). The file is not
// modified.
var ErrSchemaTooNew = errors.New("store: database schema is newer than this build")
