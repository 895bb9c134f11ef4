package repr

import (
	"strconv"
	"sync/atomic"

	"github.com/folio-cms/folio/engine"
)

// Coding is a content coding of a resource's body.
type Coding uint8

// The codings a resource is kept in.
const (
	Identity Coding = iota
	Gzip
	Brotli
	codings // how many
)

// ContentEncoding is the coding's Content-Encoding header value; nil for
// identity. The slices are shared: never modify them.
func (c Coding) ContentEncoding() []string {
	switch c {
	case Gzip:
		return hdrGzip
	case Brotli:
		return hdrBrotli
	}
	return nil
}

var (
	hdrGzip   = []string{"gzip"}
	hdrBrotli = []string{"br"}
)

// ETag is the ETag of the coding of the representation whose identity
// ETag is etag (EncodedETag).
func (c Coding) ETag(etag string) string {
	switch c {
	case Gzip:
		return EncodedETag(etag, "gz")
	case Brotli:
		return EncodedETag(etag, "br")
	}
	return etag
}

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

// Of returns res in coding c (Identity for an unknown one); Body's error
// when the resource does not encode.
func Of(res *engine.Resource, c Coding) (*Representation, error) {
	if c >= codings {
		c = Identity
	}
	body, etag, err := res.Body()
	if err != nil {
		return nil, err
	}
	slot := &keptOf(res).reps[c]
	if rep := slot.Load(); rep != nil {
		return rep, nil
	}
	switch c {
	case Gzip:
		body, etag, _ = GzipBody(res)
	case Brotli:
		body, etag, _ = BrotliBody(res)
	}
	rep := &Representation{Body: body, ETag: []string{etag}, ContentLength: []string{strconv.Itoa(len(body))}}
	// Two first readers may both build it; they build the same thing,
	// and the first one stored is the one kept.
	slot.CompareAndSwap(nil, rep)
	return slot.Load(), nil
}

// kept is what this package keeps with a resource (engine.Resource.Kept),
// allocated on first use: most resources of a big site never need it.
type kept struct {
	enc  encodings
	proj projections
	reps [codings]atomic.Pointer[Representation]
}

func keptOf(res *engine.Resource) *kept {
	slot := res.Kept()
	if p := slot.Load(); p != nil {
		return (*p).(*kept)
	}
	var k any = new(kept)
	slot.CompareAndSwap(nil, &k)
	return (*slot.Load()).(*kept)
}
