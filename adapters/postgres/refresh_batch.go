package postgres

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"counsel/adapters/sqlrow"
	"counsel/domain"
	"counsel/domain/account"
)

// A refresh alone, the common case, is one statement: the rotation written
// on condition that the state is one account.Rotation.Rotates approves,
// returning the state it read, which fn then decides on as usual. When
// the condition fails (a reused, revoked or foreign token, or a race), or
// fn decides otherwise (and the write is undone), the refresh goes the
// way below, which reads under lock first. The statement locks the
// token's row, not the session's: a session revoked while the statement
// runs may still have its token rotated, as if the refresh had come just
// before the revocation (the new tokens are refused at first use, since
// the session is revoked).
//
// Group commit of token refreshes. A refresh costs little but its commit,
// which waits for the WAL to reach the disk, so concurrent refreshes share
// one transaction: the first to arrive leads and reads (SELECT … FOR
// UPDATE) the rows of every refresh waiting; each decides in arrival
// order; their writes go out in one statement pipelined with the reading
// of the refreshes that arrived meanwhile, and so on until none is
// waiting, then COMMIT goes with the last writes. Two refreshes need three
// round trips and one commit, where they needed eight and two. Every
// caller is answered after the commit, so a 2xx still means on disk.
//
// Each group is read after the previous group's writes, in the same
// transaction, so a refresh sees what every refresh before it did, as
// separate transactions in arrival order would: of two refreshes of one
// token one wins and the reuse is detected. Within a group each session
// appears once; a second refresh of a session moves to the next group.
// Other instances are kept out by the row locks. A refresh whose decision
// fails writes nothing and fails alone; a statement that fails ends the
// transaction, and each refresh in it answers that error (a deadlock with
// another instance is retried first, deciding again).

// maxRefreshBatch bounds the refreshes one transaction takes in.
const maxRefreshBatch = 128

// maxRefreshGroups bounds the groups of new arrivals one transaction
// reads, so that a steady stream of refreshes still commits.
const maxRefreshGroups = 4

// refreshBatches is how many transactions may be in flight at once: while
// one waits for its commit, the next gathers the refreshes arriving.
const refreshBatches = 2

// refreshAlone is how many refreshes may be written as one statement
// each at once; with more arriving, group commit costs less.
const refreshAlone = 2

type refreshQueue struct {
	mu      sync.Mutex
	pending []*sqlrow.RefreshReq
	alone   int // conditional writes in flight
	// wrote and undone count conditional writes, and those undone
	// because fn decided otherwise (tests).
	wrote, undone atomic.Int64
	running       int // transactions in flight
	open          int // of those, the ones that will still take pending refreshes
}

// take takes up to n waiting refreshes into an open transaction; with
// none waiting the transaction closes (it commits without taking more).
func (q *refreshQueue) take(n int) []*sqlrow.RefreshReq {
	q.mu.Lock()
	defer q.mu.Unlock()
	batch := sqlrow.TakeFirst(&q.pending, n)
	if batch == nil {
		q.open--
	}
	return batch
}

// close closes a transaction that is full. It reports whether the
// refreshes left waiting need a new transaction now.
func (q *refreshQueue) close() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.open--
	if len(q.pending) > 0 && q.open == 0 && q.running < refreshBatches {
		q.running++
		q.open++
		return true
	}
	return false
}

// next is called when a transaction has ended: it opens another for the
// refreshes waiting, unless an open transaction will take them.
func (q *refreshQueue) next() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pending) == 0 || q.open > 0 {
		q.running--
		return false
	}
	q.open++
	return true
}

// Refresh implements ports.AccountStore. The token's row is locked (and
// the session's, in a group), so of two instances presenting one token at
// once, one rotates it and the other sees it used (reuse: the session is
// revoked).
// refresher is db's batched token refresh.
type refresher struct{ db *DB }

func (s refresher) Refresh(ctx context.Context, rot account.Rotation, fn func(*account.RefreshState) error) error {
	if rot.NewTokenHash != nil {
		if done, err := s.db.rotateAlone(ctx, rot, fn); done {
			return err
		}
	}
	q := &s.db.refreshes
	r := sqlrow.NewRefreshReq(ctx, rot.TokenHash, fn)
	q.mu.Lock()
	q.pending = append(q.pending, r)
	lead := q.open == 0 && q.running < refreshBatches
	if lead {
		q.running++
		q.open++
	}
	q.mu.Unlock()
	if lead {
		// One transaction (with r in it), then hand the queue on so that
		// this caller is not kept serving others.
		s.db.refreshTx()
		go s.db.drainRefreshes(false)
	}
	<-r.Done
	return r.Err
}

// rotateAlone writes rot alone (rotate) if the queue is idle enough. It
// reports whether the refresh is done.
func (db *DB) rotateAlone(ctx context.Context, rot account.Rotation, fn func(*account.RefreshState) error) (bool, error) {
	q := &db.refreshes
	if !q.goAlone() {
		return false, nil
	}
	defer func() {
		q.mu.Lock()
		q.alone--
		q.mu.Unlock()
	}()
	return db.rotate(ctx, rot, fn)
}

// goAlone reports whether a refresh may be written alone now: nothing is
// queued or committing as a group and few are written alone.
func (q *refreshQueue) goAlone() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pending) > 0 || q.running > 0 || q.alone >= refreshAlone {
		return false
	}
	q.alone++
	return true
}

// rotateSQL writes rotation ($1 the token, $2 the time, $3 and $4 the
// access token's session and user, $5 the new token) when the state is
// one that account.Rotation.Rotates approves, and returns the state read
// and whether it wrote. A refresh of the token committed meanwhile makes
// the UPDATE find used_at set (it re-reads the row it waited for), so of
// two at once only one writes.
const rotateSQL = `WITH st AS (
		SELECT ` + sqlrow.SessionCols + `, t.used_at, u.active AND u.deleted_at IS NULL AS user_ok
		FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id JOIN users u ON u.id = s.user_id
		WHERE t.hash = $1),
	used AS (UPDATE refresh_tokens t SET used_at = $2 FROM st
		WHERE t.hash = $1 AND t.used_at IS NULL AND st.used_at IS NULL AND st.user_ok AND st.revoked_at IS NULL
		AND st.expires_at > $2 AND st.id = $3 AND st.user_id = $4
		RETURNING t.session_id),
	fresh AS (INSERT INTO refresh_tokens (hash, session_id, created_at) SELECT $5, session_id, $2 FROM used)
	SELECT st.*, EXISTS (SELECT FROM used) FROM st`

// unrotateSQL undoes rotateSQL's write ($1 the token, $2 the new one, $3
// the time it wrote), and nothing else: the new token is deleted only
// while unused (nobody has it yet), and the old one made current again
// only if it is still marked used by this write.
const unrotateSQL = `WITH fresh AS (DELETE FROM refresh_tokens WHERE hash = $2 AND used_at IS NULL RETURNING 1)
	UPDATE refresh_tokens SET used_at = NULL WHERE hash = $1 AND used_at = $3::timestamptz(3) AND EXISTS (SELECT FROM fresh)`

// rotateTimeout bounds a conditional write and its undo, which no caller's
// cancellation stops.
const rotateTimeout = 10 * time.Second

// rotate tries rot as one conditional write. It reports whether the
// refresh is done (answered by err); if not, it must be decided under
// lock.
func (db *DB) rotate(ctx context.Context, rot account.Rotation, fn func(*account.RefreshState) error) (bool, error) {
	if err := ctx.Err(); err != nil {
		return true, err
	}
	// Once sent, the write runs to its end: a caller leaving must not
	// leave it undecided.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rotateTimeout)
	defer cancel()
	var st account.RefreshState
	var used *time.Time
	var wrote bool
	ss, err := sqlrow.ScanSession(dialect{}, db.pool.QueryRow(ctx, rotateSQL, rot.TokenHash, rot.Now, rot.SessionID, rot.UserID, rot.NewTokenHash),
		&used, &st.UserActive, &wrote)
	switch {
	case domain.ErrorCode(err) == domain.ENOTFOUND:
		return true, err // no such token, and none can appear
	case retryable(err):
		return false, nil
	case err != nil:
		return true, formatError(err)
	case !wrote:
		return false, nil
	}
	db.refreshes.wrote.Add(1)
	st.Session, st.Used = ss, used != nil
	err = fn(&st)
	if err == nil && !st.Revoke && bytes.Equal(st.NewTokenHash, rot.NewTokenHash) {
		return true, nil
	}
	db.refreshes.undone.Add(1)
	// Until this commits, a refresh of the same token sees it used and
	// revokes the session: fn should be account.Refresh of rot, which
	// decides as the condition did, so that only a failing fn gets here.
	if _, uerr := db.pool.Exec(ctx, unrotateSQL, rot.TokenHash, rot.NewTokenHash, rot.Now); uerr != nil {
		return true, formatError(uerr)
	}
	// A decision that failed has its answer; one that differs is made
	// again under lock.
	return err != nil, err
}

// drainRefreshes runs transactions while refreshes wait; first says it
// holds an open transaction already.
func (db *DB) drainRefreshes(first bool) {
	if first {
		db.refreshTx()
	}
	for db.refreshes.next() {
		db.refreshTx()
	}
}

// refreshRun is the state of one transaction of refreshes.
type refreshRun struct {
	reqs   []*sqlrow.RefreshReq // every refresh taken in
	open   bool                 // still taking refreshes in
	groups int                  // groups of new arrivals taken
}

// refreshTx runs one open transaction of refreshes and answers each.
func (db *DB) refreshTx() {
	tx := &refreshRun{open: true, groups: 1}
	if tx.reqs = db.refreshes.take(maxRefreshBatch); tx.reqs == nil {
		return // closed
	}
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = db.refreshTxOnce(tx); !retryable(err) {
			break
		}
	}
	if tx.open {
		db.closeRefreshTx(tx)
	}
	for _, r := range tx.reqs {
		if err != nil && r.Err == nil {
			r.Err = formatError(err)
		}
		close(r.Done)
	}
}

// retryable reports a deadlock or serialization failure, which row locks
// taken in different orders by several instances can cause.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

// refreshLockSQL reads and locks the rows of the tokens $1 (sorted, so
// that transactions lock in one order) and of their sessions. The lateral
// subquery keeps the plan an index lookup per token however the table's
// statistics stand (a join of the array may be planned as a scan).
const refreshLockSQL = `SELECT r.* FROM unnest($1::bytea[]) AS k (hash) CROSS JOIN LATERAL (
	SELECT ` + sqlrow.SessionCols + `, t.used_at, u.active AND u.deleted_at IS NULL, t.hash, t.ctid
	FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id JOIN users u ON u.id = s.user_id
	WHERE t.hash = k.hash FOR UPDATE OF t, s) AS r`

// refreshWriteSQL marks the rotated tokens used (their rows $2, locked
// since refreshLockSQL read them, so in place) and inserts the new tokens
// ($3, of the sessions $4).
const refreshWriteSQL = `WITH used AS (UPDATE refresh_tokens SET used_at = $1 WHERE ctid = ANY($2::tid[]))
	INSERT INTO refresh_tokens (hash, session_id, created_at) SELECT h, sid, $1 FROM unnest($3::bytea[], $4::text[]) AS n (h, sid)`

// refreshRevokeSQL revokes the sessions $2 of reused tokens. It is rare,
// and planned for its arguments: a plan made once could read every live
// session to find these.
const refreshRevokeSQL = `UPDATE sessions SET revoked_at = $1 WHERE id = ANY($2) AND revoked_at IS NULL`

// refreshWrites are one group's decisions, for refreshWriteSQL.
type refreshWrites struct {
	used          []pgtype.TID
	revoke        []string
	fresh         [][]byte
	freshSessions []string
}

// queue adds the group's writes to b.
func (w *refreshWrites) queue(b *pgx.Batch, now time.Time) {
	if len(w.used) > 0 {
		b.Queue(refreshWriteSQL, now, w.used, w.fresh, w.freshSessions)
	}
	if len(w.revoke) > 0 {
		b.Queue(`SELECT set_config('plan_cache_mode', 'force_custom_plan', true)`)
		b.Queue(refreshRevokeSQL, now, w.revoke)
		b.Queue(refreshPlansSQL)
	}
}

// refreshPlansSQL sets, for the rest of a refresh transaction, how its two
// statements are planned: once per connection (planning each call cost
// more than running it), and without sequential scans, so that the plan
// looks rows up by key and by position however small the tables were when
// it was made. A plan made with scans while refresh_tokens was nearly
// empty (cheaper then) would go on scanning the table as it grew, on every
// group. Nothing else runs in the transaction.
const refreshPlansSQL = `SELECT set_config('plan_cache_mode', 'force_generic_plan', true), set_config('enable_seqscan', 'off', true)`

// closeRefreshTx stops tx taking refreshes in.
func (db *DB) closeRefreshTx(tx *refreshRun) {
	tx.open = false
	if db.refreshes.close() {
		go db.drainRefreshes(true)
	}
}

// refreshTxOnce is one attempt at tx: it runs the refreshes taken in so
// far and takes in those arriving, leaving each one's outcome in its
// err (nil when it committed), and returns the error that failed the
// whole transaction, if any.
func (db *DB) refreshTxOnce(tx *refreshRun) error {
	// Not a caller's context: one caller giving up must not undo the
	// others' refreshes. A caller gone before its turn is skipped.
	ctx := context.Background()
	for _, r := range tx.reqs {
		r.Err = nil
	}
	group := tx.reqs
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// Release destroys a connection left in a transaction by an error.
	defer conn.Release()
	fail := func(err error) error {
		rollback(conn)
		return err
	}
	now := db.Now()
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	b.Queue(refreshPlansSQL)
	revoked := false
	for {
		var live []*sqlrow.RefreshReq
		for _, r := range group {
			if err := r.Ctx.Err(); err != nil {
				r.Err = err
			} else {
				live = append(live, r)
			}
		}
		w, deferred, err := db.refreshGroup(ctx, conn, b, live)
		if err != nil {
			return fail(err)
		}
		revoked = revoked || len(w.revoke) > 0
		b = &pgx.Batch{}
		w.queue(b, now)
		group = deferred
		switch {
		case !tx.open:
		case tx.groups < maxRefreshGroups && len(tx.reqs) < maxRefreshBatch:
			more := db.refreshes.take(maxRefreshBatch - len(tx.reqs))
			tx.reqs, group = append(tx.reqs, more...), append(group, more...)
			tx.groups++
			tx.open = more != nil
		default:
			db.closeRefreshTx(tx)
		}
		if len(group) == 0 {
			break
		}
	}
	if revoked {
		b.Queue(`SELECT pg_notify('`+channel+`', $1)`, changedPrincipals)
	}
	b.Queue(`COMMIT`)
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return fail(err)
	}
	if revoked { // before the requests are answered
		db.announce()
	}
	return nil
}

// refreshGroup sends b (the transaction's statements so far) with the
// read of group's rows, lets each refresh of group decide, and returns
// their writes and the refreshes that must wait for the next group.
func (db *DB) refreshGroup(ctx context.Context, conn *pgxpool.Conn, b *pgx.Batch, group []*sqlrow.RefreshReq) (w refreshWrites, deferred []*sqlrow.RefreshReq, err error) {
	hashes := make([][]byte, 0, len(group))
	for _, r := range group {
		hashes = append(hashes, r.Hash)
	}
	slices.SortFunc(hashes, bytes.Compare)
	hashes = slices.CompactFunc(hashes, bytes.Equal)
	type row struct {
		ss     account.Session
		tid    pgtype.TID
		used   bool
		userOK bool
	}
	rows := make(map[string]*row, len(hashes))
	if len(hashes) > 0 {
		b.Queue(refreshLockSQL, hashes)
	}
	br := conn.SendBatch(ctx, b)
	for range b.Len() - min(len(hashes), 1) {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return w, nil, err
		}
	}
	if len(hashes) > 0 {
		rs, err := br.Query()
		if err == nil {
			for rs.Next() {
				var rw row
				var used *time.Time
				var hash []byte
				if rw.ss, err = sqlrow.ScanSession(dialect{}, rs, &used, &rw.userOK, &hash, &rw.tid); err != nil {
					break
				}
				rw.used = used != nil
				rows[string(hash)] = &rw
			}
			rs.Close()
			if err == nil {
				err = rs.Err()
			}
		}
		if err != nil {
			br.Close()
			return w, nil, err
		}
	}
	if err := br.Close(); err != nil {
		return w, nil, err
	}
	sessions := make(map[string]bool, len(group))
	for _, r := range group {
		rw := rows[string(r.Hash)]
		if rw == nil {
			r.Err = sqlrow.NotFound("session")
			continue
		}
		if sessions[rw.ss.ID] {
			deferred = append(deferred, r)
			continue
		}
		sessions[rw.ss.ID] = true
		st := account.RefreshState{Session: rw.ss, Used: rw.used, UserActive: rw.userOK}
		if err := r.Fn(&st); err != nil {
			r.Err = err
			continue
		}
		if st.Revoke {
			w.revoke = append(w.revoke, rw.ss.ID)
		}
		if st.NewTokenHash != nil {
			w.used = append(w.used, rw.tid)
			w.fresh, w.freshSessions = append(w.fresh, st.NewTokenHash), append(w.freshSessions, rw.ss.ID)
		}
	}
	return w, deferred, nil
}

// rollback ends a failed transaction on conn; if it cannot, Release
// destroys the connection, which ends it too.
func rollback(conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn.Exec(ctx, `ROLLBACK`)
}
