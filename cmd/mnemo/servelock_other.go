//go:build !unix

package main

// ServeLockFile is not used on this platform: there is no flock.
const ServeLockFile = "serve.lock"

func lockServe(dir, url string) (func(undo bool), error) { return func(bool) {}, nil }

func checkNotServed(dir string) error { return nil }

func servedBy(dir string) (string, bool) { return "", false }
