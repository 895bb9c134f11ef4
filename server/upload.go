package server

import (
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"time"

	"github.com/folio-cms/folio/content/fault"
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
//
// The steps: openUpload checks the request and opens its parts; an
// uploadBatch reads them one by one (read), giving each file to the
// library (file) and the fields to every file (setFolder, setAlt,
// applyLateFields); any error of the request as a whole ends the reading
// and rolls the batch back; else respond answers 201 or, when every file
// failed, their common status.
func (s *mediaHandlers) upload(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	mr, limit, err := s.openUpload(w, r)
	if err != nil {
		return err
	}
	b := &uploadBatch{s: s, ctx: r.Context(), limit: limit, res: uploadResult{Data: []*media.Item{}, Errors: []uploadError{}}}
	if err := b.read(mr); err != nil {
		b.rollback()
		if errors.Is(err, media.ErrBusy) {
			// The image queue is full: the whole request is refused, so
			// that the client sends it again as it was after Retry-After.
			return s.busy(w)
		}
		return err
	}
	return b.respond(w)
}

// openUpload checks the request's type and length and opens its parts;
// limit bounds the whole body.
func (s *mediaHandlers) openUpload(w http.ResponseWriter, r *http.Request) (mr *multipart.Reader, limit int64, err error) {
	ct, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "multipart/form-data" || params["boundary"] == "" {
		return nil, 0, badRequest("the body must be multipart/form-data with one or more 'files' parts")
	}
	limit = s.media.MaxUploadBytes() * requestFactor
	if r.ContentLength > limit {
		return nil, 0, errorf(fault.TooLarge, "request larger than %d bytes", limit)
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	mr, err = r.MultipartReader()
	if err != nil {
		return nil, 0, badRequest("malformed multipart body")
	}
	return mr, limit, nil
}

// uploadBatch is one upload request while its parts arrive: the files
// stored so far, the files that failed, and the request-wide fields.
type uploadBatch struct {
	s     *mediaHandlers
	ctx   context.Context
	limit int64
	res   uploadResult
	// folder and alt are the request's fields; they apply to the files
	// that follow them as they are stored, and to the files before them
	// at the end (applyLateFields).
	folder, alt formField
	files       int
	failed      commonFailure
}

// formField is a text field of the request, which may be absent.
type formField struct {
	value string
	set   bool
}

// read reads every part of the request. A non-nil error is the answer to
// the whole request (the batch must be rolled back); a file that fails on
// its own is recorded in res.Errors instead.
func (b *uploadBatch) read(mr *multipart.Reader) error {
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return uploadReadError(err, b.limit)
		}
		err = b.part(part)
		part.Close()
		if err != nil {
			return err
		}
	}
	if b.files == 0 {
		return badRequest("no file: send one or more parts named 'files'")
	}
	return b.applyLateFields()
}

// part handles one part of the request by its form name.
func (b *uploadBatch) part(part *multipart.Part) error {
	switch part.FormName() {
	case "folder":
		return b.setFolder(part)
	case "alt":
		return b.setAlt(part)
	case "files", "files[]", "file":
		return b.file(part)
	default:
		// Unknown fields are read past and ignored, as browsers send
		// submit buttons and the like.
		if _, err := io.Copy(io.Discard, io.LimitReader(part, maxFieldBytes+1)); err != nil {
			return uploadReadError(err, b.limit)
		}
		return nil
	}
}

// setFolder records the folder field. The folder is one for the whole
// request: an unknown one refuses it (404, as PATCH does) wherever the
// field stands, rather than failing each file on its own.
func (b *uploadBatch) setFolder(part io.Reader) error {
	v, err := readField(part)
	if err != nil {
		return err
	}
	b.folder = formField{v, true}
	c, err := media.CleanFolder(v)
	if err != nil {
		return err
	}
	if !b.s.folderToWrite(b.ctx, c) {
		return notFound("no folder %q: create it first (POST /api/v1/media/folders)", c)
	}
	return nil
}

// setAlt records the alt field, checked here so that a bad alt refuses
// the request the same way before or after the files.
func (b *uploadBatch) setAlt(part io.Reader) error {
	v, err := readField(part)
	if err != nil {
		return err
	}
	b.alt = formField{v, true}
	if len(v) > media.MaxAltBytes {
		return badRequest("alt longer than %d bytes", media.MaxAltBytes)
	}
	return nil
}

// file stores one file part. It fails the request only when the request
// itself broke (cut off, over the limit, client gone); a file the library
// refuses is recorded in res.Errors and the next part is read.
func (b *uploadBatch) file(part *multipart.Part) error {
	b.files++
	if b.files > b.s.maxFiles {
		return badRequest("at most %d files in one request", b.s.maxFiles)
	}
	it, err := b.s.media.Create(b.ctx, media.UploadInput{Filename: part.FileName(), Body: part, Folder: b.folder.value, Alt: b.alt.value})
	if err != nil {
		if readErr := requestBroken(err, b.ctx); readErr != nil {
			return uploadReadError(readErr, b.limit)
		}
		if errors.Is(err, media.ErrBusy) {
			return err
		}
		e, known := asError(err)
		if !known {
			b.s.log.Error("upload failed", "err", err)
		}
		b.failed.add(e)
		b.res.Errors = append(b.res.Errors, uploadError{Filename: part.FileName(), Error: e.Code, Message: e.Message})
		return nil
	}
	b.res.Data = append(b.res.Data, it)
	return nil
}

// rollback deletes the files stored by a request that failed as a whole,
// even when the client went away.
func (b *uploadBatch) rollback() {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(b.ctx), time.Minute)
	defer cancel()
	for _, it := range b.res.Data {
		if err := b.s.media.Delete(ctx, it.ID); err != nil {
			b.s.log.Error("upload rollback", "id", it.ID, "err", err)
		}
	}
}

// respond answers a request that was read to its end: 201 with the stored
// files, or, when every file failed, their common status (413 when all
// were too large, 503 when storage is down), else 400.
func (b *uploadBatch) respond(w http.ResponseWriter) error {
	res := b.res
	status := http.StatusCreated
	if len(res.Data) == 0 {
		status, res.Error = b.failed.status()
		res.Message = "no file was stored: see errors for each file"
	}
	ids := make([]string, len(res.Data))
	for i, it := range res.Data {
		res.Data[i] = withSizes(it)
		ids[i] = it.ID
	}
	if len(ids) > 0 {
		b.s.mediaChanged(ids...)
	}
	return writeJSON(w, status, res)
}

// commonFailure follows the errors of the failed files of a request, to
// answer with their status when they all failed the same way.
type commonFailure struct {
	first *httpError // the first failure
	mixed bool       // two files failed differently
}

func (c *commonFailure) add(e httpError) {
	switch {
	case c.first == nil:
		c.first = &e
	case c.first.Code != e.Code:
		c.mixed = true
	}
}

// status is the status and contract code of a request none of whose
// files was stored: the files' common failure unless it was internal,
// else 400.
func (c *commonFailure) status() (int, string) {
	if c.first == nil || c.mixed || c.first.Status == http.StatusInternalServerError {
		return http.StatusBadRequest, CodeBadRequest
	}
	return c.first.Status, c.first.Code
}

// applyLateFields gives folder and alt to the files stored before those
// fields arrived in the request.
func (b *uploadBatch) applyLateFields() error {
	for i, it := range b.res.Data {
		var p media.Patch
		if b.folder.set && it.Folder != mustClean(b.folder.value) {
			p.Folder = &b.folder.value
		}
		// alt applies to every file, as it does to the files after it.
		if b.alt.set && it.Alt != b.alt.value {
			p.Alt = &b.alt.value
		}
		if p.Folder == nil && p.Alt == nil {
			continue
		}
		updated, err := b.s.media.Patch(b.ctx, it.ID, p)
		if err != nil {
			return err
		}
		b.res.Data[i] = updated
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
		return errorf(fault.TooLarge, "request larger than %d bytes: nothing was stored", limit)
	}
	return badRequest("the upload was cut off or malformed: nothing was stored")
}
