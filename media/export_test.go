package media

import (
	"context"

	"github.com/folio-cms/folio/media/replica"
)

// Housekeep runs a shared library's periodic reconcile and claim sweep now.
func (l *Library) Housekeep(ctx context.Context) { l.sync.housekeep(ctx) }

// ClaimBody is the content of a claim, for tests that leave one behind.
var ClaimBody = replica.ClaimBody
