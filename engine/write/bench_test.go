package write

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/folio-cms/folio/engine"
)

// benchSite is a local site of 200 products (a model with a unique
// field) and two locales, served by a real engine that the Writer reads
// its snapshots from; reload: the engine reloads after each write, as
// the server does (else the snapshot stays at the first commit, and each
// write checks what the branch gained since, recheck.go).
func benchSite(b *testing.B, reload bool) *Writer {
	b.Helper()
	dir := b.TempDir()
	site := filepath.Join(dir, "site")
	files := map[string]string{
		"folio.yaml": "locales: [en, fr]\ntypes:\n  products:\n    fields:\n      title: {kind: string, required: true}\n      sku: {kind: string, unique: true}\n      price: {kind: number}\n",
	}
	for i := range 200 {
		files[fmt.Sprintf("content/products/p%03d.md", i)] = fmt.Sprintf("---\ntitle: Product %d\nsku: SKU-%d\nprice: %d\n---\nAbout product %d.\n", i, i, i, i)
		files[fmt.Sprintf("content/products/p%03d.fr.md", i)] = fmt.Sprintf("---\ntitle: Produit %d\nsku: FR-%d\n---\nÀ propos %d.\n", i, i, i)
	}
	for p, c := range files {
		full := filepath.Join(site, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	benchGit(b, site, "init", "-q", "-b", "main")
	benchGit(b, site, "add", "-A")
	benchGit(b, site, "commit", "-qm", "init")
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	eng, err := engine.Open(ctx, engine.Config{Site: site, CacheDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { eng.Close() })
	cfg := Config{GitDir: eng.GitDir(), Remote: eng.RemoteSite(), RefLock: eng.RefLock(), Branch: eng.Branch(),
		JournalDir: b.TempDir(), Snapshot: eng.SnapshotOf}
	if reload {
		cfg.Written = func(ctx context.Context, branch, commit string) { eng.Reload(ctx) }
	}
	return New(cfg)
}

func benchGit(b *testing.B, dir string, args ...string) {
	b.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// BenchmarkPatch is the document write path: a Patch of one field of a
// product in a locale (found through the snapshot, validated against
// the model and the locale's other products), committed, and the
// engine reloaded.
func BenchmarkPatch(b *testing.B) {
	for _, reload := range []bool{false, true} {
		b.Run(fmt.Sprintf("reload=%v", reload), func(b *testing.B) {
			w := benchSite(b, reload)
			ctx := context.Background()
			b.ResetTimer()
			for i := range b.N {
				_, err := w.Patch(ctx, Doc{Kind: KindItem, Type: "products", Slug: "p042", Locale: "fr", Fields: map[string]any{"price": i}}, Options{})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPutFile is the whole-file write path (Decap's): a product's
// file replaced whole.
func BenchmarkPutFile(b *testing.B) {
	for _, reload := range []bool{false, true} {
		b.Run(fmt.Sprintf("reload=%v", reload), func(b *testing.B) {
			w := benchSite(b, reload)
			ctx := context.Background()
			b.ResetTimer()
			for i := range b.N {
				data := fmt.Sprintf("---\ntitle: Product 7\nsku: SKU-7\nprice: %d\n---\nAbout product 7.\n", i+1000)
				if _, err := w.PutFile(ctx, "content/products/p007.md", []byte(data), Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
