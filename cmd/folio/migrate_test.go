package main

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/grant"
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
	old, err := media.Open(ctx, media.Config{Root: root, Storage: st, MaxUploadBytes: media.DefaultMaxUploadCloud})
	if err != nil {
		t.Fatal(err)
	}
	if err := old.CreateFolder("/press/empty"); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 600, 400))); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.png", "b.png"} {
		if _, err := old.Create(ctx, media.UploadInput{Filename: name, Body: bytes.NewReader(buf.Bytes()), Folder: "/press", Alt: "alt of " + name}); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := old.List(media.Query{})
	if err := old.Close(); err != nil {
		t.Fatal(err)
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
