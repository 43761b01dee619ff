package uselite_test

import (
	"context"
	"fmt"
	"log"

	"github.com/mnemo-go/mnemo/recall/uselite"
)

// Open the installed model (`mnemo models fetch use-lite` installs it in
// the models directory, $MNEMO_MODELS, else <user cache dir>/mnemo/models)
// and compare two sentences that share no content word. OpenDefault is
// what engine.Open picks for a new data directory when Config.Embedder is
// nil; uselite.Open with Config.Dir opens a model directory of your own.
// Not run by go test: it needs the weights.
func ExampleOpen() {
	emb, err := uselite.OpenDefault(nil) // nil: os.Getenv
	if err != nil {
		log.Fatal(err) // installed but not loadable (ErrBadModel, a read error)
	}
	if emb.ID() != uselite.ID {
		log.Fatalf("use-lite is not installed (%s in its place): mnemo models fetch use-lite", emb.ID())
	}
	v, err := emb.Embed(context.Background(), []string{
		"The refund was approved yesterday.",
		"They agreed to give the money back.",
	})
	if err != nil {
		log.Fatal(err)
	}
	var cos float32
	for i := range v[0] {
		cos += v[0][i] * v[1][i] // unit vectors: the dot product is the cosine
	}
	fmt.Printf("%s, %d dims, cosine %.2f\n", emb.ID(), emb.Dims(), cos)
}
