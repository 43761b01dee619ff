package uselite_test

import (
	"context"
	"fmt"
	"log"

	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/recall/uselite"
)

// Open the installed model (`mnemo models fetch use-lite` installs it) and
// compare two sentences that share no content word. Not run by go test: it
// needs the weights.
func ExampleOpen() {
	dir, err := models.Dir(nil) // $MNEMO_MODELS, else <user cache>/mnemo/models
	if err != nil {
		log.Fatal(err)
	}
	emb, err := uselite.Open(uselite.Config{Dir: models.Path(dir, uselite.ID)})
	if err != nil {
		log.Fatal(err) // wraps uselite.ErrNotInstalled when absent
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
