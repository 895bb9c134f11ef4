package server

import (
	"context"
	"errors"
	"github.com/folio-cms/folio/content/fault"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/grant"
	"github.com/julienschmidt/httprouter"
)

// DefaultPresignTTL is how long a presign grant lasts (the contract leaves
// it open): long enough for a 500 MB upload over a slow link, short enough
// that a leaked URL is soon useless.
const DefaultPresignTTL = 15 * time.Minute

const maxFilenameBytes = 255

// presignKeyTries bounds how often presign asks the library for another
// key while the one it got is still held by a grant from before a restart
// (the library's reservations live in memory only).
const presignKeyTries = 100

// grantWriteTimeout bounds giving back or spending a grant at the end of
// a confirm (see detached).
const grantWriteTimeout = 30 * time.Second

type presignRequest struct {
	Filename string `json:"filename"`
	MimeType string `json:"mimeType"`
	Size     int64  `json:"size"`
}

// presignGrant is the grant of the contract (§2.3).
type presignGrant struct {
	UploadURL  string            `json:"uploadUrl"`
	PublicURL  string            `json:"publicUrl"`
	StorageKey string            `json:"storageKey"`
	ExpiresAt  string            `json:"expiresAt"`
	Method     string            `json:"method"`
	Headers    map[string]string `json:"headers"`
}

type confirmRequest struct {
	StorageKey string `json:"storageKey"`
	Filename   string `json:"filename"`
	MimeType   string `json:"mimeType"`
	Size       int64  `json:"size"`
	Folder     string `json:"folder"`
}

type confirmedItem struct {
	ID        string    `json:"id"`
	Filename  string    `json:"filename"`
	URL       string    `json:"url"`
	Folder    string    `json:"folder"`
	CreatedAt time.Time `json:"createdAt"`
}

type confirmResponse struct {
	Success bool          `json:"success"`
	Data    confirmedItem `json:"data"`
}

// presigner returns the storage's presigner, or the contract's 400 when
// media lives on local storage.
func (s *mediaHandlers) presigner() (media.Presigner, error) {
	if s.media != nil && s.grants != nil {
		if p, ok := s.media.Storage().(media.Presigner); ok {
			return p, nil
		}
	}
	return nil, badRequest("presigned uploads need cloud storage (--storage s3); on local storage use the multipart POST /api/v1/media")
}

// checkFilename refuses names that could not be a file name anywhere: the
// library sanitizes what it stores, but a name with a path or control
// characters in it is a client bug or an attack, and is told so.
func checkFilename(name string) error {
	switch {
	case name == "":
		return badRequest("filename is required")
	case len(name) > maxFilenameBytes:
		return badRequest("filename is longer than %d bytes", maxFilenameBytes)
	case !utf8.ValidString(name):
		return badRequest("filename is not valid UTF-8")
	case strings.ContainsAny(name, `/\`):
		return badRequest("filename must not contain / or \\")
	case strings.Contains(name, ".."):
		return badRequest("filename must not contain ..")
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return badRequest("filename must not contain control characters")
	}
	return nil
}

func (s *mediaHandlers) checkDeclared(filename, mimeType string, size int64) error {
	if err := checkFilename(filename); err != nil {
		return err
	}
	if !media.Supported(mimeType) {
		return badRequest("mimeType %q is not supported: JPEG, PNG, GIF, WebP, SVG, PDF, MP4 or WebM", mimeType)
	}
	if max := s.media.MaxUploadBytes(); size < 1 || size > max {
		return badRequest("size must be between 1 and %d bytes", max)
	}
	return nil
}

func (s *mediaHandlers) ttl() time.Duration {
	if s.presignTTL > 0 {
		return s.presignTTL
	}
	return DefaultPresignTTL
}

// presign grants one direct upload to storage. The grant is persisted
// before it is answered, so a restarted service still honours it.
func (s *mediaHandlers) presign(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	p, err := s.presigner()
	if err != nil {
		return err
	}
	var req presignRequest
	if err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	if err := s.checkDeclared(req.Filename, req.MimeType, req.Size); err != nil {
		return err
	}
	ttl := s.ttl()
	// Whole seconds, rounded down: the grant never outlives its URL.
	expires := s.now().Add(ttl).UTC().Truncate(time.Second)
	var key string
	for try := 0; ; try++ {
		if try == presignKeyTries {
			return errors.New("presign: no free key")
		}
		if key, err = s.media.PresignKey(r.Context(), req.Filename, req.MimeType, req.Size, ttl); err != nil {
			return err
		}
		pending, err := s.grants.Pending(r.Context(), p.FullKey(key))
		if err != nil {
			return err
		}
		if !pending {
			break
		}
	}
	// The upload lands in the private staging area, never at the final
	// key: the confirm copies what it checked there, so no presigned URL
	// can write a public object (issue 23, finding 3).
	var (
		url     string
		headers map[string]string
		staged  string
	)
	if st := s.media.Stager(); st != nil {
		staged = media.StagedKey(key)
		url, headers, err = st.PresignStaged(r.Context(), staged, req.MimeType, req.Size, ttl)
	} else {
		url, headers, err = p.PresignPut(r.Context(), key, req.MimeType, req.Size, ttl)
	}
	if err != nil {
		return err
	}
	g := grant.Grant{
		Key: key, FullKey: p.FullKey(key), Filename: req.Filename, MimeType: req.MimeType,
		Size: req.Size, ExpiresAt: expires, Staged: staged,
	}
	if k := keyFrom(r.Context()); k != nil {
		g.KeyName = k.Name
	}
	if err := s.grants.Add(r.Context(), g); err != nil {
		if errors.Is(err, grant.ErrFull) {
			w.Header().Set("Retry-After", "60")
		}
		return err
	}
	if headers == nil {
		headers = map[string]string{}
	}
	if _, ok := headers["Content-Type"]; !ok {
		headers["Content-Type"] = req.MimeType
	}
	w.Header().Set("Cache-Control", cacheNoStore)
	return writeJSON(w, http.StatusOK, presignGrant{
		UploadURL: url, PublicURL: s.media.Storage().URL(key), StorageKey: g.FullKey,
		ExpiresAt: expires.Format(time.RFC3339), Method: http.MethodPut, Headers: headers,
	})
}

// confirm registers an uploaded object as a media item. Statuses: 400 for
// a key outside the site's prefix, a body that differs from the grant, an
// object that is not what was declared (the object is then deleted) or
// nothing uploaded yet; 404 for a key never granted; 409 for a grant
// already confirmed or being confirmed; 410 GRANT_EXPIRED after expiresAt;
// 503 when storage is down. The grant is used up only when the item was
// registered, or the object was refused and deleted; otherwise the client
// may confirm again while the grant lasts.
func (s *mediaHandlers) confirm(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	p, err := s.presigner()
	if err != nil {
		return err
	}
	var req confirmRequest
	if err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	if req.StorageKey == "" {
		return badRequest("storageKey is required")
	}
	if prefix := strings.TrimSuffix(p.FullKey("x"), "x"); !strings.HasPrefix(req.StorageKey, prefix) {
		return badRequest("storageKey is outside this site's storage prefix %q", prefix)
	}
	if req.Filename != "" {
		if err := checkFilename(req.Filename); err != nil {
			return err
		}
	}
	folder, err := media.CleanFolder(req.Folder)
	if err != nil {
		return err
	}
	if !s.folderToWrite(r.Context(), folder) {
		return notFound("folder %s not found", folder)
	}
	if err := s.grantOwner(r, req.StorageKey); err != nil {
		return err
	}
	g, err := s.grants.Claim(r.Context(), req.StorageKey)
	if err != nil {
		return err // the grant's sentinels carry their codes (errorTable)
	}
	taken := false
	defer func() {
		if !taken {
			s.release(r.Context(), g.FullKey)
		}
	}()
	if req.MimeType != g.MimeType {
		return badRequest("mimeType %q differs from the granted %q", req.MimeType, g.MimeType)
	}
	if req.Size != g.Size {
		return badRequest("size %d differs from the granted %d", req.Size, g.Size)
	}
	it, err := s.media.Adopt(r.Context(), media.AdoptInput{
		Key: g.Key, Filename: g.Filename, MimeType: g.MimeType, Size: g.Size, Folder: folder, Staged: g.Staged,
	})
	switch {
	case err == nil:
	case errors.Is(err, media.ErrBusy):
		// Nothing was deleted: the same grant works after Retry-After.
		return s.busy(w)
	case errors.Is(err, media.ErrUnavailable), errors.Is(err, context.Canceled),
		errors.Is(err, media.ErrFolderNotFound), errors.Is(err, media.ErrConflict):
		// Nothing was deleted: the same grant works once the cause is gone.
		return err
	case errors.Is(err, media.ErrNotUploaded):
		// Nothing was uploaded yet: the same grant works once it is.
		return err
	default:
		// Adopt deleted the refused object: the grant is spent.
		if terr := s.take(r.Context(), g.FullKey); terr != nil {
			s.log.Error("presign: refused grant not consumed", "key", g.FullKey, "err", terr)
		}
		taken = true
		return err
	}
	taken = true
	if err := s.take(r.Context(), g.FullKey); err != nil {
		// The item exists; a repeated confirm finds it claimed in the
		// library (409), so an unrecorded grant does no harm.
		s.log.Error("presign: confirmed grant not recorded", "key", g.FullKey, "err", err)
		s.release(r.Context(), g.FullKey)
	}
	s.log.Info("media confirmed", "id", it.ID, "key", g.FullKey, "apiKey", g.KeyName)
	s.mediaChanged(it.ID)
	w.Header().Set("Cache-Control", cacheNoStore)
	return writeJSON(w, http.StatusCreated, confirmResponse{Success: true, Data: confirmedItem{
		ID: it.ID, Filename: it.Filename, URL: it.URL, Folder: it.Folder, CreatedAt: it.CreatedAt,
	}})
}

// grantOwner refuses, with 403, a confirm by another API key than the one
// that asked for the grant: a grant is not a bearer token for every key
// with media:write. An unknown grant is left to Claim (404).
func (s *mediaHandlers) grantOwner(r *http.Request, fullKey string) error {
	g, ok, err := s.grants.Lookup(r.Context(), fullKey)
	if err != nil {
		return err
	}
	if !ok || g.KeyName == "" {
		return nil
	}
	if k := keyFrom(r.Context()); k == nil || k.Name != g.KeyName {
		return errorf(fault.Forbidden, "this upload was granted to another API key; only that key may confirm it")
	}
	return nil
}

// detached is ctx without its cancellation, with a deadline of its own: a
// claimed grant must be given back or spent even when the client hung up,
// or a shared grant store keeps the claim until its lease runs out.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), grantWriteTimeout)
}

// take spends a claimed grant.
func (s *mediaHandlers) take(ctx context.Context, fullKey string) error {
	ctx, cancel := detached(ctx)
	defer cancel()
	return s.grants.Take(ctx, fullKey)
}

// release gives a claimed grant back; when that fails the claim runs out
// with its lease (state store) and the client may confirm again then.
func (s *mediaHandlers) release(ctx context.Context, fullKey string) {
	ctx, cancel := detached(ctx)
	defer cancel()
	if err := s.grants.Release(ctx, fullKey); err != nil {
		s.log.Warn("presign: grant not released", "key", fullKey, "err", err)
	}
}
