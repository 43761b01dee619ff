package demodata_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mnemo-go/mnemo/demodata"
	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// Fill a scratch memory with the sample conversation and load today's
// context: recall brings back the earlier trip booking.
func ExampleIngest() {
	dir, err := os.MkdirTemp("", "mnemo-demodata-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Dir: filepath.Join(dir, "data"), Embedder: recall.HashEmbedder{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()
	rep, err := demodata.Ingest(ctx, e, dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d threads of resource %s\n", rep.Threads, demodata.Resource)
	if err := e.SyncIndexes(ctx); err != nil {
		fmt.Println(err)
		return
	}
	c, err := e.LoadContext(ctx, engine.LoadRequest{
		ThreadID: demodata.TodayThread, ResourceID: demodata.Resource, Query: demodata.TodayQuestion, RecentN: 2,
		Recall: &recall.Options{TopK: 2, Scope: recall.ScopeResource},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range c.Messages {
		if m.ThreadID == demodata.TripThread {
			fmt.Println("recalled from", m.ThreadID)
			break
		}
	}
	// Output:
	// 4 threads of resource ana
	// recalled from ana:trip-planning
}
