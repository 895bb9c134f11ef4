package content

import "strings"

// RefHint tells the reference checker, without reading a document's
// strings again, that none of them can be a reference: a restart reads
// every document from the parse cache, and reading every string of
// every one of them for references was a fifth of a restart's CPU at
// 100k files. Parse sets it; a cache of parsed documents keeps it
// (Doc.RefHint, Doc.SetRefHint). The zero value is "not known": the
// checker reads the strings.
type RefHint uint8

const (
	// RefHintKnown: the other bits were found.
	RefHintKnown RefHint = 1 << iota
	// RefHintNoRef: no string of the document reads as a reference of
	// any content type, absolute URLs aside.
	RefHintNoRef
	// RefHintNoURL: no string of the document is an absolute http(s)
	// URL (one under the media library's URL base is a reference).
	RefHintNoURL
)

// RefHint is the Doc's RefHint; 0 when not known.
func (d *Doc) RefHint() RefHint {
	if d == nil {
		return 0
	}
	return d.refHint
}

// SetRefHint sets the Doc's RefHint, as a cache read it; only while the
// Doc is being made (it is shared after), and only to what Parse gave
// the same document.
func (d *Doc) SetRefHint(h RefHint) { d.refHint = h }

// refHintOf reads meta's strings (those the reference checker reads: in
// maps and lists, not under a URL key) for the RefHint.
func refHintOf(meta map[string]any) RefHint {
	h := RefHintKnown | RefHintNoRef | RefHintNoURL
	anyType := RefReader{IsType: func(string) bool { return true }}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			if _, ok := anyType.Parse(v); ok {
				h &^= RefHintNoRef
			}
			if len(v) <= maxRefLen && (strings.HasPrefix(v, "https://") || strings.HasPrefix(v, "http://")) {
				h &^= RefHintNoURL
			}
		case map[string]any:
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	for k, v := range meta {
		if !URLKey(k) {
			walk(v)
		}
	}
	return h
}

// refFree tells whether a document of hint h has no reference for a
// reader of media bases bases.
func (h RefHint) refFree(rr RefReader) bool {
	return h&RefHintKnown != 0 && h&RefHintNoRef != 0 && (len(rr.MediaBases) == 0 || h&RefHintNoURL != 0)
}
