package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/folio-cms/folio/content"
	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine/write"
)

// A write's JSON body is read whole (at most maxWriteBody bytes) and
// measured before it is decoded: nested deeper than the content parser
// reads (content.MaxDepth) it is a 400, of more tokens than a document
// may have (write.MaxTokens) a 413. Only then is it decoded, which costs
// tens of bytes of memory a token. A body of heavyWriteBody bytes or more
// is decoded under heavyWrites, a gate of a few: writes are made one at a
// time anyway, and sixteen 5 MB bodies decoded at once would hold
// gigabytes while they wait for the write lock.

// heavyWriteBody is the size from which a write body passes the gate.
const heavyWriteBody = 256 << 10

// heavyWriteSlots is how many heavy write bodies are decoded and held at
// once.
const heavyWriteSlots = 2

// jsonShape is what scanJSON finds of a JSON text: how deep its objects
// and arrays nest and how many tokens it has (objects, arrays, keys,
// strings, numbers and literals). It does not validate: the decoder
// does, after.
type jsonShape struct {
	depth, tokens int
}

// scanJSON measures b in one pass, without allocating, stopping as soon
// as b is deeper than maxDepth or has more than maxTokens tokens.
func scanJSON(b []byte, maxDepth, maxTokens int) jsonShape {
	var s jsonShape
	depth := 0
	inString, escaped, inLiteral := false, false, false
	for _, c := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		literal := c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if literal && !inLiteral {
			s.tokens++
		}
		inLiteral = literal
		switch c {
		case '"':
			inString = true
			s.tokens++
		case '{', '[':
			s.tokens++
			depth++
			s.depth = max(s.depth, depth)
		case '}', ']':
			depth--
		}
		if s.depth > maxDepth || s.tokens > maxTokens {
			break
		}
	}
	return s
}

// readWriteBody reads a write's JSON object.
func (s *writeHandlers) readWriteBody(w http.ResponseWriter, r *http.Request) (map[string]any, func(), error) {
	done := func() {}
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		return nil, done, badRequest("the body must be JSON (Content-Type: application/json)")
	}
	// Sized from Content-Length when there is one: io.ReadAll's doubling
	// would hold up to twice the body.
	var buf bytes.Buffer
	if n := r.ContentLength; n > 0 && n <= maxWriteBody {
		buf.Grow(int(n) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxWriteBody))
	b := buf.Bytes()
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, done, errorf(fault.TooLarge, "JSON body over %d bytes (a content file may have %d)", maxWriteBody, content.MaxFileSize)
		}
		return nil, done, err
	}
	// +1: the object around the document is a level of its own.
	shape := scanJSON(b, content.MaxDepth+1, write.MaxTokens)
	if shape.depth > content.MaxDepth+1 {
		return nil, done, badRequest("invalid JSON body: nested more than %d levels deep (the content parser's limit)", content.MaxDepth)
	}
	if shape.tokens > write.MaxTokens {
		return nil, done, errorf(fault.TooLarge, "JSON body of more than %d values and keys (a document's limit)", write.MaxTokens)
	}
	if len(b) >= heavyWriteBody {
		if done, err = s.heavyWrites.enter(r.Context()); err != nil {
			return nil, func() {}, err
		}
	}
	v, err := decodeWriteBody(b)
	if err != nil {
		done()
		return nil, func() {}, err
	}
	return v, done, nil
}

// heavyGate is the heavy write gate: a slot per big body decoded at once
// (heavyWriteSlots), shared by the write API and the Decap RPC.
type heavyGate chan struct{}

// enter waits for a slot of the gate; done frees it.
func (g heavyGate) enter(ctx context.Context) (done func(), err error) {
	select {
	case g <- struct{}{}:
		return func() { <-g }, nil
	case <-ctx.Done():
		return nil, errorf(fault.Busy, "the request ended while waiting to decode its body (%v)", ctx.Err())
	}
}

// decodeWriteBody decodes a write's measured body: one JSON object.
func decodeWriteBody(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, badRequest("empty body: send the document as a JSON object")
		}
		return nil, badRequest("invalid JSON body: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return nil, badRequest("invalid JSON body: data after the object")
	}
	if v == nil {
		return nil, badRequest("the body must be a JSON object")
	}
	return v, nil
}
