package media_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/folio-cms/folio/media"
)

func TestCanonicalLocale(t *testing.T) {
	for in, want := range map[string]string{"en": "en", "EN-us": "en-US", "fr-CA": "fr-CA",
		"zh-hant-tw": "zh-Hant-TW", "de-CH-1996": "de-CH-1996", "iw": "he"} {
		if got, err := media.CanonicalLocale(in); err != nil || got != want {
			t.Errorf("CanonicalLocale(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "*", "english", "en_US!", "und", "fr-", "-fr", "en US", "x",
		strings.Repeat("a", 40), "../etc", "en\x00", "en_US", "fr CA"} {
		if got, err := media.CanonicalLocale(in); !errors.Is(err, media.ErrBadInput) {
			t.Errorf("CanonicalLocale(%q) = %q, %v; want ErrBadInput", in, got, err)
		}
	}
}

func TestFallbackChain(t *testing.T) {
	for _, tc := range []struct {
		locale, def string
		want        []string
	}{
		{"fr-CA", "en", []string{"fr-CA", "fr", "en"}},
		{"zh-Hant-TW", "", []string{"zh-Hant-TW", "zh-Hant", "zh"}},
		{"en-US", "en", []string{"en-US", "en"}},
		{"de-x-formal", "en", []string{"de-x-formal", "de", "en"}},
		{"", "en", []string{"en"}},
		{"", "", nil},
	} {
		if got := media.FallbackChain(tc.locale, tc.def); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("FallbackChain(%q, %q) = %q, want %q", tc.locale, tc.def, got, tc.want)
		}
	}
}

func TestLocalized(t *testing.T) {
	it := &media.Item{Alt: "plain", Title: "T", AltByLocale: map[string]string{"fr": "chat", "en": "cat"},
		DescriptionByLocale: map[string]string{"fr-CA": "minou"}}
	for _, tc := range []struct {
		chain                   []string
		alt, title, description string
	}{
		{media.FallbackChain("fr-CA", "en"), "chat", "T", "minou"},
		{media.FallbackChain("fr", "en"), "chat", "T", ""},
		{media.FallbackChain("de", "en"), "cat", "T", ""},
		{media.FallbackChain("de", ""), "plain", "T", ""},
		{nil, "plain", "T", ""},
	} {
		got := media.Localized(it, tc.chain)
		if got.Alt != tc.alt || got.Title != tc.title || got.Description != tc.description {
			t.Errorf("%q: %q %q %q, want %q %q %q", tc.chain, got.Alt, got.Title, got.Description, tc.alt, tc.title, tc.description)
		}
	}
	if it.Alt != "plain" {
		t.Error("Localized changed the item")
	}
}

func text(kv ...string) media.LocalText {
	m := media.LocalText{}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == "<nil>" {
			m[kv[i]] = nil
		} else {
			m[kv[i]] = ptr(kv[i+1])
		}
	}
	return m
}

func TestLibrary_PatchLocales(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	l := e.open(t)
	it := mustCreate(t, l, "a.png", pngBytes(t, 4, 4), "")
	if got := l.Locales(); len(got) != 0 {
		t.Fatalf("fresh library locales %q", got)
	}
	got, err := l.Patch(ctx, it.ID, media.Patch{Alt: ptr("a cat"), AltByLocale: text("fr", "un chat", "en-us", "a US cat"),
		TitleByLocale: text("de", "Katze"), DescriptionByLocale: text("fr", "Le chat.")})
	if err != nil {
		t.Fatal(err)
	}
	wantAlt := map[string]string{"fr": "un chat", "en-US": "a US cat"}
	if got.Alt != "a cat" || !reflect.DeepEqual(got.AltByLocale, wantAlt) || got.TitleByLocale["de"] != "Katze" ||
		got.DescriptionByLocale["fr"] != "Le chat." || got.Version != 2 {
		t.Fatalf("after patch: %+v", got)
	}
	if got := strings.Join(l.Locales(), ","); got != "de,en-US,fr" {
		t.Errorf("locales %s", got)
	}

	// A patch changes the locales it names: "" and nil remove one.
	got, err = l.Patch(ctx, it.ID, media.Patch{AltByLocale: text("fr", "", "es", "un gato"), TitleByLocale: text("de", "<nil>")})
	if err != nil {
		t.Fatal(err)
	}
	wantAlt = map[string]string{"es": "un gato", "en-US": "a US cat"}
	if !reflect.DeepEqual(got.AltByLocale, wantAlt) || got.TitleByLocale != nil || got.Alt != "a cat" {
		t.Fatalf("after second patch: %+v", got)
	}
	if got := strings.Join(l.Locales(), ","); got != "en-US,es,fr" {
		t.Errorf("locales %s", got)
	}
	sidecar, err := os.ReadFile(sidecarOf(e.root, it.Key))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sidecar), "altByLocale:\n  en-US: a US cat\n  es: un gato\n") {
		t.Errorf("sidecar:\n%s", sidecar)
	}

	// Bad input: a 400 that changes nothing.
	long := strings.Repeat("x", media.MaxAltBytes+1)
	many := media.LocalText{}
	for i := range media.MaxLocales + 1 {
		many[fmt.Sprintf("en-x-%d", 1000+i)] = ptr("x")
	}
	almost := media.LocalText{}
	for i := range media.MaxLocales - 1 {
		almost[fmt.Sprintf("de-x-%d", 1000+i)] = ptr("x")
	}
	for name, p := range map[string]media.Patch{
		"bad tag":         {Alt: ptr("changed"), AltByLocale: text("fr", "ok", "français", "x")},
		"und":             {AltByLocale: text("und", "x")},
		"long value":      {TitleByLocale: text("fr", long+long)},
		"long alt":        {AltByLocale: text("fr", long)},
		"two spellings":   {AltByLocale: text("en-US", "x", "en-us", "y")},
		"not UTF-8":       {DescriptionByLocale: text("fr", "\xff")},
		"too many":        {AltByLocale: many},
		"too many in all": {AltByLocale: almost}, // 2 already there
	} {
		if _, err := l.Patch(ctx, it.ID, p); !errors.Is(err, media.ErrBadInput) {
			t.Errorf("%s: %v, want ErrBadInput", name, err)
		}
	}
	cur, _ := l.Get(it.ID)
	if cur.Version != 3 || cur.Alt != "a cat" || !reflect.DeepEqual(cur.AltByLocale, wantAlt) {
		t.Errorf("failed patches changed the item: %+v", cur)
	}

	// It survives restarts: from the sidecars, then from the index cache.
	for i := range 2 {
		g, ok := e.open(t).Get(it.ID)
		if !ok || !reflect.DeepEqual(g.AltByLocale, wantAlt) || g.DescriptionByLocale["fr"] != "Le chat." || g.Alt != "a cat" {
			t.Errorf("reopen %d: %+v", i, g)
		}
	}
}

// A sidecar edited by hand may spell a tag in any case: it is read in
// canonical form. One with a tag that is not BCP 47 is refused like any
// invalid sidecar, and the rest of the library loads.
func TestLibrary_SidecarLocales(t *testing.T) {
	e := newEnv(t)
	l := e.open(t)
	a := mustCreate(t, l, "a.png", pngBytes(t, 4, 4), "")
	b := mustCreate(t, l, "b.png", pngBytes(t, 4, 4), "")
	l.Close()
	edit := func(key, extra string) {
		p := sidecarOf(e.root, key)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, append(data, extra...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(a.Key, "altByLocale:\n  FR-ca: un chat\n")
	edit(b.Key, "altByLocale:\n  not a tag: x\n")
	l2 := e.open(t)
	if g, ok := l2.Get(a.ID); !ok || g.AltByLocale["fr-CA"] != "un chat" || len(g.AltByLocale) != 1 {
		t.Errorf("hand-edited sidecar: %+v", g)
	}
	if _, ok := l2.Get(b.ID); ok {
		t.Error("a sidecar with a bad locale was loaded")
	}
	if got := strings.Join(l2.Locales(), ","); got != "fr-CA" {
		t.Errorf("locales %s", got)
	}
}

// Localized text reaches every box sharing a bucket: through the log, the
// sidecars and a checkpoint.
func TestShared_LocalizedText(t *testing.T) {
	eachStore(t, func(t *testing.T, newBucket func(testing.TB) *bucket) {
		b := newBucket(t)
		ctx := context.Background()
		w1, w2, ro := b.box(t, false), b.box(t, false), b.box(t, true)
		a := mustCreate(t, w1, "a.png", pngBytes(t, 20, 20), "")
		mustSync(t, w2)
		if _, err := w2.Patch(ctx, a.ID, media.Patch{AltByLocale: text("fr", "un chat", "de", "eine Katze"),
			DescriptionByLocale: text("fr", "Le chat.")}); err != nil {
			t.Fatal(err)
		}
		if _, err := w2.Patch(ctx, a.ID, media.Patch{AltByLocale: text("x-bad!", "x")}); !errors.Is(err, media.ErrBadInput) {
			t.Fatalf("bad locale on a shared library: %v", err)
		}
		// Past MaxLocales with the item's own: refused on the sidecar read
		// afresh from the bucket, nothing written.
		almost := media.LocalText{}
		for i := range media.MaxLocales - 1 {
			almost[fmt.Sprintf("de-x-%d", 1000+i)] = ptr("x")
		}
		if _, err := w1.Patch(ctx, a.ID, media.Patch{Title: ptr("changed"), AltByLocale: almost}); !errors.Is(err, media.ErrBadInput) {
			t.Fatalf("too many locales on a shared library: %v", err)
		}
		mustSync(t, w1, ro)
		want := map[string]string{"fr": "un chat", "de": "eine Katze"}
		for i, l := range []*media.Library{w1, w2, ro} {
			g, _ := l.Get(a.ID)
			if !reflect.DeepEqual(g.AltByLocale, want) || g.DescriptionByLocale["fr"] != "Le chat." || g.Version != 2 {
				t.Fatalf("box %d: %+v", i+1, g)
			}
			if got := strings.Join(l.Locales(), ","); got != "de,fr" {
				t.Errorf("box %d locales %s", i+1, got)
			}
		}
		// A patch on the other box keeps what it did not name.
		if _, err := w1.Patch(ctx, a.ID, media.Patch{AltByLocale: text("de", "")}); err != nil {
			t.Fatal(err)
		}
		mustSync(t, w2)
		if g, _ := w2.Get(a.ID); !reflect.DeepEqual(g.AltByLocale, map[string]string{"fr": "un chat"}) {
			t.Fatalf("after removing de on box 1, box 2 has %v", g.AltByLocale)
		}
		wantSnap := snapshot(w1)
		if got := snapshot(b.box(t, true)); got != wantSnap {
			t.Fatalf("fresh box (sidecars and log):\n%s\nwant\n%s", got, wantSnap)
		}
		if err := w1.Checkpoint(ctx); err != nil {
			t.Fatal(err)
		}
		if got := snapshot(b.box(t, true)); got != wantSnap {
			t.Fatalf("fresh box (checkpoint):\n%s\nwant\n%s", got, wantSnap)
		}
	})
}
