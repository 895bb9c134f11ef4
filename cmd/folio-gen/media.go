package main

import (
	"bytes"
	"encoding/base32"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/local"
	"github.com/folio-cms/folio/media/replica"
)

// idEncoding is the alphabet of media ids (media/id.go): 10 bytes in
// lower-case base32 without padding.
var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

var mediaFolders = []string{"/", "/", "/blog", "/products", "/products/tents", "/products/packs", "/team", "/press/2024", "/docs"}

// realImages is how many items get an image of their own; the rest share a
// few tiny placeholder files, which are real files of their type too, so
// every sidecar describes its original truthfully.
const realImages = 20

// placeholder is a small original shared (as bytes) by many items.
type placeholder struct {
	ext, mime string
	data      []byte
	w, h      int
}

// writeMedia writes a local media library of n items: originals under
// <yyyy>/<mm>/<name>, and in its state (<root>/.state, media/local.State:
// one object a file) a sidecar per item at items/<id>.yaml and a claim per
// original at claims/<key>, as media.Library writes them (shared.go,
// media/replica). No log or checkpoint: a first start reads every
// sidecar (and records that in the log, so that its Close writes a
// checkpoint the next start loads).
func writeMedia(root string, n int, seed uint64, m *Manifest) error {
	r := rand.New(rand.NewPCG(seed, 0x3ed1a))
	g := textGen{r: r}
	holders, err := placeholders()
	if err != nil {
		return err
	}
	const months = 48 // 2022-01 .. 2025-12
	perMonth := (n + months - 1) / months
	made := map[string]bool{}
	state := filepath.Join(root, local.StateDir)
	if err := os.MkdirAll(filepath.Join(state, "items"), 0o755); err != nil {
		return err
	}
	out := newFileWriter(8)
	defer out.close()
	m.SearchWords = []string{"glacier", "summit tent", "ultralight", "canyon river"}
	for i := range n {
		month := i / perMonth
		y, mo := 2022+month/12, 1+month%12
		dir := fmt.Sprintf("%04d/%02d", y, mo)
		if !made[dir] {
			for _, d := range []string{filepath.Join(root, dir), filepath.Join(state, "claims", dir)} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					return err
				}
			}
			made[dir] = true
		}
		var idb [10]byte
		for j := range idb {
			idb[j] = byte(r.UintN(256))
		}
		it := media.Item{
			ID:        idEncoding.EncodeToString(idb[:]),
			Alt:       "A " + strings.ToLower(g.title(2)) + " by the " + g.titleWord() + " " + g.word(),
			Folder:    mediaFolders[r.IntN(len(mediaFolders))],
			FocalX:    media.DefaultFocal,
			FocalY:    media.DefaultFocal,
			CreatedAt: time.Date(y, time.Month(mo), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), 0, time.UTC),
			Version:   1,
		}
		if r.IntN(4) == 0 {
			it.Title = g.title(3)
			it.Description = g.title(12)
			it.FocalX, it.FocalY = float64(r.IntN(101)), float64(r.IntN(101))
		}
		var ph placeholder
		if i < realImages {
			ph, err = realImage(r, i)
			if err != nil {
				return err
			}
		} else {
			ph = holders[pickHolder(r.IntN(100))]
		}
		name := g.slugWords(2+r.IntN(2)) + "-" + fmt.Sprint(i) + ph.ext
		it.Filename = name
		it.Key = dir + "/" + name
		it.MimeType = ph.mime
		it.Size = int64(len(ph.data))
		it.Width, it.Height = ph.w, ph.h
		side, err := yaml.Marshal(&it)
		if err != nil {
			return err
		}
		out.write(filepath.Join(root, dir, name), ph.data)
		out.write(filepath.Join(state, "items", it.ID+".yaml"), side)
		out.write(filepath.Join(state, filepath.FromSlash(replica.ClaimKey(it.Key))), replica.ClaimBody(it.ID, it.Key))
		if len(m.MediaIDs) < sampleMax {
			m.MediaIDs = append(m.MediaIDs, it.ID)
		}
	}
	return out.close()
}

// pickHolder maps a percentile to a placeholder kind: mostly JPEG, as in a
// real library, then PNG, PDF and SVG.
func pickHolder(p int) int {
	switch {
	case p < 60:
		return 0
	case p < 75:
		return 1
	case p < 95:
		return 2
	default:
		return 3
	}
}

func placeholders() ([]placeholder, error) {
	img := image.NewRGBA(image.Rect(0, 0, 16, 12))
	for y := range 12 {
		for x := range 16 {
			img.Set(x, y, color.RGBA{uint8(x * 16), uint8(y * 20), 128, 255})
		}
	}
	var j, p bytes.Buffer
	if err := jpeg.Encode(&j, img, &jpeg.Options{Quality: 80}); err != nil {
		return nil, err
	}
	if err := png.Encode(&p, img); err != nil {
		return nil, err
	}
	pdf := []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="16" height="12" viewBox="0 0 16 12"><rect width="16" height="12" fill="#3a7"/></svg>`)
	return []placeholder{
		{".jpg", "image/jpeg", j.Bytes(), 16, 12},
		{".png", "image/png", p.Bytes(), 16, 12},
		{".pdf", "application/pdf", pdf, 0, 0},
		{".svg", "image/svg+xml", svg, 16, 12},
	}, nil
}

// realImage draws a small gradient with noise. It is narrower than the
// narrowest derivative width (150), so the item rightly has no sizes.
func realImage(r *rand.Rand, i int) (placeholder, error) {
	w, h := 96+r.IntN(48), 64+r.IntN(48)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			n := uint8(r.IntN(32))
			img.Set(x, y, color.RGBA{uint8(x*255/w) ^ n, uint8(y*255/h) + n, uint8(i * 12), 255})
		}
	}
	var b bytes.Buffer
	if i%2 == 0 {
		if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 85}); err != nil {
			return placeholder{}, err
		}
		return placeholder{".jpg", "image/jpeg", b.Bytes(), w, h}, nil
	}
	if err := png.Encode(&b, img); err != nil {
		return placeholder{}, err
	}
	return placeholder{".png", "image/png", b.Bytes(), w, h}, nil
}
