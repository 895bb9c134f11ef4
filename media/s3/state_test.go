package s3_test

import (
	"testing"

	"github.com/folio-cms/folio/media"
	"github.com/folio-cms/folio/media/s3"
	"github.com/folio-cms/folio/media/s3/s3test"
	"github.com/folio-cms/folio/media/storagetest"
)

func newState(tb testing.TB) *s3.State {
	tb.Helper()
	cfg, _ := s3test.Start(tb)
	_, state := s3test.Open(tb, cfg)
	return state
}

// The conditional writes the shared library relies on, against a real S3
// server.
func TestState_Conformance(t *testing.T) {
	storagetest.RunState(t, func(t *testing.T) media.StateStore { return newState(t) })
}

func TestState_PrefixMustBePrivate(t *testing.T) {
	cfg, _ := s3test.Start(t)
	st, err := s3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{cfg.Prefix, cfg.Prefix + "/state", "", "a/../b"} {
		if _, err := st.State(p); err == nil {
			t.Errorf("state prefix %q accepted", p)
		}
	}
}
