//go:build !unix

package main

// ServeLockFile is not used on this platform: there is no flock.
const ServeLockFile = "serve.lock"

func lockServe(dir, url string) (func(), error) { return func() {}, nil }

func checkNotServed(dir string) error { return nil }
