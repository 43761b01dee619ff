package recall

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"
)

// DefaultQueryEmbedTimeout bounds the embedding of a search's query when
// Config.QueryEmbedTimeout (and the Postgres backend's) is 0: 5 seconds. A search
// waits no longer for its query's vector: past it the vector channel is
// "unavailable: embed query: the embedder did not answer within 5s" and
// the lexical channel answers alone, as it does when the embedder refuses
// the connection. Before, a stalled embedding endpoint held every vector
// and hybrid search until its caller gave up (mnemo serve: a 503 at the
// request timeout, 1 minute, while lexical search answered in
// milliseconds). A one-text request to a working endpoint takes well under
// a second; a local model being loaded may take longer, and its first
// searches then run lexical only (each says so).
const DefaultQueryEmbedTimeout = 5 * time.Second

// ErrQueryEmbedTimeout is the vector channel's error when the query's
// embedding took longer than its bound (DefaultQueryEmbedTimeout): the
// search goes on without it.
var ErrQueryEmbedTimeout = errors.New("the embedder did not answer within")

// EmbedQuery returns text's vector by emb, waiting at most timeout (0:
// DefaultQueryEmbedTimeout; negative: as long as ctx allows; an
// InProcess embedder, which cannot stall, gets no bound). Past the
// bound, with ctx still live, it returns ErrQueryEmbedTimeout, which
// names the bound and none of the embedder's text (its endpoint's
// address); a vector of another length is ErrDimension. An error of ctx
// itself is returned wrapped, so a cancelled search fails rather than
// degrades. A failure to reach the endpoint says how it failed
// ("connect: connection refused", "i/o timeout") and not where (no URL or
// address), the cause wrapped.
func EmbedQuery(ctx context.Context, emb Embedder, text string, timeout time.Duration) ([]float32, error) {
	if timeout == 0 {
		timeout = DefaultQueryEmbedTimeout
	}
	qctx := ctx
	if _, local := emb.(InProcess); timeout > 0 && !local {
		var cancel context.CancelFunc
		qctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	vs, err := emb.Embed(qctx, []string{text})
	if err != nil {
		if ctx.Err() == nil && qctx.Err() != nil {
			return nil, fmt.Errorf("embed query: %w %s", ErrQueryEmbedTimeout, timeout)
		}
		return nil, queryEmbedError(err)
	}
	if len(vs) != 1 || len(vs[0]) != emb.Dims() {
		return nil, fmt.Errorf("%w: query embedding", ErrDimension)
	}
	return vs[0], nil
}

// queryEmbedError words err, the query embedding's failure, for the
// vector channel's status, which every caller searching the resource reads
// (a tenant of mnemo serve, the memctx record): a request that did not
// reach the embedder's endpoint says how it failed ("connect: connection
// refused", "i/o timeout", "its host name was not found") and
// not where: the URL and address are the operator's, not the caller's.
// Before, it read `embed query: recall: openai embed: Post
// "http://10.0.0.7:7099/v1/embeddings": dial tcp 10.0.0.7:7099: connect:
// connection refused`. The cause stays wrapped (errors.Is a context's
// error still holds).
func queryEmbedError(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return fmt.Errorf("embed query: %w", err)
	}
	how := ue.Err
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.As(how, &dns) && dns.IsTimeout:
		how = errors.New("the lookup of its host name timed out")
	case errors.As(how, &dns):
		how = errors.New("its host name was not found")
	case errors.As(how, &op) && op.Err != nil:
		how = op.Err
	}
	return fmt.Errorf("embed query: %w: the endpoint could not be reached: %w", ErrEmbed, how)
}
