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
// unknown one); Body's error when the resource does not encode.
func (r *Resource) Representation(c Coding) (*Representation, error) {
	if c >= codings {
		c = Identity
	}
	if r.done.Load() {
		if m := r.more.Load(); m != nil {
			if rep := m.reps[c].Load(); rep != nil {
				return rep, nil
			}
		}
	}
	body, etag, err := r.Body()
	if err != nil {
		return nil, err
	}
	slot := &r.extra().reps[c]
	if rep := slot.Load(); rep != nil {
		return rep, nil
	}
	switch c {
	case Gzip:
		body, etag, _ = r.Gzip()
	case Brotli:
		body, etag, _ = r.Brotli()
	}
	rep := &Representation{Body: body, ETag: []string{etag}, ContentLength: []string{strconv.Itoa(len(body))}}
	// Two first readers may both build it; they build the same thing,
	// and the first one stored is the one kept.
	slot.CompareAndSwap(nil, rep)
	return slot.Load(), nil
}
