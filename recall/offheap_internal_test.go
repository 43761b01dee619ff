package recall

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// TestSnapshotEntriesOffHeap: a shard read from a snapshot keeps its
// entries outside the Go heap (offheap.go), and what they point to on the
// heap stays alive through collections: the threads' names, the roles and
// names (more than the 16 interned), the metadata, and the fields of a Doc
// put over a file entry afterwards. Every entry must read as the built
// shard's after collections that reuse the freed memory. Before, the
// entries were one heap allocation (the first collection after the load
// scanned 20 MB of them at 100,000 messages: issue 14).
func TestSnapshotEntriesOffHeap(t *testing.T) {
	old := offHeapMin
	offHeapMin = 1
	t.Cleanup(func() { offHeapMin = old })
	built := fuzzShard(t, 300)
	lex, err := OpenLexical("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lex.Close() })
	for i := range 40 { // names past the 16 interned, metadata on each
		d := &Doc{ID: fmt.Sprintf("n%04d", i), ThreadID: "named", ResourceID: "res", Seq: int64(i + 1), Role: "assistant",
			Name: fmt.Sprintf("speaker %d", i), Content: fmt.Sprintf("a line from speaker %d about boats", i),
			Metadata: map[string]any{"k": fmt.Sprint("v", i)}}
		built.putDoc(d, lex)
	}
	s, err := loadSnapshotBytes(t, snapshotBytes(t, built))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range s.docs.file {
		if !s.off.owns(unsafe.Pointer(e)) {
			t.Fatalf("entry %q lies on the Go heap", e.doc.ID)
		}
	}
	// A Doc put over a file entry: its strings and map are new heap objects.
	over := &Doc{ID: "n0005", ThreadID: "named", ResourceID: "res", Seq: 6, Role: "user",
		Name: strings.Repeat("x", 3) + " new speaker", Content: "a new line about sails",
		Metadata: map[string]any{"k": strings.Repeat("w", 2)}}
	s.putDoc(over, lex)
	built.putDoc(over, lex)
	over = nil
	garbage(t)
	for id, e := range built.docs.all() {
		got := s.docs.get(id)
		if got == nil {
			t.Fatalf("%q missing from the loaded shard", id)
		}
		if !reflect.DeepEqual(got.doc, e.doc) {
			t.Fatalf("%q after collections:\n%+v\nbuilt:\n%+v", id, got.doc, e.doc)
		}
	}
}

// garbage runs collections with allocations between them, so that freed
// heap memory is reused (an entry pointing to it would read the new bytes).
func garbage(t *testing.T) {
	t.Helper()
	var sink [][]byte
	for i := range 5 {
		runtime.GC()
		for range 2000 {
			sink = append(sink, []byte(strings.Repeat("z", 48+i)))
		}
		sink = sink[:0]
	}
	runtime.GC()
}

// TestSnapshotEntryUpdatedOften: a loaded (off-heap) message put over
// again and again keeps one hold for its Doc, the last one's, and still
// reads as put after collections. Before, every putDoc over it added a
// hold, so the shard's holds grew with every update until it unloaded.
func TestSnapshotEntryUpdatedOften(t *testing.T) {
	old := offHeapMin
	offHeapMin = 1
	t.Cleanup(func() { offHeapMin = old })
	built := fuzzShard(t, 100)
	lex, err := OpenLexical("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lex.Close() })
	s, err := loadSnapshotBytes(t, snapshotBytes(t, built))
	if err != nil {
		t.Fatal(err)
	}
	e := s.docs.file[7]
	if !s.off.owns(unsafe.Pointer(e)) {
		t.Fatalf("entry %q lies on the Go heap", e.doc.ID)
	}
	holds := len(s.off.keep)
	var last Doc
	for i := range 50 {
		last = e.doc
		last.Name = fmt.Sprintf("speaker %d", i)
		last.Content = fmt.Sprintf("update %d about harbours", i)
		last.Metadata = map[string]any{"n": fmt.Sprint(i)}
		d := last
		s.putDoc(&d, lex)
	}
	if got := len(s.off.keep) + len(s.off.kept); got > holds+1 {
		t.Fatalf("%d holds after 50 updates of one message, %d before", got, holds)
	}
	garbage(t)
	if got := s.docs.get(last.ID); got == nil || !reflect.DeepEqual(got.doc, last) {
		t.Fatalf("after collections: %+v, want %+v", got, last)
	}
}
