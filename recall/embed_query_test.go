package recall_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// TestEmbedQueryEndpointRefused: a query embedding whose endpoint refuses
// the connection fails with ErrEmbed saying how ("connection refused"),
// not where: the vector channel's status, which a tenant of mnemo serve
// reads, quoted the endpoint's URL and address (walk26).
func TestEmbedQueryEndpointRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close() // nothing listens there now: connection refused
	emb, err := recall.NewOpenAIEmbedder(context.Background(), recall.OpenAIConfig{
		BaseURL: "http://127.0.0.1:" + port + "/v1", Model: "m", Dims: 8, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = recall.EmbedQuery(context.Background(), emb, "where is the cat", 0)
	if err == nil || !errors.Is(err, recall.ErrEmbed) || !strings.Contains(err.Error(), "connection refused") ||
		strings.Contains(err.Error(), port) || strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("EmbedQuery against a closed port: %v; want ErrEmbed saying connection refused, naming no address", err)
	}
}
