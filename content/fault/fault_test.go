package fault_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/folio-cms/folio/content/fault"
)

var errGone = &fault.Error{Code: fault.NotFound, Message: "item not found"}

func TestCodeOf(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want fault.Code
	}{
		{nil, fault.Internal},
		{errors.New("disk on fire"), fault.Internal},
		{errGone, fault.NotFound},
		{fmt.Errorf("patch: %w", errGone), fault.NotFound},
		{fault.Wrap(fault.Unavailable, errGone, "storage down"), fault.Unavailable},
		{fault.New(fault.Conflict, "folder %q not empty", "/a"), fault.Conflict},
	} {
		if got := fault.CodeOf(tc.err); got != tc.want {
			t.Errorf("CodeOf(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestError_Wrap(t *testing.T) {
	cause := errors.New("s3: 503")
	err := fmt.Errorf("create: %w", fault.Wrap(fault.Unavailable, cause, "media storage is unavailable"))
	if !errors.Is(err, cause) {
		t.Error("the cause is not in the chain")
	}
	var e *fault.Error
	if !errors.As(err, &e) || e.Error() != "media storage is unavailable" {
		t.Errorf("message %q: the cause must not be in it", e.Error())
	}
	if errors.Is(err, errGone) {
		t.Error("two sentinels of one code match each other")
	}
	if fault.Busy.String() != "busy" || fault.Code(200).String() != "code(200)" {
		t.Error("String")
	}
}
