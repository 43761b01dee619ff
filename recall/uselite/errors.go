package uselite

import "errors"

// ErrNotInstalled is returned by Open when the model directory or one of its
// files is absent. The message names the command that installs the model:
// `mnemo models fetch use-lite`.
var ErrNotInstalled = errors.New("uselite: model not installed (run `mnemo models fetch use-lite`)")

// ErrBadModel is returned by Open when model.json, vocab.json or the weight
// shards are present but do not describe the graph this package implements
// (a missing tensor, a wrong shape, a short shard).
var ErrBadModel = errors.New("uselite: model files do not match the use-lite graph")
