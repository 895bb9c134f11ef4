package media_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
)

// writeLibrary writes n items straight to disk (originals empty, sidecars
// in the state as the library writes them, no claims, log or
// checkpoint), spread over months like a few years of use.
func writeLibrary(tb testing.TB, root string, n int) {
	tb.Helper()
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	made := map[string]bool{}
	for i := range n {
		month := fmt.Sprintf("%04d/%02d", 2020+i/20000, 1+(i/2000)%10)
		name := fmt.Sprintf("photo-%06d.jpg", i)
		key := month + "/" + name
		it := media.Item{
			ID: fmt.Sprintf("%016d", i), Filename: name, MimeType: "image/jpeg", Size: 123456,
			Width: 4000, Height: 3000, Alt: fmt.Sprintf("a photo of thing %d at the beach", i),
			Folder: fmt.Sprintf("/f%d", i%50), FocalX: 50, FocalY: 50, CreatedAt: t0.Add(time.Duration(i) * time.Minute),
			Key: key, Version: 1,
			Placeholder: "LEHV6nWB2yk8pyo0adR*.7kCMdnj", DominantColor: "#aabbcc",
		}
		// ValidID wants base32 letters; map digits 0,1,8,9 away.
		id := []byte(it.ID)
		for j, c := range id {
			id[j] = "abcdefghij"[c-'0']
		}
		it.ID = string(id)
		for _, w := range media.DerivativeWidths {
			it.Sizes = append(it.Sizes, media.Size{Width: w, Height: w * 3 / 4, Key: fmt.Sprintf("%s/photo-%06d-%d.webp", month, i, w)})
		}
		data, err := yaml.Marshal(&it)
		if err != nil {
			tb.Fatal(err)
		}
		dir := filepath.Join(root, filepath.FromSlash(month))
		items := filepath.Join(root, local.StateDir, "items")
		if !made[month] {
			for _, d := range []string{dir, items} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					tb.Fatal(err)
				}
			}
			made[month] = true
		}
		if err := os.WriteFile(filepath.Join(items, it.ID+".yaml"), data, 0o644); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// N100k is the size of the big benchmarks.
const N100k = 100_000

// BenchmarkOpen100k measures a start of a library of 100 000 items on
// local storage, the sole writer of its state: cold, reading and parsing
// every sidecar (no checkpoint); from the checkpoint its last Close
// wrote. Both list the sidecars and claims once (reconcile and the sweep
// of what a crash left).
func BenchmarkOpen100k(b *testing.B) { benchOpenN(b, N100k) }

// BenchmarkOpen10k is BenchmarkOpen100k at a tenth of the size: enough
// iterations for a profile in seconds.
func BenchmarkOpen10k(b *testing.B) { benchOpenN(b, N100k/10) }

func benchOpenN(b *testing.B, n int) {
	e := newEnv(b)
	writeLibrary(b, e.root, n)
	// The first start records a rescan in the log, so that its Close
	// has a log position to checkpoint.
	e.close(b, e.open(b))
	b.Run("checkpoint", func(b *testing.B) { benchOpen(b, e, n, false) })
	b.Run("cold", func(b *testing.B) { benchOpen(b, e, n, true) })
}

func benchOpen(b *testing.B, e *env, n int, cold bool) {
	for b.Loop() {
		if cold {
			b.StopTimer()
			os.RemoveAll(filepath.Join(e.root, local.StateDir, "checkpoints"))
			b.StartTimer()
		}
		l, err := e.tryOpen()
		if err != nil {
			b.Fatal(err)
		}
		if l.Len() != n {
			b.Fatalf("%d items", l.Len())
		}
		b.StopTimer()
		e.close(b, l)
		b.StartTimer()
	}
}

// BenchmarkList100k measures one list page over 100 000 items: a folder
// filter, sorted by filename, after the sort order is cached.
func BenchmarkList100k(b *testing.B) {
	e := newEnv(b)
	writeLibrary(b, e.root, N100k)
	l := e.open(b)
	for b.Loop() {
		items, total := l.List(media.Query{Folder: "/f7", Sort: media.SortFilename, Desc: true, Limit: 24, Offset: 480})
		if len(items) != 24 || total != 2000 {
			b.Fatalf("%d of %d", len(items), total)
		}
	}
}

// BenchmarkUpload measures one Create on local storage, end to end: the
// body to a temporary file, sniffing, derivatives (png), the original and
// derivatives stored, and the commit with everything made durable. It is
// the write cost of the local library per upload.
func BenchmarkUpload(b *testing.B) {
	for _, c := range []struct {
		name string
		body func(testing.TB) []byte
	}{
		{"pdf", func(testing.TB) []byte { return pdfBytes }},
		{"png64", func(tb testing.TB) []byte { return pngBytes(tb, 64, 48) }},
		// Two derivatives (150 and 400 wide): three keys claimed.
		{"png420", func(tb testing.TB) []byte { return pngBytes(tb, 420, 300) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := newEnv(b)
			l := e.open(b)
			body := c.body(b)
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				mustCreate(b, l, "file.bin", body, "/")
			}
		})
	}
}
