package server

// TableRoute is a row of the route table as the external tests see it.
type TableRoute struct {
	Method, Path string
	// Writes: a read-only server refuses the route.
	Writes bool
}

// Table lists s's route table, so that tests can cover every route,
// including the ones added after the test was written.
func (s *Server) Table() []TableRoute {
	var out []TableRoute
	for _, rte := range s.table() {
		out = append(out, TableRoute{Method: rte.method, Path: rte.path, Writes: rte.writes()})
	}
	return out
}
