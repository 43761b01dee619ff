package recall_test

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
)

func openaiConfig(srv *openaitest.Server) recall.OpenAIConfig {
	c := srv.Config()
	return recall.OpenAIConfig{BaseURL: c.BaseURL, APIKey: openaitest.DefaultAPIKey, Model: "text-embedding-3-small", BatchSize: 4, Backoff: time.Millisecond}
}

func TestOpenAIEmbedder(t *testing.T) {
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		srv := openaitest.New(t)
		e, err := recall.NewOpenAIEmbedder(ctx, openaiConfig(srv))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := e.Dims(), openaitest.DefaultDims; got != want {
			t.Fatalf("dims %d, want %d (probed)", got, want)
		}
		texts := []string{"a b", "c", "", "d e f", "g", "h", "i", "j", "k", "l"}
		vs, err := e.Embed(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != len(texts) {
			t.Fatalf("%d vectors", len(vs))
		}
		reqs := srv.EmbedRequests()
		// One probe, then batches of 4: 4+4+2.
		if got, want := len(reqs), 4; got != want {
			t.Fatalf("%d requests, want %d", got, want)
		}
		if len(reqs[1].Input) != 4 || len(reqs[3].Input) != 2 || reqs[1].Input[2] != " " || reqs[1].Model != "text-embedding-3-small" {
			t.Fatalf("requests %+v", reqs)
		}
		for i, v := range vs {
			var s float64
			for _, x := range v {
				s += float64(x) * float64(x)
			}
			if math.Abs(s-1) > 1e-5 {
				t.Fatalf("vector %d has norm² %v", i, s)
			}
		}
		want := openaitest.HashVector("d e f", openaitest.DefaultDims)
		var dot float64
		for i := range want {
			dot += float64(want[i]) * float64(vs[3][i])
		}
		if dot < 0.999 {
			t.Fatalf("vector 3 is not the server's vector for its text (cos %v)", dot)
		}
	})
	t.Run("Retry", func(t *testing.T) {
		srv := openaitest.New(t)
		var calls atomic.Int32
		srv.SetEmbed(func(req openaitest.EmbedRequest) ([][]float32, error) {
			if calls.Add(1) <= 2 {
				return nil, &openaitest.StatusError{Status: 503, Message: "overloaded"}
			}
			return openaitest.HashEmbed(8)(req)
		})
		cfg := openaiConfig(srv)
		cfg.Dims = 8
		e, err := recall.NewOpenAIEmbedder(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Embed(ctx, []string{"x"}); err != nil {
			t.Fatalf("after two 503s: %v", err)
		}
		if got := calls.Load(); got != 3 {
			t.Fatalf("%d calls, want 3", got)
		}
		if got, want := e.ID(), "openai:text-embedding-3-small:8"; got != want {
			t.Fatalf("id %s, want %s", got, want)
		}
	})
	t.Run("ErrEmbed", func(t *testing.T) {
		srv := openaitest.New(t, openaitest.Lenient())
		var calls atomic.Int32
		srv.SetEmbed(func(req openaitest.EmbedRequest) ([][]float32, error) {
			calls.Add(1)
			return nil, &openaitest.StatusError{Status: 500, Message: "down"}
		})
		cfg := openaiConfig(srv)
		cfg.Dims, cfg.Retries = 8, 2
		e, err := recall.NewOpenAIEmbedder(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Embed(ctx, []string{"x"})
		if !errors.Is(err, recall.ErrEmbed) {
			t.Fatalf("err=%v, want ErrEmbed", err)
		}
		if got := calls.Load(); got != 3 {
			t.Fatalf("%d calls, want 1 + 2 retries", got)
		}
		calls.Store(0)
		srv.SetEmbed(func(req openaitest.EmbedRequest) ([][]float32, error) {
			calls.Add(1)
			return nil, &openaitest.StatusError{Status: 400, Message: "bad input"}
		})
		if _, err = e.Embed(ctx, []string{"x"}); !errors.Is(err, recall.ErrEmbed) || calls.Load() != 1 {
			t.Fatalf("400: err=%v after %d calls, want ErrEmbed after 1", err, calls.Load())
		}
	})
	t.Run("ErrDimension", func(t *testing.T) {
		srv := openaitest.New(t)
		srv.SetEmbed(func(req openaitest.EmbedRequest) ([][]float32, error) {
			req.Dimensions = 0 // a server that ignores the requested size
			return openaitest.HashEmbed(16)(req)
		})
		cfg := openaiConfig(srv)
		cfg.Dims = 8
		e, err := recall.NewOpenAIEmbedder(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Embed(ctx, []string{"x"}); !errors.Is(err, recall.ErrDimension) {
			t.Fatalf("err=%v, want ErrDimension", err)
		}
	})
	t.Run("Env", func(t *testing.T) {
		env := map[string]string{recall.EnvOpenAIBaseURL: "http://localhost:11434/v1", recall.EnvEmbedModel: "nomic-embed-text", recall.EnvEmbedDims: "768"}
		cfg, err := recall.OpenAIConfigFromEnv(func(k string) string { return env[k] })
		if err != nil || cfg.Model != "nomic-embed-text" || cfg.Dims != 768 || cfg.BaseURL != env[recall.EnvOpenAIBaseURL] {
			t.Fatalf("cfg %+v err %v", cfg, err)
		}
		if _, err := recall.OpenAIConfigFromEnv(func(string) string { return "" }); !errors.Is(err, recall.ErrInvalidOptions) {
			t.Fatalf("no model: err=%v", err)
		}
	})
}
