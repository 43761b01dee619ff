//go:build !unix

package filekind

// NoFollow is 0 here: the callers' Lstat before the open refuses a link.
const NoFollow = 0
