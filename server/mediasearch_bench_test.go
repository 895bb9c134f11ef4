package server_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
)

// benchMediaWords is the vocabulary of the generated library's filenames
// and alt texts (a part of cmd/folio-gen's).
var benchMediaWords = strings.Fields(`trail tent pack boot summit ridge valley river lake forest meadow glacier
camp stove water filter map compass route weather storm sun wind snow rain canyon ultralight
desert coast island peak pass hut bridge cliff cave bay dune ferry harbor`)

// writeSearchLibrary writes n sidecars (originals empty) straight to root,
// shaped like cmd/folio-gen's library: two or three words and a number in
// the filename, five words of alt text, a handful of folders.
func writeSearchLibrary(tb testing.TB, root string, n int) {
	tb.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	w := func() string { return benchMediaWords[r.IntN(len(benchMediaWords))] }
	folders := []string{"/", "/", "/blog", "/products", "/team", "/docs"}
	t0 := time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)
	made := map[string]bool{}
	for i := range n {
		month := fmt.Sprintf("%04d/%02d", 2022+i/24000, 1+(i/2000)%12)
		words := []string{w(), w()}
		if r.IntN(2) == 0 {
			words = append(words, w())
		}
		name := fmt.Sprintf("%s-%d.jpg", strings.Join(words, "-"), i)
		var idb [16]byte
		for j := range idb {
			idb[j] = "abcdefghijklmnopqrstuvwxyz234567"[r.IntN(32)]
		}
		it := media.Item{
			ID: string(idb[:]), Filename: name, MimeType: "image/jpeg", Size: 123456, Width: 4000, Height: 3000,
			Alt:    "A " + w() + " " + w() + " by the " + w() + " " + w(),
			Folder: folders[r.IntN(len(folders))], FocalX: 50, FocalY: 50,
			CreatedAt: t0.Add(time.Duration(i) * time.Minute), Key: month + "/" + name, Version: 1,
			Placeholder: "LEHV6nWB2yk8pyo0adR*.7kCMdnj", DominantColor: "#aabbcc",
		}
		for _, dw := range media.DerivativeWidths {
			it.Sizes = append(it.Sizes, media.Size{Width: dw, Height: dw * 3 / 4, Key: fmt.Sprintf("%s/%s-%d.webp", month, strings.TrimSuffix(name, ".jpg"), dw)})
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

// BenchmarkMediaSearchHTTP drives GET /api/v1/media?search=… through the
// server's real handler (key check, routing, search, list, JSON) from
// parallel goroutines over a library of 50 000 items (first page of 24
// by relevance), and reports requests per second besides ns/op:
// "uncached" sends 2048 distinct searches (every word of the library,
// prefixes of them, pairs), none of them answered from the result cache
// (it holds 1024); "cached" repeats the 4 searches of cmd/folio-bench's
// cached row. Run it with -cpu and -cpuprofile/-mutexprofile to see where
// a request's time goes.
func BenchmarkMediaSearchHTTP(b *testing.B) {
	root := b.TempDir()
	writeSearchLibrary(b, root, 50_000)
	ms := startMediaServer(b, newRepo(b, mediaSite).bare, root)
	auth := "Bearer " + ms.read
	do := func(p string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, p, nil)
		req.Header.Set("Authorization", auth)
		rec := httptest.NewRecorder()
		ms.Handler.ServeHTTP(rec, req)
		return rec
	}
	paths := func(qs []string) []string {
		ps := make([]string, len(qs))
		for i, q := range qs {
			ps[i] = "/api/v1/media?search=" + url.QueryEscape(q)
		}
		return ps
	}
	cached := paths([]string{"glacier", "summit tent", "ultralight", "canyon river"})
	for _, p := range cached { // the index is built; every search has hits
		rec := do(p)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"total":`) || strings.Contains(rec.Body.String(), `"data":[]`) {
			b.Fatalf("%s: %d %s", p, rec.Code, rec.Body.String()[:min(200, rec.Body.Len())])
		}
	}
	for _, bc := range []struct {
		name  string
		paths []string
	}{{"uncached", paths(distinctSearches(benchMediaWords, 2048))}, {"cached", cached}} {
		b.Run(bc.name, func(b *testing.B) {
			var n atomic.Int64
			b.ReportAllocs()
			b.ResetTimer()
			t0 := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if rec := do(bc.paths[int(n.Add(1))%len(bc.paths)]); rec.Code != http.StatusOK {
						b.Errorf("status %d", rec.Code)
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "req/s")
		})
	}
}

// distinctSearches makes n distinct searches of words, shuffled: every
// word, its prefixes of 3 letters or more, and pairs of words.
func distinctSearches(words []string, n int) []string {
	seen := map[string]bool{}
	var qs []string
	add := func(q string) {
		if !seen[q] {
			seen[q] = true
			qs = append(qs, q)
		}
	}
	for _, w := range words {
		add(w)
		for l := 3; l < len(w); l++ {
			add(w[:l])
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for len(qs) < n && len(seen) < len(words)*len(words) {
		add(words[r.IntN(len(words))] + " " + words[r.IntN(len(words))])
	}
	r.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	return qs[:min(n, len(qs))]
}
