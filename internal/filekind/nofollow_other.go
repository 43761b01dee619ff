//go:build !unix

package filekind

// noFollow is 0 here: OpenLock's check before the open refuses a link.
const noFollow = 0
