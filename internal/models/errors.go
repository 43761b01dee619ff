package models

import "errors"

// ErrUnknownModel is returned by Lookup and Fetcher.Fetch for a name that
// is not in the catalog.
var ErrUnknownModel = errors.New("models: unknown model")

// ErrIntegrity is returned by Fetcher.Fetch when the downloaded tarball's
// sha512 digest is not the one pinned in the catalog. Nothing is installed.
var ErrIntegrity = errors.New("models: tarball integrity mismatch")

// ErrBadPackage is returned by Fetcher.Fetch when the tarball verifies but
// is not a gzip-compressed tar or lacks a file the model requires.
var ErrBadPackage = errors.New("models: package does not contain the model")

// ErrDownload is returned by Fetcher.Fetch when the registry cannot be
// reached or answers with an error status, after one retry.
var ErrDownload = errors.New("models: download failed")
