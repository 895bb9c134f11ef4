package media

import (
	"fmt"
	"reflect"
	"testing"
	"time"
	"unsafe"
)

func TestCompacted(t *testing.T) {
	it := &Item{ID: "abc123", Filename: "Photo.JPG", MimeType: "image/jpeg", Size: 42, Width: 4000, Height: 3000,
		Alt: "a dog", Title: "", Description: "on a beach, ünïcode", Folder: "dogs/beach", FocalX: 30, FocalY: 60,
		CreatedAt: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC), Key: "2026/11/photo.jpg",
		Sizes:       []Size{{Width: 150, Height: 113, Key: "2026/11/photo-150.webp"}, {Width: 400, Height: 300, Key: "2026/11/photo-400.webp", URL: "/u/x"}},
		Placeholder: "LEHV6nWB2yk8", DominantColor: "#aabbcc", Version: 3, URL: "/uploads/2026/11/photo.jpg"}
	c := compacted(it)
	if !reflect.DeepEqual(c, it) {
		t.Fatalf("compacted changed the item:\n got %+v\nwant %+v", c, it)
	}
	c.Sizes[0].Width = 1
	if it.Sizes[0].Width != 150 {
		t.Fatal("compacted shares Sizes with the original")
	}
	// Every string field is covered: a new one would keep its own
	// allocation (still correct, only heavier for the collector).
	n := 0
	for f := range reflect.TypeFor[Item]().Fields() {
		if f.Type.Kind() == reflect.String {
			n++
		}
	}
	if got := len(it.stringFields()); got != n {
		t.Fatalf("stringFields lists %d fields, Item has %d", got, n)
	}
	// The strings lie in one allocation, in field order.
	if unsafe.StringData(c.Filename) != (*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(c.ID)), len(c.ID))) {
		t.Fatal("strings are not packed together")
	}
	if compacted(&Item{}).ID != "" {
		t.Fatal("empty item")
	}
}

// TestIndexAddAllocatesNothingPerKey: putting an item back in the index,
// its keys already claimed, makes no garbage (a start's load does it for
// every item: listing an item's keys in a growing slice was five
// allocations an item).
func TestIndexAddAllocatesNothingPerKey(t *testing.T) {
	c := newCatalog()
	it := &Item{ID: "abcdefghabcdefgh", Key: "2026/11/shot.jpg", Folder: "/"}
	for _, w := range DerivativeWidths {
		it.Sizes = append(it.Sizes, Size{Width: w, Key: fmt.Sprintf("2026/11/shot-%d.webp", w)})
	}
	c.write(func(x *index) { x.add(it) })
	var allocs float64
	c.write(func(x *index) {
		allocs = testing.AllocsPerRun(100, func() {
			x.remove(it)
			x.add(it)
		})
	})
	if allocs != 0 {
		t.Errorf("%v allocations to take out and put back an item of %d keys, want 0", allocs, 1+len(it.Sizes))
	}
}
