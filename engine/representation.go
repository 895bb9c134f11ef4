package engine

import "strconv"

// Coding is a content coding of a resource's body.
type Coding uint8

// The codings a resource is kept in.
const (
	Identity Coding = iota
	Gzip
	Brotli
	codings // how many
)

// Representation is a resource's body in one coding, with the values of
// its ETag and Content-Length headers as one-element slices to put in a
// header map as they are. It is made on first use and kept with the
// resource, so serving it again formats nothing. Everything in it is
// shared: never modify it.
type Representation struct {
	Body          []byte
	ETag          []string // the coding's ETag (EncodedETag of Body's)
	ContentLength []string
}

// Representation returns the resource in coding c (Identity for an
// unknown one).
func (r *Resource) Representation(c Coding) *Representation {
	if c >= codings {
		c = Identity
	}
	slot := &r.extra().reps[c]
	if rep := slot.Load(); rep != nil {
		return rep
	}
	body, etag := r.Body()
	switch c {
	case Gzip:
		body, etag = r.Gzip()
	case Brotli:
		body, etag = r.Brotli()
	}
	rep := &Representation{Body: body, ETag: []string{etag}, ContentLength: []string{strconv.Itoa(len(body))}}
	// Two first readers may both build it; they build the same thing,
	// and the first one stored is the one kept.
	slot.CompareAndSwap(nil, rep)
	return slot.Load()
}
