package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/folio-cms/folio/content/fault"
	"github.com/folio-cms/folio/engine"
	"github.com/folio-cms/folio/engine/write"
	"github.com/julienschmidt/httprouter"
)

// maxHookBody bounds a webhook delivery; GitHub's push payloads stay far below.
const maxHookBody = 5 << 20

func (s *Server) healthz(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "commit": s.engine.Published().Commit})
}

// statusBody is the engine's status with what the server adds.
type statusBody struct {
	engine.Status
	// ReadOnly is true on a box started with --read-only.
	ReadOnly bool `json:"readOnly"`
	// KeysFile is why the keys file does not load; absent while it does
	// (see KeyStore for the keys accepted meanwhile).
	KeysFile *KeysFileError `json:"keysFile,omitempty"`
	// Types are the content types of the published view, by name.
	Types []string `json:"types"`
	// Refs is the cache of other refs' snapshots; History the history
	// index.
	Refs    engine.RefStats     `json:"refs"`
	History engine.HistoryStats `json:"history"`
	// UnpushedWrite is a write the last run committed but could not push
	// before it stopped, that this start could not push either (the
	// remote moved): kept in the repository, to be looked at by hand.
	UnpushedWrite *write.Recovery `json:"unpushedWrite,omitempty"`
	// MissingMedia are the media items that published documents refer to
	// and the library does not hold (at most maxMissingMedia of them;
	// MissingMediaTotal counts them all). Absent without a library.
	MissingMedia      []engine.MediaReference `json:"missingMedia,omitempty"`
	MissingMediaTotal int                     `json:"missingMediaTotal,omitempty"`
}

// maxMissingMedia bounds the missing media references the status lists.
const maxMissingMedia = 100

// missingMedia lists the media references of the published view that
// the library lacks. Media change without a reload, so it is worked out
// at each request, from the snapshot's index of references.
func (s *Server) missingMedia(v *engine.View) ([]engine.MediaReference, int) {
	if s.media == nil {
		return nil, 0
	}
	missing := v.MediaReferences(func(id, key string) bool {
		if id != "" {
			_, ok := s.media.Get(id)
			return !ok
		}
		_, ok := s.media.OwnerOf(key)
		return !ok
	})
	return missing[:min(len(missing), maxMissingMedia)], len(missing)
}

func (s *Server) status(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	v := s.engine.View(false)
	body := statusBody{Status: s.engine.Status(), ReadOnly: s.readOnly, Types: v.TypeNames(),
		Refs: s.engine.RefStats(), History: s.engine.HistoryStats()}
	body.MissingMedia, body.MissingMediaTotal = s.missingMedia(v)
	if body.Types == nil {
		body.Types = []string{}
	}
	if s.keys != nil {
		body.KeysFile = s.keys.FileError()
	}
	if s.writer != nil {
		body.UnpushedWrite = s.writer.Unpushed()
	}
	return serveJSON(w, r, body, cacheNoStore, keyHdr{})
}

// gitHook verifies a GitHub-style push webhook (X-Hub-Signature-256: an
// HMAC-SHA256 of the body with the shared secret) and triggers a sync.
func (s *Server) gitHook(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	if s.hookSecret == "" {
		return notFound("webhooks are disabled: start folio with --webhook-secret")
	}
	// Everything that can be refused without the body is refused before
	// reading it (and the connection closed: see transport.CloseUnread).
	sig, ok := strings.CutPrefix(r.Header.Get("X-Hub-Signature-256"), "sha256=")
	if !ok {
		return errorf(fault.Unauthorized, "missing X-Hub-Signature-256 header")
	}
	got, err := hex.DecodeString(sig)
	if err != nil || len(got) != sha256.Size {
		return errorf(fault.Unauthorized, "malformed X-Hub-Signature-256 header")
	}
	if r.ContentLength > maxHookBody {
		return errorf(fault.TooLarge, "webhook body over %d bytes", maxHookBody)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxHookBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return errorf(fault.TooLarge, "webhook body over %d bytes", maxHookBody)
		}
		return badRequest("the webhook body was cut off")
	}
	mac := hmac.New(sha256.New, []byte(s.hookSecret))
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return errorf(fault.Unauthorized, "webhook signature does not match")
	}
	s.engine.Trigger()
	return writeJSON(w, http.StatusAccepted, map[string]bool{"accepted": true})
}
