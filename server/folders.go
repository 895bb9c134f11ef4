package server

import (
	"net/http"
	"strings"

	"github.com/folio-cms/folio/media"
	"github.com/julienschmidt/httprouter"
)

type folderBody struct {
	Path string `json:"path"`
}

func (s *mediaHandlers) listFolders(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	return serveJSON(w, r, map[string][]string{"folders": s.media.Folders()}, cachePrivate, hdrKeyMedia)
}

// createFolder answers 201 {path, folders}; an existing folder is 409.
func (s *mediaHandlers) createFolder(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	var b folderBody
	if err := decodeJSON(w, r, &b); err != nil {
		return err
	}
	// media.CleanFolder reads "" as the root, which exists: without this
	// check a missing path would be a confusing 409.
	if err := requirePath(b.Path); err != nil {
		return err
	}
	path, err := media.CleanFolder(b.Path)
	if err != nil {
		return err
	}
	if err := s.media.CreateFolder(path); err != nil {
		return err
	}
	s.mediaChanged()
	return writeJSON(w, http.StatusCreated, map[string]any{"path": path, "folders": s.media.Folders()})
}

// deleteFolder takes the path as a JSON body {path}, or as ?path= for
// clients that cannot send a body with DELETE. It answers {success, folders}.
func (s *mediaHandlers) deleteFolder(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	var b folderBody
	if q := query(r); q.Has("path") {
		b.Path = q.Get("path")
	} else if err := decodeJSON(w, r, &b); err != nil {
		return err
	}
	if err := requirePath(b.Path); err != nil {
		return err
	}
	// The folder must be empty: count the items other boxes put in it
	// too. (This narrows the race with a concurrent upload on another box
	// to the requests in flight; it does not close it.)
	s.catchUp(r.Context())
	if err := s.media.DeleteFolder(b.Path); err != nil {
		return err
	}
	s.mediaChanged()
	return writeJSON(w, http.StatusOK, map[string]any{"success": true, "folders": s.media.Folders()})
}

// requirePath refuses a missing or blank folder path.
func requirePath(p string) error {
	if strings.TrimSpace(p) == "" {
		return badRequest("path is required")
	}
	return nil
}
