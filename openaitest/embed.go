package openaitest

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode"

	openai "github.com/sashabaranov/go-openai"
)

// DefaultDims is the dimension of the default embed function's vectors.
const DefaultDims = 16

// EmbedRequest is an embeddings request with its input normalised to a list
// of strings (the API accepts a string or a list of strings; token arrays
// are refused as a violation).
type EmbedRequest struct {
	Model          string   // the model asked for; never empty (the server refuses an empty one)
	Input          []string // the texts to embed, in request order
	Dimensions     int      // 0 when not sent
	EncodingFormat string   // "", "float" or "base64"
	User           string   // the end-user id sent, "" when none
}

// EmbedFunc returns one vector per input, in input order. Returning a
// *StatusError answers with that status, a *RawResponse sends its body
// verbatim, any other error answers 500. Returning a different number of
// vectors than inputs is sent as is (so tests can provoke that client-side
// error).
type EmbedFunc func(req EmbedRequest) ([][]float32, error)

// RawResponse, returned as the error of an EmbedFunc or ChatFunc, makes the
// server send Body verbatim with Status (0 means 200): a malformed or empty
// body from inside a function.
type RawResponse struct {
	Status int    // the HTTP status; 0 means 200
	Body   []byte // sent as is, even when empty
}

// Error implements error: "openaitest: raw response STATUS (N bytes)".
func (e *RawResponse) Error() string {
	return fmt.Sprintf("openaitest: raw response %d (%d bytes)", e.Status, len(e.Body))
}

// HashEmbed returns a deterministic embed function: each lower-cased word
// (letters and digits) is hashed with FNV-1a into one of dims buckets with a
// ±1 sign, and the vector is L2-normalised. Texts sharing words are similar;
// there are no semantics. A text without words maps to the unit vector on
// the first axis. dims ≤ 0 means DefaultDims. When the request asks for
// Dimensions, that size is used instead.
func HashEmbed(dims int) EmbedFunc {
	if dims <= 0 {
		dims = DefaultDims
	}
	return func(req EmbedRequest) ([][]float32, error) {
		d := dims
		if req.Dimensions > 0 {
			d = req.Dimensions
		}
		out := make([][]float32, len(req.Input))
		for i, text := range req.Input {
			out[i] = HashVector(text, d)
		}
		return out, nil
	}
}

// HashVector is the vector HashEmbed gives text in dims dimensions.
func HashVector(text string, dims int) []float32 {
	v := make([]float32, dims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		h := fnv.New64a()
		h.Write([]byte(w))
		x := h.Sum64()
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		v[x%uint64(dims)] += sign
	}
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		v[0] = 1
		return v
	}
	n := float32(math.Sqrt(norm))
	for i := range v {
		v[i] /= n
	}
	return v
}

// SetEmbedDelay makes every embeddings request wait d before answering, or
// until the client gives up; 0 removes the delay.
func (s *Server) SetEmbedDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedDelay = d
}

func decodeEmbed(body []byte) (EmbedRequest, error) {
	var raw openai.EmbeddingRequest
	if err := json.Unmarshal(body, &raw); err != nil {
		return EmbedRequest{}, fmt.Errorf("embeddings body is not an embeddings request: %v", err)
	}
	req := EmbedRequest{Model: string(raw.Model), Dimensions: raw.Dimensions,
		EncodingFormat: string(raw.EncodingFormat), User: raw.User}
	switch in := raw.Input.(type) {
	case string:
		req.Input = []string{in}
	case []any:
		for i, x := range in {
			s, ok := x.(string)
			if !ok {
				return EmbedRequest{}, fmt.Errorf("embeddings input[%d] is %T, want string (token arrays are not supported by the fake)", i, x)
			}
			req.Input = append(req.Input, s)
		}
	default:
		return EmbedRequest{}, fmt.Errorf("embeddings input is %T, want a string or a list of strings", raw.Input)
	}
	if req.Model == "" {
		return EmbedRequest{}, fmt.Errorf("embeddings model is empty")
	}
	if len(req.Input) == 0 {
		return EmbedRequest{}, fmt.Errorf("embeddings input is empty")
	}
	for i, s := range req.Input {
		if s == "" {
			return EmbedRequest{}, fmt.Errorf("embeddings input[%d] is an empty string (the API refuses it)", i)
		}
	}
	switch req.EncodingFormat {
	case "", "float", "base64":
	default:
		return EmbedRequest{}, fmt.Errorf("embeddings encoding_format %q, want float or base64", req.EncodingFormat)
	}
	return req, nil
}

func (s *Server) embed(w http.ResponseWriter, r *http.Request, idx int, body []byte) {
	req, err := decodeEmbed(body)
	if err != nil {
		s.fail(w, idx, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	s.mu.Lock()
	fn, delay := s.embedFn, s.embedDelay
	s.mu.Unlock()
	if fn == nil {
		s.fail(w, idx, http.StatusInternalServerError, "server_error", "embeddings request arrived but no embed function is set")
		return
	}
	if !waited(r, delay) {
		return
	}
	vecs, err := fn(req)
	if err != nil {
		writeError(w, err)
		return
	}
	data := make([]map[string]any, len(vecs))
	tokens := 0
	for _, in := range req.Input {
		tokens += estimateTokens(in)
	}
	for i, v := range vecs {
		var emb any = v
		if req.EncodingFormat == "base64" {
			b := make([]byte, 4*len(v))
			for j, x := range v {
				binary.LittleEndian.PutUint32(b[4*j:], math.Float32bits(x))
			}
			emb = base64.StdEncoding.EncodeToString(b)
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": emb}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}
