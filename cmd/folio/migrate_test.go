package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/grant"
	"github.com/folio-cms/folio/media/local"
	"github.com/folio-cms/folio/media/s3"
	"github.com/folio-cms/folio/media/s3/s3test"
	"go.yaml.in/yaml/v3"
)

// TestMediaMigrate writes a library as the previous release kept it with
// S3 storage (sidecars and folders on the media root, a grants file), then
// runs `folio media migrate` twice: the bucket holds the whole library and
// the grant, a new box with an empty disk serves it, and the second run
// changes nothing.
func TestMediaMigrate(t *testing.T) {
	cfg, _ := s3test.Start(t)
	t.Setenv("AWS_ACCESS_KEY_ID", cfg.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", cfg.SecretKey)
	ctx := context.Background()
	st, err := s3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	// Sidecars and folders on the media root, files in the bucket.
	var want []*media.Item
	for i, name := range []string{"a.png", "b.png"} {
		stem := strings.TrimSuffix(name, ".png")
		it := &media.Item{
			ID: strings.Repeat(stem, 16), Filename: name, MimeType: "image/png", Size: 5, Width: 600, Height: 400,
			Alt: "alt of " + name, Folder: "/press", FocalX: 50, FocalY: 50,
			CreatedAt: time.Date(2026, 3, 1, 10, i, 0, 0, time.UTC), Key: "2026/03/" + name, Version: 1,
			Sizes: []media.Size{{Width: 150, Height: 100, Key: "2026/03/" + stem + "-150.webp"}},
		}
		data, err := yaml.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		writeTestFile(t, filepath.Join(root, "2026", "03", ".meta", name+".yaml"), data)
		for _, k := range []string{it.Key, it.Sizes[0].Key} {
			if err := st.Put(ctx, k, strings.NewReader("bytes"), 5, "image/png"); err != nil {
				t.Fatal(err)
			}
		}
		want = append(want, it)
	}
	writeTestFile(t, filepath.Join(root, ".folders.yaml"), []byte("folders: [/press/empty]\n"))
	for _, it := range want {
		it.URL = st.URL(it.Key)
	}
	// A grants file as earlier releases kept it on the media root.
	g := grant.Grant{Key: "2026/11/later.png", FullKey: cfg.Prefix + "/2026/11/later.png", Filename: "later.png", MimeType: "image/png", Size: 10, ExpiresAt: time.Now().Add(time.Hour)}
	grantsFile, err := yaml.Marshal(map[string][]grant.Grant{"grants": {g}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".grants.yaml"), grantsFile, 0o644); err != nil {
		t.Fatal(err)
	}

	args := []string{"media", "migrate", "--media", root, "--storage", "s3", "--s3-endpoint", cfg.Endpoint,
		"--s3-bucket", cfg.Bucket, "--s3-prefix", cfg.Prefix, "--s3-region", cfg.Region}
	for range 2 {
		out, errOut, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("migrate: %v\n%s", err, errOut)
		}
		if !strings.Contains(out, "2 media items and 2 folders") {
			t.Fatalf("migrate said %q", out)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".grants.yaml.migrated")); err != nil {
		t.Fatalf("grants file not marked migrated: %v", err)
	}

	state, err := st.State(s3.DefaultStatePrefix(cfg.Prefix))
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := media.Open(ctx, media.Config{Root: t.TempDir(), Storage: st, State: state, ReadOnly: true, PollInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	got, _ := fresh.List(media.Query{})
	if len(got) != len(want) {
		t.Fatalf("fresh box has %d items, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Alt != want[i].Alt || got[i].URL != want[i].URL || len(got[i].Sizes) != len(want[i].Sizes) {
			t.Errorf("item %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if f := strings.Join(fresh.Folders(), " "); f != "/ /press /press/empty" {
		t.Errorf("folders %q", f)
	}
	shared, err := grant.Open(ctx, grant.Config{State: state})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := shared.Lookup(ctx, g.FullKey); err != nil || !ok {
		t.Fatalf("grant not in the bucket: %v %v", ok, err)
	}
}

// TestMediaMigrate_CopiesFiles: issue 23. A library made with `folio media
// import` on local storage (its state in <root>/.state), migrated with `folio media migrate --storage
// s3`, has its originals and derivatives in the bucket (same bytes), under
// the same ids. An item whose name is taken in the bucket by other bytes
// is skipped, reported, and the command fails; once the clash is gone, a
// second run finishes the job and copies nothing twice.
func TestMediaMigrate_CopiesFiles(t *testing.T) {
	cfg, _ := s3test.Start(t)
	t.Setenv("AWS_ACCESS_KEY_ID", cfg.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", cfg.SecretKey)
	ctx := context.Background()
	root := t.TempDir()
	if _, stderr, err := runCLI(t, "media", "import", "--media", root, pngFile(t, "lake.png", 600, 400), pngFile(t, "hill.png", 500, 300)); err != nil {
		t.Fatalf("media import: %v\n%s", err, stderr)
	}
	ls, err := local.Open(local.Config{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	lstate, err := local.OpenStateReadOnly(filepath.Join(root, local.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	loc, err := media.Open(ctx, media.Config{Root: root, Storage: ls, State: lstate, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := loc.List(media.Query{})
	loc.Close()
	lstate.Close()
	ls.Close()
	if len(want) != 2 {
		t.Fatalf("imported %d items", len(want))
	}
	var lake, hill *media.Item
	for _, it := range want {
		switch it.Filename {
		case "lake.png":
			lake = it
		case "hill.png":
			hill = it
		}
	}
	if lake == nil || hill == nil || len(lake.Sizes) == 0 {
		t.Fatalf("imported %+v", want)
	}

	st, err := s3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Someone else's file already has hill.png's name in the bucket.
	if err := st.Put(ctx, hill.Key, strings.NewReader("not hill"), 8, "image/png"); err != nil {
		t.Fatal(err)
	}
	args := []string{"media", "migrate", "--media", root, "--storage", "s3", "--s3-endpoint", cfg.Endpoint,
		"--s3-bucket", cfg.Bucket, "--s3-prefix", cfg.Prefix, "--s3-region", cfg.Region}
	out, _, err := runCLI(t, args...)
	if err == nil {
		t.Fatalf("a migration that skipped an item exited 0:\n%s", out)
	}
	if !strings.Contains(out, "skipped "+hill.ID+" ("+hill.Key+")") || strings.Contains(out, "skipped "+lake.ID) {
		t.Fatalf("migrate said %q", out)
	}
	sameBytes := func(key string) bool {
		t.Helper()
		want, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(key)))
		if err != nil {
			t.Fatal(err)
		}
		rc, err := st.Open(ctx, key)
		if err != nil {
			t.Logf("%s: %v", key, err)
			return false
		}
		defer rc.Close()
		got, _ := io.ReadAll(rc)
		return bytes.Equal(got, want)
	}
	for _, k := range append([]string{lake.Key}, sizeKeys(lake)...) {
		if !sameBytes(k) {
			t.Errorf("%s is not in the bucket as it is on the media root", k)
		}
	}
	if rc, err := st.Open(ctx, hill.Key); err == nil {
		b, _ := io.ReadAll(rc)
		rc.Close()
		if string(b) != "not hill" {
			t.Errorf("the clashing object was overwritten")
		}
	}

	state, err := st.State(s3.DefaultStatePrefix(cfg.Prefix))
	if err != nil {
		t.Fatal(err)
	}
	list := func() []*media.Item {
		fresh, err := media.Open(ctx, media.Config{Root: t.TempDir(), Storage: st, State: state, ReadOnly: true, PollInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		defer fresh.Close()
		got, _ := fresh.List(media.Query{})
		return got
	}
	if got := list(); len(got) != 1 || got[0].ID != lake.ID {
		t.Fatalf("bucket library after a skip: %+v", got)
	}

	// The clash resolved, the same command finishes the job.
	if err := st.Delete(ctx, hill.Key); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("second migrate: %v\n%s\n%s", err, out, errOut)
	}
	n := 1 + len(hill.Sizes)
	if !strings.Contains(out, fmt.Sprintf("%d files copied into the bucket, %d there already", n, 1+len(lake.Sizes))) {
		t.Errorf("second migrate said %q", out)
	}
	for _, k := range append([]string{hill.Key}, sizeKeys(hill)...) {
		if !sameBytes(k) {
			t.Errorf("%s is not in the bucket as it is on the media root", k)
		}
	}
	got := list()
	if len(got) != 2 {
		t.Fatalf("bucket library: %d items", len(got))
	}
	for _, it := range got {
		if it.ID != lake.ID && it.ID != hill.ID {
			t.Errorf("item %s has a new id", it.ID)
		}
	}
	// A third run changes nothing and says so.
	if out, _, err := runCLI(t, args...); err != nil || !strings.Contains(out, "0 files copied") {
		t.Errorf("third migrate: %v %q", err, out)
	}
}

func sizeKeys(it *media.Item) []string {
	var out []string
	for _, s := range it.Sizes {
		out = append(out, s.Key)
	}
	return out
}

func writeTestFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
