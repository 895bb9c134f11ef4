package server

import "context"

// TableRoute is a row of the route table as the external tests see it.
type TableRoute struct {
	Method, Path string
	// Writes: a read-only server refuses the route.
	Writes bool
	// Scopes are the scopes the route needs (none: any key, or none);
	// KeyRequired: a request without a valid key is 401.
	Scopes      []string
	KeyRequired bool
}

// Table lists s's route table, so that tests can cover every route,
// including the ones added after the test was written.
func (s *Server) Table() []TableRoute {
	var out []TableRoute
	for _, rte := range s.table() {
		out = append(out, TableRoute{Method: rte.method, Path: rte.path, Writes: rte.writes(),
			Scopes: rte.access.scopes, KeyRequired: rte.access.required})
	}
	return out
}

// SetTransformHook makes every image variant transform call h once it has
// its slot (before rendering), so a test can hold a slot.
func (s *Server) SetTransformHook(h func()) { s.mediaAPI.transforms.hook = h }

// TransformJoined counts the variant requests that reached the
// single-flight (those that found no stored variant).
func (s *Server) TransformJoined() int64 { return s.mediaAPI.transforms.joined.Load() }

// SubResources are the path suffixes (/history, /diff, /referrers) that the catch-all
// page and item routes serve as sub-resources of a document: the OpenAPI
// document names them as operations of their own.
var SubResources = []string{subHistory, subDiff, subReferrers}

// HoldTransformSlot takes one slot of the image queue until release, as a
// long decode would.
func (s *Server) HoldTransformSlot(ctx context.Context) (release func(), err error) {
	return s.mediaAPI.transforms.acquire(ctx)
}

// BuildTypedOpenAPI builds the typed OpenAPI document of the published
// snapshot afresh (the cache apart) and returns its size in bytes.
func (s *Server) BuildTypedOpenAPI(full bool) int {
	return len(s.content.buildTyped(s.engine.Published(), full).body)
}

// SetMaxUploadFiles sets the bound on the files of one upload request
// (the contract's is 1000), so that a test proves the bound with fewer.
func SetMaxUploadFiles(c *Config, n int) { c.maxUploadFiles = n }
