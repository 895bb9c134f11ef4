package main

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chai2010/webp"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
	"github.com/folio-cms/folio/media/s3/s3test"
)

// TestMediaRegenerate imports fixtures with `folio media import`, then
// runs `folio media regenerate` on the library: stdout is no terminal, so
// both print a line per file.
func TestMediaRegenerate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Images of each kind at 420×260, derivatives at 150 and 400 (the
	// fixtures' 1600×1000 photo and its kin made the test's 13 s of CPU
	// under -race), and the fixture PDF.
	images := t.TempDir()
	fixture := func(name string) string {
		if filepath.Ext(name) == ".pdf" {
			return filepath.Join("..", "..", "fixtures", "media", name)
		}
		return imageFile(t, images, name, 420, 260)
	}
	stdout, stderr, err := runCLI(t, "media", "import", "--media", dir,
		fixture("alpine-lake.jpg"), fixture("forest-trail.png"), fixture("gear-care-guide.pdf"))
	if err != nil {
		t.Fatalf("media import: %v\n%s", err, stderr)
	}
	imported := lines(stdout)
	if len(imported) != 3 || !strings.Contains(imported[0], "\timage/jpeg\t/uploads/") || !strings.Contains(imported[2], "\tapplication/pdf\t") {
		t.Fatalf("import output:\n%s", stdout)
	}
	if _, stderr, err := runCLI(t, "media", "import", "--media", dir, "--folder", "/blog", fixture("summit-sunrise.webp")); err != nil {
		t.Fatalf("media import: %v\n%s", err, stderr)
	}
	before := openItems(t, dir)

	// Only the folder asked for.
	stdout, stderr, err = runCLI(t, "media", "regenerate", "--media", dir, "--folder", "/blog")
	if err != nil {
		t.Fatalf("regenerate --folder: %v\n%s", err, stderr)
	}
	if got := lines(stdout); len(got) != 1 || !strings.HasPrefix(got[0], idOf(before, "summit-sunrise.webp")+"\timage/webp\t") {
		t.Fatalf("regenerate --folder /blog output:\n%s", stdout)
	}
	if !strings.Contains(stderr, "regenerated 1 of 1 images") {
		t.Errorf("summary: %q", stderr)
	}

	// Every image; the PDF is no image.
	stdout, stderr, err = runCLI(t, "media", "regenerate", "--media", dir)
	if err != nil {
		t.Fatalf("regenerate: %v\n%s", err, stderr)
	}
	if got := lines(stdout); len(got) != 3 {
		t.Fatalf("regenerate output:\n%s", stdout)
	}
	after := openItems(t, dir)
	for id, was := range before {
		now := after[id]
		if was.MimeType == "application/pdf" {
			if now.Version != was.Version {
				t.Errorf("PDF rewritten: %+v", now)
			}
			continue
		}
		if now.Version <= was.Version || len(now.Sizes) == 0 || now.Placeholder == "" {
			t.Errorf("%s not regenerated: %+v", was.Filename, now)
		}
		for _, s := range now.Sizes {
			if slices.ContainsFunc(was.Sizes, func(o media.Size) bool { return o.Key == s.Key }) {
				t.Errorf("%s: derivative kept its key %s", was.Filename, s.Key)
			}
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(s.Key))); err != nil {
				t.Errorf("%s: %v", was.Filename, err)
			}
		}
		for _, s := range was.Sizes {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(s.Key))); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: old derivative %s: %v", was.Filename, s.Key, err)
			}
		}
	}

	// A missing original fails that image only, on stderr, with exit 1.
	lake := after[idOf(after, "alpine-lake.jpg")]
	os.Remove(filepath.Join(dir, filepath.FromSlash(lake.Key)))
	stdout, stderr, err = runCLI(t, "media", "regenerate", "--media", dir)
	var exit exitError
	if !errors.As(err, &exit) || exit != 1 {
		t.Fatalf("err = %v, want exit status 1", err)
	}
	if len(lines(stdout)) != 2 || !strings.Contains(stderr, lake.ID+" (alpine-lake.jpg): ") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
}

// imageFile writes a w×h image named name under dir, encoded as its
// extension says (.jpg, .png or .webp), and returns its path.
func imageFile(t *testing.T, dir, name string, w, h int) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			n := uint8((x*7 + y*13) % 61)
			img.Set(x, y, color.NRGBA{R: uint8(x*191/w) + n, G: uint8(y*191/h) + n, B: 128 + n, A: 255})
		}
	}
	var b bytes.Buffer
	var err error
	switch filepath.Ext(name) {
	case ".jpg":
		err = jpeg.Encode(&b, img, &jpeg.Options{Quality: 85})
	case ".png":
		err = png.Encode(&b, img)
	case ".webp":
		err = webp.Encode(&b, img, &webp.Options{Quality: 80})
	default:
		t.Fatalf("imageFile: no encoder for %s", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func lines(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// openItems opens the library under dir (after the command closed it)
// and returns its items by id.
func openItems(t *testing.T, dir string) map[string]*media.Item {
	t.Helper()
	st, err := local.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	state, err := local.OpenStateReadOnly(filepath.Join(dir, local.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	defer state.Close()
	l, err := media.Open(context.Background(), media.Config{Root: dir, Storage: st, State: state, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	items, _ := l.List(media.Query{})
	out := map[string]*media.Item{}
	for _, it := range items {
		out[it.ID] = it
	}
	return out
}

func idOf(items map[string]*media.Item, filename string) string {
	for id, it := range items {
		if it.Filename == filename {
			return id
		}
	}
	return ""
}

// TestMediaRegenerateS3: the same on a library kept in a bucket; a box
// opened afterwards serves the new derivatives, and the old ones are gone.
func TestMediaRegenerateS3(t *testing.T) {
	cfg, _ := s3test.Start(t)
	t.Setenv("AWS_ACCESS_KEY_ID", cfg.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", cfg.SecretKey)
	flags := []string{"--storage", "s3", "--s3-endpoint", cfg.Endpoint, "--s3-bucket", cfg.Bucket, "--s3-region", cfg.Region,
		"--s3-prefix", cfg.Prefix, "--media", t.TempDir()}
	if _, stderr, err := runCLI(t, append(append([]string{"media", "import"}, flags...), pngFile(t, "lake.png", 600, 400))...); err != nil {
		t.Fatalf("media import: %v\n%s", err, stderr)
	}
	ctx := context.Background()
	st, state := s3test.Open(t, cfg)
	items := func() []*media.Item {
		l, err := media.Open(ctx, media.Config{Root: t.TempDir(), Storage: st, State: state, ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		items, _ := l.List(media.Query{})
		return items
	}
	before := items()
	stdout, stderr, err := runCLI(t, append([]string{"media", "regenerate"}, flags...)...)
	if err != nil {
		t.Fatalf("media regenerate: %v\n%s", err, stderr)
	}
	if got := lines(stdout); len(got) != 1 || got[0] != before[0].ID+"\timage/png\t2 derivatives" {
		t.Fatalf("output:\n%s", stdout)
	}
	after := items()
	if len(after) != 1 || after[0].Version != before[0].Version+1 || len(after[0].Sizes) != 2 {
		t.Fatalf("after: %+v", after)
	}
	for i, s := range after[0].Sizes {
		if s.Key == before[0].Sizes[i].Key {
			t.Errorf("derivative kept its key %s", s.Key)
		}
		if _, err := st.Stat(ctx, s.Key); err != nil {
			t.Errorf("new derivative: %v", err)
		}
		if _, err := st.Stat(ctx, before[0].Sizes[i].Key); !errors.Is(err, media.ErrNotExist) {
			t.Errorf("old derivative %s: %v", before[0].Sizes[i].Key, err)
		}
	}
}
