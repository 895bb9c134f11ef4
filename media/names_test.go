package media_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/folio-cms/folio/media"
)

func TestSanitizeFilename(t *testing.T) {
	long := strings.Repeat("a", 300) + ".png"
	for _, tc := range []struct{ in, mime, want string }{
		{"photo.jpg", "image/jpeg", "photo.jpg"},
		{"Photo.JPEG", "image/jpeg", "Photo.jpeg"},
		{"photo.png", "image/jpeg", "photo.jpg"},
		{"report.exe", "application/pdf", "report.exe.pdf"},
		{"../../etc/passwd", "application/pdf", "passwd.pdf"},
		{`..\..\windows\system32\evil.svg`, "image/svg+xml", "evil.svg"},
		{"/abs/path/a.gif", "image/gif", "a.gif"},
		{"nul\x00byte.png", "image/png", "nul-byte.png"},
		{"tab\tand\nnewline.png", "image/png", "tab-and-newline.png"},
		{"my holiday (1).webp", "image/webp", "my-holiday-1.webp"},
		{"café crème.jpg", "image/jpeg", "caf-cr-me.jpg"},
		{".htaccess", "application/pdf", "htaccess.pdf"},
		{"..", "image/png", "file.png"},
		{"", "video/mp4", "file.mp4"},
		{"日本語.mp4", "video/mp4", "file.mp4"},
		{"clip.WEBM", "video/webm", "clip.webm"},
		{"--x--.png", "image/png", "x.png"},
		{long, "image/png", strings.Repeat("a", 100) + ".png"},
	} {
		if got := media.SanitizeFilename(tc.in, tc.mime); got != tc.want {
			t.Errorf("SanitizeFilename(%q, %s) = %q, want %q", tc.in, tc.mime, got, tc.want)
		}
	}
}

func TestCleanFolder(t *testing.T) {
	deep := strings.Repeat("/a", media.MaxFolderDepth)
	for _, tc := range []struct{ in, want string }{
		{"", "/"},
		{"/", "/"},
		{"/blog", "/blog"},
		{"/blog/", "/blog"},
		{"/blog/2024", "/blog/2024"},
		{"/Ünï code/ok", "/Ünï code/ok"},
		{deep, deep},
	} {
		got, err := media.CleanFolder(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("CleanFolder(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{
		"blog", "//", "/a//b", "/a/./b", "/a/../b", "/..", "/a\\b", "/a\x00b", "/a\nb",
		"/" + strings.Repeat("x", 600), deep + "/a", "/a/ b", "/\xff",
	} {
		if _, err := media.CleanFolder(bad); !errors.Is(err, media.ErrBadInput) {
			t.Errorf("CleanFolder(%q) = %v, want ErrBadInput", bad, err)
		}
		if err := media.ValidFolder(bad); err == nil {
			t.Errorf("ValidFolder(%q) = nil", bad)
		}
	}
	if media.ValidFolder("") == nil {
		t.Error(`ValidFolder("") = nil`)
	}
}

func TestValidID(t *testing.T) {
	for _, s := range []string{"abcdefghijklmnop", "a234567abcdefghi"} {
		if !media.ValidID(s) {
			t.Errorf("ValidID(%q) = false", s)
		}
	}
	for _, s := range []string{"", "abc", "ABCDEFGHIJKLMNOP", "abcdefghijklmno1", "../../etc/passwd", "abcdefgh/jklmnop", "abcdefghijklmnopq"} {
		if media.ValidID(s) {
			t.Errorf("ValidID(%q) = true", s)
		}
	}
}
