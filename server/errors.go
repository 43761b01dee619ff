package server

import "errors"

// ErrInvalidConfig is returned by New when Config lacks an engine, has a
// negative limit or a CookieMount it cannot serve, and by NewSessions for
// a negative option.
var ErrInvalidConfig = errors.New("server: invalid config")

// ErrInvalidTokens is returned by LoadTokens and ParseTokens when the token
// file is not valid: bad JSON, an empty or duplicate token, a token without
// resources, or an invalid resource id.
var ErrInvalidTokens = errors.New("server: invalid token file")

// ErrNotFound matches the error of a Tenant lookup (and of the API's 404
// answers) for an object that does not exist or that belongs to a resource
// the principal may not touch; the two are not told apart.
var ErrNotFound = errors.New("server: not found")

// ErrTooManyFailures matches the error of AuthLimiter.Check for a client
// address that failed to authenticate too often (a *TooManyFailuresError,
// which says how long to wait); the API answers it 429.
var ErrTooManyFailures = errors.New("server: too many failed authentications")

// ErrShutdownTimeout is matched by the error Serve returns when requests
// were still running Config.ShutdownTimeout after its context ended: their
// connections were closed without an answer (what they committed stays
// stored), and the error says how many there were.
var ErrShutdownTimeout = errors.New("server: shutdown timed out")
