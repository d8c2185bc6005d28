package sqlite

import (
	"context"
	"database/sql"
	"sync"

	"counsel/adapters/sqlrow"
	"counsel/domain/account"
)

// Group commit of token refreshes. A refresh is a small write whose cost
// is the commit's fsync, so concurrent refreshes share one transaction:
// the first to arrive leads, takes every refresh waiting (its own among
// them) and runs them one after another, each within a savepoint, then
// commits once; a refresh that fails rolls back to its savepoint alone.
// Every caller is answered only after the commit, so a 2xx still means on
// disk. Refreshes run in arrival order in one writer, exactly as separate
// transactions would: of two refreshes of one token the second sees the
// first's use, so one wins and the reuse is detected as before.

// maxRefreshBatch bounds one transaction's refreshes.
const maxRefreshBatch = 128

type refreshQueue struct {
	mu      sync.Mutex
	pending []*sqlrow.RefreshReq
	busy    bool // a leader or drainer is committing
}

// take removes up to maxRefreshBatch waiting refreshes; with none waiting
// it clears busy.
func (q *refreshQueue) take() []*sqlrow.RefreshReq {
	q.mu.Lock()
	defer q.mu.Unlock()
	batch := sqlrow.TakeFirst(&q.pending, maxRefreshBatch)
	if batch == nil {
		q.busy = false
	}
	return batch
}

// Refresh implements ports.AccountStore. It is the hottest write path, so
// its statements are prepared once, the user's standing is read in the
// same query, and concurrent refreshes are committed together.
// refresher is db's batched token refresh.
type refresher struct{ db *DB }

func (s refresher) Refresh(ctx context.Context, rot account.Rotation, fn func(*account.RefreshState) error) error {
	r := sqlrow.NewRefreshReq(ctx, rot.TokenHash, fn)
	q := &s.db.refreshes
	q.mu.Lock()
	q.pending = append(q.pending, r)
	lead := !q.busy
	q.busy = true
	q.mu.Unlock()
	if lead {
		// One batch (with r in it), then hand the queue on so that this
		// caller is not kept serving others.
		if batch := q.take(); batch != nil {
			s.db.commitRefreshes(batch)
			go s.db.drainRefreshes()
		}
	}
	<-r.Done
	return r.Err
}

func (db *DB) drainRefreshes() {
	for {
		batch := db.refreshes.take()
		if batch == nil {
			return
		}
		db.commitRefreshes(batch)
	}
}

// commitRefreshes runs batch in one transaction and answers each.
func (db *DB) commitRefreshes(batch []*sqlrow.RefreshReq) {
	// Not a caller's context: one caller giving up must not undo the
	// others' refreshes. A caller gone before its turn is skipped.
	ctx := context.Background()
	var ok []*sqlrow.RefreshReq
	revoked := false
	defer func() {
		for _, r := range batch {
			close(r.Done)
		}
	}()
	fail := func(err error) {
		for _, r := range batch {
			if r.Err == nil {
				r.Err = formatError(err)
			}
		}
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		fail(err)
		return
	}
	defer tx.Rollback()
	savepoints := len(batch) > 1
	for _, r := range batch {
		if err := r.Ctx.Err(); err != nil {
			r.Err = err
			continue
		}
		if savepoints {
			if _, err := tx.ExecContext(ctx, `SAVEPOINT refresh`); err != nil {
				fail(err)
				return
			}
		}
		revoke, err := db.refreshOne(ctx, tx, r.Hash, r.Fn)
		if err != nil {
			r.Err = formatError(err)
			if !savepoints {
				return
			}
			if _, err := tx.ExecContext(ctx, `ROLLBACK TO refresh`); err != nil {
				fail(err)
				return
			}
		} else {
			ok = append(ok, r)
			revoked = revoked || revoke
		}
		if savepoints {
			if _, err := tx.ExecContext(ctx, `RELEASE refresh`); err != nil {
				fail(err)
				return
			}
		}
	}
	if err := tx.Commit(); err != nil {
		for _, r := range ok {
			r.Err = formatError(err)
		}
		return
	}
	if revoked { // before the requests are answered
		db.announce()
	}
}

// refreshOne is one refresh within tx: load the token's session, let fn
// decide, write what it decided. It reports whether it revoked the
// session.
func (db *DB) refreshOne(ctx context.Context, tx *sql.Tx, tokenHash []byte, fn func(*account.RefreshState) error) (bool, error) {
	var used sql.NullInt64
	var userOK bool
	ss, err := sqlrow.ScanSession(dialect{}, db.txQueryRow(ctx, tx, refreshSelectSQL, tokenHash), &used, &userOK)
	if err != nil {
		return false, err
	}
	st := account.RefreshState{Session: ss, Used: used.Valid, UserActive: userOK}
	if err := fn(&st); err != nil {
		return false, err
	}
	now := ms(db.Now())
	if st.Revoke {
		if _, err := db.txExec(ctx, tx, revokeSessionSQL, now, ss.ID); err != nil {
			return false, err
		}
	}
	if st.NewTokenHash != nil {
		if _, err := db.txExec(ctx, tx, useRefreshSQL, now, tokenHash); err != nil {
			return false, err
		}
		if _, err := db.txExec(ctx, tx, insertRefreshSQL, st.NewTokenHash, ss.ID, now); err != nil {
			return false, err
		}
	}
	return st.Revoke, nil
}
