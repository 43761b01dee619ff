package recall

import (
	"errors"
	"fmt"
)

// ErrInvalidFilter is the sentinel every *FilterError matches with errors.Is.
// ParseFilter returns it (wrapped in a *FilterError) for a filter that is not
// valid JSON, uses an unknown operator or field, or gives an operator a value
// of the wrong shape.
var ErrInvalidFilter = errors.New("recall: invalid filter")

// ErrInvalidOptions is returned by Options.Validate and Index.Search for an
// out-of-range option: a negative TopK, a threshold outside [-1, 1], an
// unknown scope, mode or fusion, a negative or oversized message range.
var ErrInvalidOptions = errors.New("recall: invalid options")

// ErrInvalidQuery is returned by Index.Search when the query names no
// resource, or scope "thread" names no thread: every *QueryError matches it
// with errors.Is.
var ErrInvalidQuery = errors.New("recall: invalid query")

// QueryError reports a Query that Search (and Query.Prepare) cannot run.
// errors.Is(err, ErrInvalidQuery) holds for every *QueryError; branch on
// Field, never on the text.
type QueryError struct {
	// Field is the Query field at fault: "ResourceID" (empty), or
	// "ThreadID" (empty with ScopeThread).
	Field string
	// Rule says what Field breaks, e.g. "scope thread needs a thread".
	Rule string
}

// Error implements error: "recall: invalid query: " and the Rule.
func (e *QueryError) Error() string { return ErrInvalidQuery.Error() + ": " + e.Rule }

// Is reports ErrInvalidQuery as matching every QueryError.
func (e *QueryError) Is(target error) bool { return target == ErrInvalidQuery }

// ErrDimension is returned when a vector does not have the embedder's
// dimension: by Index.Search and Index.AddVectors, and by embedders whose
// endpoint answers with vectors of another length.
var ErrDimension = errors.New("recall: vector dimension mismatch")

// ErrEmbed is returned (wrapped with the cause) by the OpenAI-compatible
// embedder when the endpoint fails after every retry, or answers with the
// wrong number of vectors.
var ErrEmbed = errors.New("recall: embedding failed")

// ErrCorrupt is returned by OpenLexical when the index directory exists but
// cannot be opened as a bleve index. The caller quarantines the directory and
// rebuilds (the index is derived: SQLite is the authority).
var ErrCorrupt = errors.New("recall: lexical index is corrupt")

// ErrStaleIndex is returned by OpenLexical when the index directory was
// built with another analyzer than AnalyzerName (by an older mnemo): its
// terms are not those queries are analysed into. The caller removes the
// directory and rebuilds it from the store.
var ErrStaleIndex = errors.New("recall: lexical index built with another analyzer")

// ErrLocked is returned by OpenLexical when another process holds the
// index directory (bbolt's lock on store/root.bolt stayed taken for
// BoltTimeout). The directory is not damaged: do not quarantine it.
var ErrLocked = errors.New("recall: lexical index is locked by another process")

// ErrClosed is returned by every method of a closed Index or Lexical.
var ErrClosed = errors.New("recall: index is closed")

// FilterError reports an invalid filter. Path is the JSON path of the
// offending clause, e.g. "$and[1].metadata.topic"; Op is the operator being
// parsed ("$in"), or "" when the field itself is the problem.
//
// errors.Is(err, ErrInvalidFilter) holds for every *FilterError.
type FilterError struct {
	// Path is the JSON path of the offending clause, e.g. "$and[1].metadata.topic"; "" for the whole filter.
	Path string
	// Op is the operator being parsed ("$in"), or "" when the field itself is the problem.
	Op string
	// Err is the cause.
	Err error
}

// Error implements error.
func (e *FilterError) Error() string {
	where := e.Path
	if where == "" {
		where = "$"
	}
	if e.Op != "" {
		return fmt.Sprintf("recall: invalid filter at %s (%s): %v", where, e.Op, e.Err)
	}
	return fmt.Sprintf("recall: invalid filter at %s: %v", where, e.Err)
}

// Unwrap returns the cause.
func (e *FilterError) Unwrap() error { return e.Err }

// Is reports ErrInvalidFilter as matching every FilterError.
func (e *FilterError) Is(target error) bool { return target == ErrInvalidFilter }
