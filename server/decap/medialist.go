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
	items, _ := s.Media.List(media.Query{Limit: limit, Desc: true})
	return &mediaList{lib: s.Media, items: items, budget: budget}, nil
}

// mediaList is getMedia's answer.
type mediaList struct {
	lib    *media.Library
	items  []*media.Item
	budget int
}

// Stream writes the list: each item's fields, its thumbnail read (at most
// maxThumbBytes) and written in base64 before the next is read.
func (l *mediaList) Stream(ctx context.Context, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	left := l.budget
	bw.WriteByte('[')
	for i, it := range l.items {
		if err := ctx.Err(); err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		var thumb []byte
		if left > 0 {
			thumb = l.thumbnail(ctx, it, left)
			left -= len(thumb)
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
		if _, err := bw.WriteString("}"); err != nil {
			return err
		}
	}
	bw.WriteString("]\n")
	return bw.Flush()
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
