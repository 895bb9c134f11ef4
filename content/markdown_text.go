package content

import (
	"html"
	"regexp"
	"strings"
)

// Patterns of what Text leaves out. Compiled once; regexp values are safe
// for concurrent use.
var (
	// Hugo shortcodes, {{< name args >}} and {{% name args %}}, their
	// closing tags too; the text between a pair is kept.
	shortcodeRE = regexp.MustCompile(`\{\{[<%](?s:.*?)[>%]\}\}`)
	// HTML tags and comments, and autolinks (<https://…>).
	tagRE = regexp.MustCompile(`(?s:<!--.*?-->)|</?[A-Za-z][^<>]*>|<[a-z]+:[^<>\s]*>`)
	// The destination of an inline link or image: [text](url "title").
	linkDestRE = regexp.MustCompile(`\]\([^()\s]*(?:\s+"[^"]*")?\)`)
	// A reference definition: [label]: url "title".
	refDefRE = regexp.MustCompile(`(?m)^[ \t]{0,3}\[[^\]]+\]:[ \t]*\S+.*$`)
	// Bare URLs.
	urlRE = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://\S+`)
	// Markdown punctuation that is markup, not words.
	markupRE = regexp.MustCompile("[*#`|>~]+|!\\[|\\[|\\]|\\\\")
	spaceRE  = regexp.MustCompile(`\s+`)
)

// PlainText is the readable text of s, a Markdown or plain string: words
// and the punctuation between them, with Hugo shortcodes, HTML tags, link
// destinations, URLs and Markdown markup left out and whitespace
// collapsed. It is what a search indexes and quotes from; it is not
// rendered Markdown (no goldmark run), so it costs a few regular
// expressions, not a render.
func PlainText(s string) string {
	if s == "" {
		return ""
	}
	s = shortcodeRE.ReplaceAllLiteralString(s, " ")
	s = refDefRE.ReplaceAllLiteralString(s, " ")
	s = linkDestRE.ReplaceAllLiteralString(s, "] ")
	s = tagRE.ReplaceAllLiteralString(s, " ")
	s = urlRE.ReplaceAllLiteralString(s, " ")
	s = markupRE.ReplaceAllLiteralString(s, " ")
	if strings.IndexByte(s, '&') >= 0 {
		s = html.UnescapeString(s)
	}
	return strings.TrimSpace(spaceRE.ReplaceAllLiteralString(s, " "))
}

// Text is the readable text of the Markdown body (see PlainText).
func (m Markdown) Text() string { return PlainText(m.Source()) }
