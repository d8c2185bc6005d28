package sqlrow

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"counsel/domain/contract"
	"counsel/ports"
)

// KeyDateStore implements ports.KeyDateStore on any Engine.
type KeyDateStore struct{ e Engine }

var _ ports.KeyDateStore = KeyDateStore{}

// NewKeyDateStore returns the key-date store of e.
func NewKeyDateStore(e Engine) KeyDateStore { return KeyDateStore{e: e} }

// liveCond selects the contracts (aliased c) live by status and whether
// they are digital (contract.LiveStatuses), and its arguments. The unary
// plus keeps the status indexes out of the plan on both engines: most
// contracts are live, so the notice date's range is what selects.
func liveCond() (string, []any) {
	in := func(ss []contract.Status) string {
		var b []string
		for _, s := range ss {
			b = append(b, strconv.Itoa(int(s)))
		}
		return strings.Join(b, ", ")
	}
	return `((c.is_digital = ? AND +c.status IN (` + in(contract.LiveStatuses(true)) + `))
		OR (c.is_digital = ? AND +c.status IN (` + in(contract.LiveStatuses(false)) + `)))`, []any{true, false}
}

// listedCase is the threshold a contract (aliased c) would list on the
// day from with thresholds (ascending): the first whose day has come,
// i.e. whose notice date lies before the day after from plus it.
func listedCase(tc Times, from time.Time, thresholds []int) (string, []any) {
	var b strings.Builder
	var args []any
	b.WriteString("CASE")
	for _, t := range thresholds[:len(thresholds)-1] {
		b.WriteString(" WHEN c.notice_date < ? THEN " + strconv.Itoa(t))
		args = append(args, tc.Arg(from.AddDate(0, 0, t+1)))
	}
	b.WriteString(" ELSE " + strconv.Itoa(thresholds[len(thresholds)-1]) + " END")
	return b.String(), args
}

// DueKeyDatesSQL is the one query of DueKeyDates' candidates, with its
// arguments (the plan tests of both engines read it): a range of the index
// contracts_notice (notice_date, id), the owner by primary key, and the
// listed threshold's row by the announcements' primary key.
func DueKeyDatesSQL(tc Times, from, to time.Time, thresholds []int) (string, []any) {
	live, liveArgs := liveCond()
	listed, listedArgs := listedCase(tc, from, thresholds)
	args := append([]any{tc.Arg(from), tc.Arg(to)}, liveArgs...)
	args = append(append(args, true), listedArgs...)
	return `SELECT c.id, c.contract_name, c.status, c.is_digital, c.end_date, c.notice_date, c.auto_renew, c.owner_id,
			u.email, trim(u.first_name || ' ' || u.last_name)
			FROM contracts c JOIN users u ON u.id = c.owner_id
			WHERE c.notice_date >= ? AND c.notice_date < ? AND ` + live + `
			AND u.active = ? AND u.deleted_at IS NULL
			AND NOT EXISTS (SELECT 1 FROM key_date_announcements a WHERE a.contract_id = c.id AND a.threshold_days = ` + listed + `)
			ORDER BY c.owner_id, c.notice_date, c.id`, args
}

// DueKeyDates implements ports.KeyDateStore with DueKeyDatesSQL, and reads
// what the candidates announced by the announcements' primary key.
func (s KeyDateStore) DueKeyDates(ctx context.Context, from, to time.Time, thresholds []int) ([]ports.DueKeyDate, error) {
	if len(thresholds) == 0 {
		return nil, nil
	}
	query, args := DueKeyDatesSQL(s.e, from, to, thresholds)
	var out []ports.DueKeyDate
	err := s.e.ReadTx(ctx, func(x Querier) error {
		var err error
		out, err = QueryAll(ctx, x, func(sc Scanner) (ports.DueKeyDate, error) {
			var d ports.DueKeyDate
			var status int
			err := sc.Scan(&d.ContractID, &d.Name, &status, &d.Digital, NullTime(s.e, &d.EndDate), Time(s.e, &d.NoticeDate),
				&d.AutoRenew, &d.OwnerID, &d.OwnerEmail, &d.OwnerName)
			d.Status = contract.Status(status)
			return d, err
		}, query, args...)
		if err != nil || len(out) == 0 {
			return err
		}
		return s.announced(ctx, x, out)
	})
	if err != nil {
		return nil, fmt.Errorf("contracts due for key-date digests: %w", err)
	}
	return out, nil
}

// keyDateBatch bounds the ids of one IN list.
const keyDateBatch = 500

// announced fills the thresholds already announced of ds, a batch of
// ids at a time.
func (s KeyDateStore) announced(ctx context.Context, x Querier, ds []ports.DueKeyDate) error {
	at := make(map[int64]int, len(ds))
	for i, d := range ds {
		at[d.ContractID] = i
	}
	for start := 0; start < len(ds); start += keyDateBatch {
		var ids []int64
		for _, d := range ds[start:min(start+keyDateBatch, len(ds))] {
			ids = append(ids, d.ContractID)
		}
		in, args := s.e.In("contract_id", ids)
		rows, err := x.Query(ctx, `SELECT contract_id, threshold_days FROM key_date_announcements WHERE `+in+
			` ORDER BY contract_id, threshold_days`, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			var t int
			if err := rows.Scan(&id, &t); err != nil {
				rows.Close()
				return err
			}
			d := &ds[at[id]]
			d.Announced = append(d.Announced, t)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// AnnounceKeyDates implements ports.KeyDateStore. The contracts are read
// again and locked in id order (FOR UPDATE on PostgreSQL; SQLite's one
// writer runs alone): a concurrent digest of the same owner waits for
// this one and then finds the thresholds recorded, so it neither lists
// them again nor splits the owner's digest in two; an edit of one of the
// contracts waits too, so its re-arm sees the rows recorded here. One
// whose owner, notice date or live state changed since it was read is
// left out. The primary key of key_date_announcements decides which
// transaction recorded a threshold first.
func (s KeyDateStore) AnnounceKeyDates(ctx context.Context, as []ports.KeyDateAnnouncement, digest func(won []ports.KeyDateAnnouncement) error) (int, error) {
	if len(as) == 0 {
		return 0, nil
	}
	listed := 0
	lock := s.e.LockRow()
	ids := make([]int64, len(as))
	for i, a := range as {
		ids[i] = a.Due.ContractID
	}
	slices.Sort(ids)
	in, args := s.e.In("id", ids)
	err := s.e.WriteTx(ctx, func(x Querier) error {
		listed = 0
		type current struct {
			owner   int64
			notice  *time.Time
			status  int
			digital bool
		}
		now := map[int64]current{}
		rows, err := x.Query(ctx, `SELECT id, owner_id, notice_date, status, is_digital FROM contracts WHERE `+in+` ORDER BY id`+lock, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			var owner *int64
			var c current
			if err := rows.Scan(&id, &owner, NullTime(s.e, &c.notice), &c.status, &c.digital); err != nil {
				rows.Close()
				return err
			}
			if owner != nil {
				c.owner = *owner
			}
			now[id] = c
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
		at := s.e.Now()
		var won []ports.KeyDateAnnouncement
		for _, a := range as {
			c, ok := now[a.Due.ContractID]
			if !ok || c.owner != a.Due.OwnerID || c.notice == nil || !c.notice.Equal(a.Due.NoticeDate) ||
				!contract.LiveStatus(contract.Status(c.status), c.digital) {
				continue
			}
			first := false
			for _, t := range a.Record {
				n, err := x.Exec(ctx, `INSERT INTO key_date_announcements (contract_id, threshold_days, notice_date, announced_at)
					VALUES (?, ?, ?, ?) ON CONFLICT (contract_id, threshold_days) DO NOTHING`,
					a.Due.ContractID, t, s.e.Arg(a.Due.NoticeDate), s.e.Arg(at))
				if err != nil {
					return err
				}
				if t == a.Listed && n == 1 {
					first = true
				}
			}
			if first {
				won = append(won, a)
			}
		}
		if len(won) == 0 {
			return nil
		}
		listed = len(won)
		return digest(won)
	})
	if err != nil {
		return 0, fmt.Errorf("announce key dates: %w", err)
	}
	return listed, nil
}

// rearmKeyDates forgets the thresholds of a contract not yet reached with
// its new notice date (ports.RearmKeyDates).
func rearmKeyDates(ctx context.Context, x Querier, r ports.RearmKeyDates) error {
	if _, err := x.Exec(ctx, `DELETE FROM key_date_announcements WHERE contract_id = ? AND threshold_days < ?`, r.ContractID, r.Below); err != nil {
		return fmt.Errorf("re-arm the key dates of contract %d: %w", r.ContractID, err)
	}
	return nil
}
