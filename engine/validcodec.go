package engine

import "github.com/folio-cms/folio/engine/internal/bincodec"

// The validation cache is written in the parse cache's encoding.
type (
	cacheEncoder = bincodec.Encoder
	cacheDecoder = bincodec.Decoder
)

var errCacheCorrupt = bincodec.ErrCorrupt

func newCacheEncoder(b []byte) *cacheEncoder { return &cacheEncoder{B: b} }

func newCacheDecoder(b []byte) *cacheDecoder { return &cacheDecoder{B: b} }
