package working

import "errors"

// ErrInvalidSchema is returned by New when Config.Schema or Config.SchemaOf
// does not yield a usable JSON Schema: it does not compile, its root is not
// an object schema, or it holds a $ref that cannot be inlined.
var ErrInvalidSchema = errors.New("working: invalid schema")

// ErrInvalidConfig is returned by New for an inconsistent Config (an unknown
// mode or scope, a schema in template mode, no schema in schema mode).
var ErrInvalidConfig = errors.New("working: invalid config")

// ErrInvalidKey is returned by every method given a scope key that is not
// "thread:<id>" or "resource:<id>" with a non-empty id, or a key of the
// other scope than the one configured.
var ErrInvalidKey = errors.New("working: invalid scope key")

// ErrOwnerMismatch is returned by the update methods when Origin.ResourceID
// names a resource other than the one that owns the state (Config.OwnerOf).
// Its text names neither resource. Nothing is stored.
var ErrOwnerMismatch = errors.New("working: the state belongs to another resource")

// ErrModeMismatch is returned by Merge and Edit when the stored state was
// written in the other mode (the configuration changed since, from schema
// to template mode or back): a partial update needs the state in the
// memory's mode. Set replaces such a state; Get and Render read it as it
// is. The message names the key and both modes.
var ErrModeMismatch = errors.New("working: stored state has another mode")

// ErrVersionGone is returned by GetVersion when the key's history does not
// hold the version asked for: an erasure removed it (Rebuild drops the
// versions derived from erased turns), Delete or DeleteOwned erased the
// state, or the version was never written. Its text names the key, the
// version and the state's current version.
var ErrVersionGone = errors.New("working: version not in the history")

// ErrInvalidPatch is returned by Merge and Set in schema mode when the
// update is not valid JSON or not a JSON object.
var ErrInvalidPatch = errors.New("working: invalid update")

// ErrSchemaViolation is returned by Merge and Set when the resulting state
// does not validate against the schema. The message lists each violation
// with its JSON pointer, e.g. "at /city: got number, want string".
var ErrSchemaViolation = errors.New("working: update violates the schema")

// ErrSearchNotFound is returned by Edit when the search text does not occur
// in the document.
var ErrSearchNotFound = errors.New("working: search text not found")

// ErrSearchNotUnique is returned by Edit when the search text occurs more
// than once in the document.
var ErrSearchNotUnique = errors.New("working: search text occurs more than once")

// ErrTooLarge is returned by the update methods when the resulting state
// exceeds Config.MaxChars.
var ErrTooLarge = errors.New("working: state too large")

// ErrWrongMode is returned by Merge on a template memory and by Replace and
// Edit on a schema memory.
var ErrWrongMode = errors.New("working: update does not fit the memory's mode")

// ErrConflict is returned by the update methods when the compare-and-swap
// lost to other writers MaxRetries times in a row.
var ErrConflict = errors.New("working: too many concurrent updates")

// Refused reports whether err is the refusal of an update (as opposed to a
// configuration, contention or storage error): the state is unchanged and
// err says what is wrong with the update itself.
func Refused(err error) bool {
	for _, e := range []error{ErrInvalidPatch, ErrSchemaViolation, ErrSearchNotFound,
		ErrSearchNotUnique, ErrTooLarge, ErrWrongMode, ErrModeMismatch} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
