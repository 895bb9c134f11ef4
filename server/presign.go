package server

import (
	"net/http"

	"github.com/julienschmidt/httprouter"
)

// presign and confirm serve the direct-to-storage upload flow; they need a
// cloud storage adapter.
func (s *Server) presign(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	return badRequest("presigned uploads need cloud storage (--storage s3); on local storage use POST /api/v1/media")
}

func (s *Server) confirm(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	return badRequest("presigned uploads need cloud storage (--storage s3); on local storage use POST /api/v1/media")
}
