package sqlrow

import (
	"context"

	"counsel/domain/account"
)

// RefreshReq is one caller's token refresh waiting in an engine's group
// commit (each engine batches refreshes its own way): the engine runs Fn
// on the state of the token Hash names, sets Err and closes Done once
// the transaction has committed or failed.
type RefreshReq struct {
	Ctx  context.Context
	Hash []byte
	Fn   func(*account.RefreshState) error
	Err  error
	Done chan struct{}
}

// NewRefreshReq returns the waiting refresh of the token hash.
func NewRefreshReq(ctx context.Context, hash []byte, fn func(*account.RefreshState) error) *RefreshReq {
	return &RefreshReq{Ctx: ctx, Hash: hash, Fn: fn, Done: make(chan struct{})}
}

// TakeFirst removes up to n items from the front of *q and returns them,
// nil when *q is empty; an emptied queue lets go of its array.
func TakeFirst[T any](q *[]T, n int) []T {
	n = min(len(*q), n)
	if n == 0 {
		return nil
	}
	batch := (*q)[:n:n]
	*q = (*q)[n:]
	if len(*q) == 0 {
		*q = nil
	}
	return batch
}
