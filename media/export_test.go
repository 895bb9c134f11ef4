package media

import "context"

// Housekeep runs a shared library's periodic reconcile and claim sweep now.
func (l *Library) Housekeep(ctx context.Context) { l.housekeep(ctx) }

// ClaimBody is the content of a claim, for tests that leave one behind.
var ClaimBody = claimBody
