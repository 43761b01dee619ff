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
