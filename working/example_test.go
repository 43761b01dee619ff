package working_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/working"
)

func exampleDB() (*sql.DB, func()) {
	dir, _ := os.MkdirTemp("", "working-example-")
	db, err := store.Open(context.Background(), filepath.Join(dir, "mnemo.db"))
	if err != nil {
		panic(err)
	}
	return db, func() { db.Close(); os.RemoveAll(dir) }
}

// A schema-mode memory reflected from a Go type, updated by merge patches.
func ExampleMemory_Merge() {
	type Profile struct {
		Name string   `json:"name,omitempty"`
		City string   `json:"city,omitempty"`
		Todo []string `json:"todo,omitempty"`
	}
	db, done := exampleDB()
	defer done()
	ctx := context.Background()
	mem, err := working.New(db, working.Config{SchemaOf: Profile{}})
	if err != nil {
		panic(err)
	}
	key, _ := mem.Key("thread-1", "ana")
	for _, patch := range []string{
		`{"name":"Ana","city":"Lyon","todo":["book train"]}`,
		`{"city":"Porto"}`,
		`{"todo":null}`,
		`{}`,
		`{"city":5}`,
	} {
		r, err := mem.Merge(ctx, key, json.RawMessage(patch), working.Origin{})
		if err != nil {
			fmt.Printf("%-52s refused: %v\n", patch, err)
			continue
		}
		fmt.Printf("%-52s v%d %s\n", patch, r.State.Version, r.State.Content)
	}
	// Output:
	// {"name":"Ana","city":"Lyon","todo":["book train"]}   v1 {"city":"Lyon","name":"Ana","todo":["book train"]}
	// {"city":"Porto"}                                     v2 {"city":"Porto","name":"Ana","todo":["book train"]}
	// {"todo":null}                                        v3 {"city":"Porto","name":"Ana"}
	// {}                                                   v3 {"city":"Porto","name":"Ana"}
	// {"city":5}                                           refused: working: update violates the schema: at /city: got number, want string
}

// A template-mode memory edited by search/replace.
func ExampleMemory_Edit() {
	db, done := exampleDB()
	defer done()
	ctx := context.Background()
	mem, _ := working.New(db, working.Config{Template: "# User\n- Name:\n- City:\n", Scope: working.ScopeResource})
	key := working.ResourceKey("ana")
	r, _ := mem.Edit(ctx, key, "- City:", "- City: Lyon", working.Origin{})
	fmt.Print(r.State.Content)
	_, err := mem.Edit(ctx, key, "- ", "* ", working.Origin{})
	fmt.Println(err)
	// Output:
	// # User
	// - Name:
	// - City: Lyon
	// working: search text occurs more than once: "- " occurs 2 times; include more surrounding text so it occurs once
}
