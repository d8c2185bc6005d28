package postgres

import (
	"context"
	"errors"
	"hash/fnv"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"counsel/ports"
)

// Listen follows the notifications other instances (and this one) send
// on commit, calling onChange with each payload (changedProfiles,
// changedPrincipals), until ctx ends. It keeps a connection of its own;
// when that connection drops it reconnects with a growing pause, and
// after reconnecting calls onChange for both kinds, since notifications
// sent meanwhile are lost. While it is down, the caches' periodic
// re-check (2 s) bounds how stale they get. Profiles cached by this DB
// are invalidated here, before onChange.
func (db *DB) Listen(ctx context.Context, log *slog.Logger, onChange func(payload string)) {
	pause := 100 * time.Millisecond
	first := true
	for ctx.Err() == nil {
		err := db.listenOnce(ctx, first, onChange)
		first = false
		if ctx.Err() != nil {
			return
		}
		log.Warn("the change listener lost its connection; reconnecting", "err", err, "pause", pause)
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, 5*time.Second)
	}
}

// listenOnce listens on one connection until it fails.
func (db *DB) listenOnce(ctx context.Context, first bool, onChange func(string)) error {
	connect := pgx.ConnectConfig
	if db.connectListener != nil {
		connect = db.connectListener
	}
	conn, err := connect(ctx, db.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
		return err
	}
	if !first { // what was missed while disconnected
		db.changed(changedProfiles, onChange)
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		db.changed(n.Payload, onChange)
	}
}

func (db *DB) changed(payload string, onChange func(string)) {
	if payload == changedProfiles {
		db.profiles.Stale()
	}
	if onChange != nil {
		onChange(payload)
	}
}

// lockKey maps a job name to an advisory lock key.
func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("counsel job " + name))
	return int64(h.Sum64())
}

// TryLock takes the session advisory lock of a background job, so that
// of several instances one runs it at a time. ok is false when another
// holds it; otherwise unlock releases it. Advisory locks are the whole
// database's, so the key is the job's in this schema: Counsel databases
// in other schemas of one database (each test has one) do not wait for
// each other's jobs.
func (db *DB) TryLock(ctx context.Context, name string) (ok bool, unlock func(), err error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return false, nil, err
	}
	var schema string
	if err := conn.QueryRow(ctx, `SELECT coalesce(current_schema(), '')`).Scan(&schema); err != nil {
		conn.Release()
		return false, nil, err
	}
	key := lockKey(name + " in " + schema)
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&ok); err != nil || !ok {
		conn.Release()
		return false, nil, err
	}
	return true, func() {
		if _, err := conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, key); err != nil {
			conn.Conn().Close(context.Background()) // closing the session releases it
		}
		conn.Release()
	}, nil
}

// RateLimiter implements ports.RateLimiter with a token bucket per key in
// the auth_rate table, so every instance draws on one bucket.
type RateLimiter struct{ db *DB }

var _ ports.RateLimiter = (*RateLimiter)(nil)

// NewRateLimiter returns the shared rate limiter of db.
func NewRateLimiter(db *DB) *RateLimiter { return &RateLimiter{db: db} }

// Allow implements ports.RateLimiter.
func (l *RateLimiter) Allow(ctx context.Context, key string, perMin int, now time.Time) (bool, time.Duration, error) {
	if perMin <= 0 {
		return true, 0, nil
	}
	capacity, rate := float64(perMin), float64(perMin)/60
	ok, wait := false, time.Duration(0)
	err := l.db.tx(ctx, func(x q) error {
		if _, err := x.exec(ctx, `INSERT INTO auth_rate (key, tokens, last) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING`, key, capacity, now); err != nil {
			return err
		}
		var tokens float64
		var last time.Time
		if err := x.row(ctx, `SELECT tokens, last FROM auth_rate WHERE key = ? FOR UPDATE`, key).Scan(&tokens, &last); err != nil {
			return err
		}
		if now.After(last) {
			tokens = min(capacity, tokens+now.Sub(last).Seconds()*rate)
			last = now
		}
		if tokens >= 1 {
			tokens--
			ok = true
		} else {
			wait = time.Duration((1 - tokens) / rate * float64(time.Second))
		}
		_, err := x.exec(ctx, `UPDATE auth_rate SET tokens = ?, last = ? WHERE key = ?`, tokens, last, key)
		return err
	})
	if err != nil {
		return true, 0, errors.Join(errors.New("shared rate limit"), err)
	}
	return ok, wait, nil
}

// PruneRates deletes buckets untouched for a minute (full again).
func (l *RateLimiter) PruneRates(ctx context.Context, now time.Time) error {
	return l.db.tx(ctx, func(x q) error {
		_, err := x.exec(ctx, `DELETE FROM auth_rate WHERE last < ?`, now.Add(-time.Minute))
		return err
	})
}
