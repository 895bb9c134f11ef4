package media

import (
	"path"
	"strconv"
	"strings"
)

// maxStem bounds the part of a stored file name before its extension, so
// that the name, its derivatives ("<stem>-1200.webp") and its sidecar
// ("<name>.yaml") stay well under file-system and S3 key limits.
const maxStem = 100

// Supported types: the sniffed MIME type, its canonical extension and the
// other extensions a client may use for it.
var typeExts = map[string][]string{
	"image/jpeg":      {".jpg", ".jpeg", ".jpe"},
	"image/png":       {".png"},
	"image/gif":       {".gif"},
	"image/webp":      {".webp"},
	"image/svg+xml":   {".svg"},
	"application/pdf": {".pdf"},
	"video/mp4":       {".mp4", ".m4v"},
	"video/webm":      {".webm"},
}

// Supported reports whether mime is a type the library accepts.
func Supported(mime string) bool {
	_, ok := typeExts[mime]
	return ok
}

// rasterTypes get WebP derivatives.
func raster(mime string) bool {
	switch mime {
	case "image/jpeg", "image/png", "image/gif", "image/webp":
		return true
	}
	return false
}

// Kind is the coarse type of an item used by list filters: "image",
// "video" or "document".
func Kind(mime string) string {
	switch {
	case strings.HasPrefix(mime, "image/"):
		return "image"
	case strings.HasPrefix(mime, "video/"):
		return "video"
	}
	return "document"
}

// SanitizeFilename turns a client-supplied file name into a safe stored
// name for a file of the given (sniffed) type: the last path element only
// (slash or backslash), no control characters, only [A-Za-z0-9._-] (every
// other run becomes one "-"), no leading dot, a stem of at most maxStem
// bytes, and a lower-case extension that belongs to the type: the client's
// own when it is one of the type's, else the canonical one.
func SanitizeFilename(name, mime string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	ext := strings.ToLower(path.Ext(name))
	stem := strings.TrimSuffix(name, path.Ext(name))
	exts := typeExts[mime]
	okExt := false
	for _, e := range exts {
		if ext == e {
			okExt = true
		}
	}
	if !okExt {
		// "photo.png" that is really a JPEG keeps "photo.png" as its stem
		// only when the extension is not one we know, so "x.exe" stays
		// visible as "x.exe.pdf" while "photo.png" becomes "photo.jpg".
		if !knownExt(ext) {
			stem = name
		}
		ext = ".bin"
		if len(exts) > 0 {
			ext = exts[0]
		}
	}
	var b strings.Builder
	dash := false
	for _, r := range stem {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			if !dash {
				b.WriteByte('-')
				dash = true
			}
			continue
		}
		b.WriteRune(r)
		dash = r == '-'
	}
	s := strings.Trim(b.String(), ".-_")
	if len(s) > maxStem {
		s = strings.TrimRight(s[:maxStem], ".-_")
	}
	if s == "" {
		s = "file"
	}
	return s + ext
}

func knownExt(ext string) bool {
	for _, es := range typeExts {
		for _, e := range es {
			if e == ext {
				return true
			}
		}
	}
	return false
}

// numbered is name with "-n" before its extension: "a.jpg", 2 → "a-2.jpg".
func numbered(name string, n int) string {
	if n == 0 {
		return name
	}
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "-" + strconv.Itoa(n) + ext
}

// derivativeKey is the key of the WebP derivative of the original at key,
// at width w: "2026/11/photo.jpg" → "2026/11/photo-400.webp".
func derivativeKey(key string, w int) string {
	return strings.TrimSuffix(key, path.Ext(key)) + "-" + strconv.Itoa(w) + ".webp"
}
