// Package media is folio's media library: the media model, folders, sidecar
// metadata, type sniffing and image derivatives, over a Storage interface
// with local-disk and S3 adapters. It knows nothing of Git, HTTP or content.
package media

import "time"

// Item is one media file of the library. Its sidecar YAML holds all of it.
type Item struct {
	ID          string `yaml:"id" json:"id"`
	Filename    string `yaml:"filename" json:"filename"`
	MimeType    string `yaml:"mimeType" json:"mimeType"`
	Size        int64  `yaml:"size" json:"size"`
	Width       int    `yaml:"width" json:"width"`
	Height      int    `yaml:"height" json:"height"`
	Alt         string `yaml:"alt" json:"alt"`
	Title       string `yaml:"title" json:"title"`
	Description string `yaml:"description" json:"description"`
	// AltByLocale, TitleByLocale and DescriptionByLocale are the values
	// of Alt, Title and Description in other locales, by canonical BCP
	// 47 tag (locale.go); the plain fields are the unlocalized values.
	AltByLocale         map[string]string `yaml:"altByLocale,omitempty" json:"altByLocale,omitempty"`
	TitleByLocale       map[string]string `yaml:"titleByLocale,omitempty" json:"titleByLocale,omitempty"`
	DescriptionByLocale map[string]string `yaml:"descriptionByLocale,omitempty" json:"descriptionByLocale,omitempty"`
	Folder              string            `yaml:"folder" json:"folder"`
	FocalX              float64           `yaml:"focalX" json:"focalX"`
	FocalY              float64           `yaml:"focalY" json:"focalY"`
	CreatedAt           time.Time         `yaml:"createdAt" json:"createdAt"`
	// Key is the storage key of the original: "<yyyy>/<mm>/<name>" (on S3
	// behind the site prefix). The public URL is derived from it.
	Key string `yaml:"key" json:"-"`
	// Sizes are the WebP derivatives, narrowest first.
	Sizes []Size `yaml:"sizes,omitempty" json:"sizes"`
	// Placeholder is a blurhash of the image; DominantColor is "#rrggbb".
	Placeholder   string `yaml:"placeholder,omitempty" json:"placeholder,omitempty"`
	DominantColor string `yaml:"dominantColor,omitempty" json:"dominantColor,omitempty"`
	// Version counts the writes of the sidecar; it makes the ETag.
	Version int `yaml:"version" json:"-"`
	// URL is where the original is served. It is not stored: the Library
	// fills it (and each Size's URL) from Storage.URL on every copy it
	// returns, so a change of CDN or bucket address needs no rewrite.
	URL string `yaml:"-" json:"url"`
}

// Size is one WebP derivative of an image.
type Size struct {
	Width  int    `yaml:"width" json:"width"`
	Height int    `yaml:"height" json:"height"`
	Key    string `yaml:"key" json:"-"`
	URL    string `yaml:"-" json:"url"`
}

// DefaultFocal is the focal point of an item when none is given: the centre.
const DefaultFocal = 50.0

// DerivativeWidths are the widths of the WebP derivatives of every image.
var DerivativeWidths = [...]int{150, 400, 800, 1200}
