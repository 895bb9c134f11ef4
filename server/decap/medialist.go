package decap

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"

	"github.com/folio-cms/folio/media"
)

// Streamer is an answer written as it is made (a long list), not encoded
// whole first. An error once Stream has written leaves the answer cut
// off: the caller aborts the response.
type Streamer interface {
	Stream(ctx context.Context, w io.Writer) error
}

// getMedia's bounds. Decap's media library takes the whole list at once
// (the proxy backend does not page it, and decap-server lists the whole
// media folder), each file with its bytes: the list names every item (up
// to DefaultMediaListed, the newest first, about 200 bytes each); the
// newest carry their thumbnail (the smallest derivative, or an original
// of at most maxThumbBytes without one) until DefaultMediaThumbBytes of
// thumbnails are sent, the others come without bytes (Decap shows an
// empty tile; choosing one works, getMediaFile reads it).
const (
	DefaultMediaListed     = 50_000
	DefaultMediaThumbBytes = 32 << 20
	maxThumbBytes          = 1 << 20
)

func (s *Service) getMedia(ctx context.Context) (any, error) {
	if s.Media == nil {
		return []mediaFile{}, nil
	}
	limit, budget := s.MediaListed, s.MediaThumbBytes
	if limit <= 0 {
		limit = DefaultMediaListed
	}
	if budget <= 0 {
		budget = DefaultMediaThumbBytes
	}
	return &mediaList{lib: s.Media, limit: limit, budget: budget}, nil
}

// mediaList is getMedia's answer.
type mediaList struct {
	lib           *media.Library
	limit, budget int
}

// mediaPage is how many items Stream copies out of the library at a time.
const mediaPage = 500

// Stream writes the list, the library's items read a page at a time: each
// item's fields, its thumbnail read (at most maxThumbBytes) and written in
// base64 before the next is read. An item a page shift brings twice (one
// added meanwhile) is written once.
func (l *mediaList) Stream(ctx context.Context, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	left, n := l.budget, 0
	seen := map[string]bool{}
	bw.WriteByte('[')
	for off := 0; n < l.limit; off += mediaPage {
		page, _ := l.lib.List(media.Query{Limit: mediaPage, Offset: off, Desc: true})
		if len(page) == 0 {
			break
		}
		for _, it := range page {
			if seen[it.ID] || n == l.limit {
				continue
			}
			seen[it.ID] = true
			if err := l.item(ctx, bw, it, n > 0, &left); err != nil {
				return err
			}
			n++
		}
	}
	bw.WriteString("]\n")
	return bw.Flush()
}

// item writes one item of the list.
func (l *mediaList) item(ctx context.Context, bw *bufio.Writer, it *media.Item, comma bool, left *int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if comma {
		bw.WriteByte(',')
	}
	var thumb []byte
	if *left > 0 {
		thumb = l.thumbnail(ctx, it, *left)
		*left -= len(thumb)
	}
	// The fields of mediaFile, in its order.
	bw.WriteString(`{"id":`)
	writeString(bw, it.ID)
	bw.WriteString(`,"content":"`)
	enc := base64.NewEncoder(base64.StdEncoding, bw)
	enc.Write(thumb)
	enc.Close()
	bw.WriteString(`","encoding":"base64","path":`)
	writeString(bw, it.URL)
	bw.WriteString(`,"name":`)
	writeString(bw, it.Filename)
	_, err := bw.WriteString("}")
	return err
}

// thumbnail is what the list carries of an item: its smallest
// derivative, else its original when it is small; nil when there is
// none, it is over left bytes or it cannot be read (the item is listed
// all the same).
func (l *mediaList) thumbnail(ctx context.Context, it *media.Item, left int) []byte {
	key := it.Key
	if len(it.Sizes) > 0 {
		key = it.Sizes[0].Key
	} else if it.Size > maxThumbBytes || it.Size > int64(left) {
		return nil
	}
	rc, err := l.lib.Storage().Open(ctx, key)
	if err != nil {
		return nil
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, int64(min(left, maxThumbBytes))+1))
	if err != nil || len(b) > left || len(b) > maxThumbBytes {
		return nil
	}
	return b
}

// writeString writes s as a JSON string.
func writeString(bw *bufio.Writer, s string) {
	b, _ := json.Marshal(s)
	bw.Write(b)
}
