package server

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/folio-cms/folio/media"
	"github.com/julienschmidt/httprouter"
)

// Upload request limits beyond the per-file one of the library.
const (
	maxUploadFiles = 1000
	maxFieldBytes  = 16 << 10
	// requestFactor bounds a whole multipart request: this many times the
	// per-file limit (200 MB on local storage).
	requestFactor = 4
)

// uploadError is one failed file of an upload.
type uploadError struct {
	Filename string `json:"filename"`
	Error    string `json:"error"`
	Message  string `json:"message"`
}

type uploadResult struct {
	// Error and Message are set when no file was stored, so that the 4xx
	// body has the contract's error shape as well as the per-file errors.
	Error   string        `json:"error,omitempty"`
	Message string        `json:"message,omitempty"`
	Data    []*media.Item `json:"data"`
	Errors  []uploadError `json:"errors"`
}

// upload streams a multipart request part by part into the library: no
// file is ever held whole in memory. The fields folder and alt apply to
// every file of the request, wherever they stand in it. A request over the
// total limit, malformed, or cut off by the client stores nothing: the
// files already stored by it are deleted again.
func (s *Server) upload(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	ct, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "multipart/form-data" || params["boundary"] == "" {
		return badRequest("the body must be multipart/form-data with one or more 'files' parts")
	}
	limit := s.media.MaxUploadBytes() * requestFactor
	if r.ContentLength > limit {
		return errorf(http.StatusRequestEntityTooLarge, CodeTooLarge, "request larger than %d bytes", limit)
	}
	// Large uploads over slow links take long; other routes keep the
	// server's defaults.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(time.Hour))
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	mr, err := r.MultipartReader()
	if err != nil {
		return badRequest("malformed multipart body")
	}

	var (
		res       = uploadResult{Data: []*media.Item{}, Errors: []uploadError{}}
		folder    = ""
		alt       = ""
		folderSet bool
		altSet    bool
		files     int
		// failed is the error every failed file shared so far; nil once
		// two files failed differently.
		failed    *Error
		anyFailed bool
		fail      error
	)
	rollback := func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), time.Minute)
		defer cancel()
		for _, it := range res.Data {
			if err := s.media.Delete(ctx, it.ID); err != nil {
				s.log.Error("upload rollback", "id", it.ID, "err", err)
			}
		}
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fail = uploadReadError(err, limit)
			break
		}
		name := part.FormName()
		switch {
		case name == "folder" || name == "alt":
			v, err := readField(part)
			if err != nil {
				fail = err
			} else if name == "folder" {
				folder, folderSet = v, true
				// The folder is one for the whole request: an unknown one
				// refuses it (404, as PATCH does) wherever the field stands,
				// rather than failing each file on its own.
				if c, err := media.CleanFolder(v); err != nil {
					fail = mediaError(err)
				} else if !s.folderToWrite(r.Context(), c) {
					fail = notFound("no folder %q: create it first (POST /api/v1/media/folders)", c)
				}
			} else {
				alt, altSet = v, true
				// Checked here so that a bad alt refuses the request the
				// same way before or after the files.
				if len(v) > media.MaxAltBytes {
					fail = badRequest("alt longer than %d bytes", media.MaxAltBytes)
				}
			}
		case name == "files" || name == "files[]" || name == "file":
			files++
			if files > maxUploadFiles {
				fail = badRequest("at most %d files in one request", maxUploadFiles)
				break
			}
			it, err := s.media.Create(r.Context(), media.UploadInput{Filename: part.FileName(), Body: part, Folder: folder, Alt: alt})
			if err != nil {
				if readErr := requestBroken(err, r.Context()); readErr != nil {
					fail = uploadReadError(readErr, limit)
					break
				}
				if errors.Is(err, media.ErrBusy) {
					// The whole request is refused, so that the client
					// retries it as it was after Retry-After.
					fail = s.busy(w)
					break
				}
				e, known := asError(mediaError(err))
				if !known {
					s.log.Error("upload failed", "err", err)
				}
				if !anyFailed {
					failed, anyFailed = e, true
				} else if failed != nil && failed.Code != e.Code {
					failed = nil
				}
				res.Errors = append(res.Errors, uploadError{Filename: part.FileName(), Error: e.Code, Message: e.Message})
				continue
			}
			res.Data = append(res.Data, it)
		default:
			// Unknown fields are read past and ignored, as browsers send
			// submit buttons and the like.
			if _, err := io.Copy(io.Discard, io.LimitReader(part, maxFieldBytes+1)); err != nil {
				fail = uploadReadError(err, limit)
			}
		}
		part.Close()
		if fail != nil {
			break
		}
	}
	if fail == nil && files == 0 {
		fail = badRequest("no file: send one or more parts named 'files'")
	}
	if fail == nil {
		fail = s.applyLateFields(r.Context(), &res, folder, alt, folderSet, altSet)
	}
	if fail != nil {
		rollback()
		return fail
	}
	status := http.StatusCreated
	if len(res.Data) == 0 {
		// Every file failed: their common status (413 when all were too
		// large, 503 when storage is down), else 400.
		status, res.Error = http.StatusBadRequest, CodeBadRequest
		if failed != nil && failed.Status != http.StatusInternalServerError {
			status, res.Error = failed.Status, failed.Code
		}
		res.Message = "no file was stored: see errors for each file"
	}
	ids := make([]string, len(res.Data))
	for i, it := range res.Data {
		res.Data[i] = withSizes(it)
		ids[i] = it.ID
	}
	if len(ids) > 0 {
		s.mediaChanged(ids...)
	}
	return writeJSON(w, status, res)
}

// applyLateFields gives folder and alt to the files stored before those
// fields arrived in the request.
func (s *Server) applyLateFields(ctx context.Context, res *uploadResult, folder, alt string, folderSet, altSet bool) error {
	for i, it := range res.Data {
		var p media.Patch
		if folderSet && it.Folder != mustClean(folder) {
			p.Folder = &folder
		}
		// alt applies to every file, as it does to the files after it.
		if altSet && it.Alt != alt {
			p.Alt = &alt
		}
		if p.Folder == nil && p.Alt == nil {
			continue
		}
		updated, err := s.media.Patch(ctx, it.ID, p)
		if err != nil {
			return mediaError(err)
		}
		res.Data[i] = updated
	}
	return nil
}

func mustClean(f string) string {
	c, _ := media.CleanFolder(f)
	return c
}

func readField(part io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
	if err != nil {
		return "", badRequest("malformed multipart body")
	}
	if len(b) > maxFieldBytes {
		return "", badRequest("form field over %d bytes", maxFieldBytes)
	}
	return strings.TrimSpace(string(b)), nil
}

// requestBroken tells a failure of the request itself (the client went
// away, the body was cut or is over the limit) from a failure of one file.
func requestBroken(err error, ctx context.Context) error {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return mbe
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, io.ErrUnexpectedEOF):
		return err
	}
	return nil
}

func uploadReadError(err error, limit int64) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return errorf(http.StatusRequestEntityTooLarge, CodeTooLarge, "request larger than %d bytes: nothing was stored", limit)
	}
	return badRequest("the upload was cut off or malformed: nothing was stored")
}
