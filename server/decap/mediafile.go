package decap

// Media as Decap reads it: getMedia, getMediaFile.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/media"
)

// uploadKey reads a media path ("/uploads/<key>", "uploads/<key>" or a
// library URL) as a library key.
func uploadKey(p string) (string, bool) {
	for _, pre := range []string{PublicFolder + "/", MediaFolder + "/"} {
		if k, ok := strings.CutPrefix(p, pre); ok && k != "" {
			return k, true
		}
	}
	return "", false
}

// mediaFile is a library item as Decap reads it.
type mediaFile struct {
	ID       string `json:"id"`
	Content  string `json:"content"`
	Encoding string `json:"encoding"`
	Path     string `json:"path"`
	Name     string `json:"name"`
}

func (s *Service) mediaFile(ctx context.Context, p string) (any, error) {
	key, ok := uploadKey(p)
	if !ok || s.Media == nil {
		return nil, fault.New(fault.NotFound, "no media file at %s", p)
	}
	it, ok := s.Media.ByKey(key)
	if !ok {
		return nil, fault.New(fault.NotFound, "no media file at %s", p)
	}
	return s.mediaFileOf(ctx, it)
}

// mediaFileOf is an item's original as Decap reads it (mediaFile), sent
// as a stream: the original is base64-encoded as it is read from storage
// into the answer, never held whole (a 50 MB upload would be 67 MB of
// base64, then its JSON, at each call).
func (s *Service) mediaFileOf(ctx context.Context, it *media.Item) (*mediaStream, error) {
	rc, err := s.Media.Storage().Open(ctx, it.Key)
	if err != nil {
		return nil, fmt.Errorf("decap: read media %s: %w", it.Key, err)
	}
	return &mediaStream{it: it, rc: rc}, nil
}

// mediaStream is a mediaFile whose content is streamed (Streamer).
type mediaStream struct {
	it *media.Item
	rc io.ReadCloser
}

// Stream writes the mediaFile's JSON, the content base64-encoded as the
// original is read; it closes the original.
func (m *mediaStream) Stream(ctx context.Context, w io.Writer) error {
	defer m.rc.Close()
	head, err := json.Marshal(m.it.ID)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, `{"id":`+string(head)+`,"content":"`); err != nil {
		return err
	}
	enc := base64.NewEncoder(base64.StdEncoding, w)
	if _, err := io.Copy(enc, ctxReader{ctx, m.rc}); err != nil {
		return fmt.Errorf("decap: read media %s: %w", m.it.Key, err)
	}
	if err := enc.Close(); err != nil {
		return err
	}
	tail, err := json.Marshal(struct {
		Encoding string `json:"encoding"`
		Path     string `json:"path"`
		Name     string `json:"name"`
	}{"base64", m.it.URL, m.it.Filename})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, `",`+string(tail[1:]))
	return err
}

// ctxReader stops reading once ctx is done (the client went away).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
