package media

import (
	"errors"
	"path"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzCleanFolder: any folder path a client sends is refused with
// ErrBadInput or cleaned to a normal form that is valid, stable under a
// second cleaning, bounded, and cannot climb out of the library.
func FuzzCleanFolder(f *testing.F) {
	for _, s := range []string{"", "/", "/a", "/a/", "/a/b/c", "a", "//", "/a//b", "/./a", "/a/..", "/ a", "/a\\b",
		"/\x00", "/\u202eevil", "/é/ü", "/" + strings.Repeat("a/", MaxFolderDepth+1), "/" + strings.Repeat("x", MaxFolderBytes), "/\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		c, err := CleanFolder(p)
		if err != nil {
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("CleanFolder(%q): %v, not ErrBadInput", p, err)
			}
			if ValidFolder(p) == nil && p != "" {
				t.Fatalf("ValidFolder(%q) accepts what CleanFolder refuses", p)
			}
			return
		}
		if c2, err := CleanFolder(c); err != nil || c2 != c {
			t.Fatalf("CleanFolder(%q) = %q, cleaned again %q, %v", p, c, c2, err)
		}
		if !strings.HasPrefix(c, "/") || len(c) > MaxFolderBytes || !utf8.ValidString(c) || path.Clean(c) != c {
			t.Fatalf("CleanFolder(%q) = %q", p, c)
		}
		if c != RootFolder && strings.Count(c, "/") > MaxFolderDepth {
			t.Fatalf("CleanFolder(%q) = %q: deeper than %d", p, c, MaxFolderDepth)
		}
		for _, r := range c {
			if unicode.IsControl(r) || r == '\\' {
				t.Fatalf("CleanFolder(%q) = %q keeps %q", p, c, r)
			}
		}
		for _, parent := range folderParents(c) {
			if !below(c, parent) {
				t.Fatalf("%q is not below its parent %q", c, parent)
			}
		}
	})
}

// FuzzSanitizeFilename: whatever name a client sends, the stored name is
// one path element of safe bytes with an extension of the file's type.
func FuzzSanitizeFilename(f *testing.F) {
	for _, s := range []string{"photo.jpg", "../../etc/passwd", "a\\b.png", ".htaccess", "x.exe", "résumé.pdf", "\x00.svg",
		"....", strings.Repeat("a", 300) + ".jpeg", "C:\\x\\y.JPG", "a\u202egpj.exe", ""} {
		for _, m := range []string{"image/jpeg", "image/png", "image/svg+xml", "application/pdf", "video/webm", "text/html"} {
			f.Add(s, m)
		}
	}
	f.Fuzz(func(t *testing.T, name, mime string) {
		got := SanitizeFilename(name, mime)
		ext := path.Ext(got)
		stem := strings.TrimSuffix(got, ext)
		if stem == "" || len(stem) > maxStem || strings.HasPrefix(got, ".") || strings.HasPrefix(got, "-") {
			t.Fatalf("SanitizeFilename(%q, %q) = %q", name, mime, got)
		}
		for i := 0; i < len(got); i++ {
			c := got[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
				t.Fatalf("SanitizeFilename(%q, %q) = %q has byte %q", name, mime, got, c)
			}
		}
		if exts := typeExts[mime]; len(exts) > 0 {
			ok := false
			for _, e := range exts {
				ok = ok || e == ext
			}
			if !ok {
				t.Fatalf("SanitizeFilename(%q, %q) = %q: extension not of the type", name, mime, got)
			}
		} else if ext != ".bin" {
			t.Fatalf("SanitizeFilename(%q, %q) = %q: want .bin for an unknown type", name, mime, got)
		}
		if again := SanitizeFilename(got, mime); Supported(mime) && again != got {
			t.Fatalf("SanitizeFilename not stable: %q -> %q -> %q", name, got, again)
		}
	})
}

// FuzzCanonicalLocale: any locale a client sends is refused with
// ErrBadInput or put in a canonical form that is a BCP 47 tag of bounded
// length, stable under a second canonicalization, whose fallback chain is
// finite and made of its own prefixes.
func FuzzCanonicalLocale(f *testing.F) {
	for _, s := range []string{"en", "EN-us", "fr-CA", "zh-Hant-TW", "de-CH-1996", "iw", "und", "und-x-a", "x-private",
		"en-u-ca-gregory", "sr-Latn-RS-u-nu-latn-x-foo", "i-klingon", "*", "", "en_US", "en--US", "-", "en-", "\xff",
		"qaa", "art-lojban", strings.Repeat("a", 36), "a-b-c-d-e-f-g-h-i-j-k-l-m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := CanonicalLocale(s)
		if err != nil {
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("CanonicalLocale(%q): %v, not ErrBadInput", s, err)
			}
			return
		}
		if c == "" || len(c) > maxLocaleLen || c == "und" {
			t.Fatalf("CanonicalLocale(%q) = %q", s, c)
		}
		if c2, err := CanonicalLocale(c); err != nil || c2 != c {
			t.Fatalf("CanonicalLocale(%q) = %q, again %q, %v", s, c, c2, err)
		}
		chain := FallbackChain(c, "en")
		if len(chain) == 0 || chain[0] != c || len(chain) > 20 {
			t.Fatalf("FallbackChain(%q) = %q", c, chain)
		}
		for _, l := range chain[1:] {
			if l != "en" && !strings.HasPrefix(c, l+"-") {
				t.Fatalf("FallbackChain(%q) = %q: %q is not a prefix", c, chain, l)
			}
		}
	})
}
