package porttest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain/account"
	"counsel/domain/audit"
	"counsel/ports"
)

// AuditSuite covers the security event log (docs/decisions.md §18):
// events written as effects of a transaction (and only when it commits),
// the actor's name taken from the user, every filter, newest first,
// the export in batches, and pruning.
func AuditSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	adminID := bootstrap(t, s)
	write := func(at time.Time, action, targetType, targetID string, actor audit.Actor, details map[string]any) {
		t.Helper()
		ctx, fx := ports.WithEffects(ctx)
		fx.Add(ports.AuditEvent{Event: audit.Event{At: at, Action: action, Actor: actor, TargetType: targetType, TargetID: targetID,
			IP: "192.0.2.1", UserAgent: "Firefox", RequestID: "r1", Details: details}})
		is.NoErr(s.Audit.RecordEffects(ctx))
	}
	user := audit.Actor{Kind: audit.ActorUser, UserID: adminID}
	cli := audit.Actor{Kind: audit.ActorCLI, Name: "counsel user create"}
	write(T0, audit.SignIn, audit.TargetUser, "1", user, map[string]any{"method": account.MethodPassword})
	write(T0.Add(time.Minute), audit.UserCreated, audit.TargetUser, "2", cli, nil)
	write(T0.Add(2*time.Minute), audit.RoleCreated, audit.TargetRole, "7", user, map[string]any{"fields": []any{"name"}})
	write(T0.Add(2*time.Minute), audit.RoleAssigned, audit.TargetUser, "2", user, map[string]any{"roleId": float64(7)})

	// A change that fails writes no event.
	fctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Audit(fctx, audit.UserUpdated, audit.TargetUser, "1", nil))
	_, err := s.Roles.UpdateRole(fctx, 9999, func(account.Role) (account.RoleInput, error) { return account.RoleInput{Name: "x"}, nil }, nil)
	is.True(err != nil)

	all, n, err := s.Audit.AuditEvents(ctx, audit.Filter{Limit: 10})
	is.NoErr(err)
	is.Equal(n, int64(4))
	is.Equal(len(all), 4)
	is.Equal(all[0].Action, audit.RoleAssigned) // newest first, then the later id
	is.Equal(all[1].Action, audit.RoleCreated)
	is.Equal(all[3].Action, audit.SignIn)
	is.Equal(all[3].Name, "Ada Admin") // named from the user
	is.Equal(all[3].Kind, audit.ActorUser)
	is.Equal(all[3].UserID, adminID)
	is.Equal(all[3].At, T0)
	is.Equal(all[3].IP, "192.0.2.1")
	is.Equal(all[3].UserAgent, "Firefox")
	is.Equal(all[3].RequestID, "r1")
	is.Equal(all[3].Details, map[string]any{"method": account.MethodPassword})
	is.Equal(all[2].Name, "counsel user create")
	is.Equal(all[2].UserID, int64(0))
	is.Equal(all[2].Details, map[string]any{})
	is.Equal(all[1].Details, map[string]any{"fields": []any{"name"}})

	ids := func(f audit.Filter) []string {
		t.Helper()
		f.Limit = 100
		got, n, err := s.Audit.AuditEvents(ctx, f)
		is.NoErr(err)
		is.Equal(n, int64(len(got)))
		var out []string
		for _, e := range got {
			out = append(out, e.Action)
		}
		return out
	}
	from, to := T0.Add(time.Minute), T0.Add(time.Minute)
	is.Equal(ids(audit.Filter{Actions: []string{audit.SignIn, audit.UserCreated}}), []string{audit.UserCreated, audit.SignIn})
	is.Equal(ids(audit.Filter{ActorUserID: &adminID}), []string{audit.RoleAssigned, audit.RoleCreated, audit.SignIn})
	is.Equal(ids(audit.Filter{TargetType: audit.TargetUser, TargetID: "2"}), []string{audit.RoleAssigned, audit.UserCreated})
	is.Equal(ids(audit.Filter{TargetType: audit.TargetRole}), []string{audit.RoleCreated})
	is.Equal(ids(audit.Filter{From: &from}), []string{audit.RoleAssigned, audit.RoleCreated, audit.UserCreated})
	is.Equal(ids(audit.Filter{To: &to}), []string{audit.UserCreated, audit.SignIn})
	is.Equal(ids(audit.Filter{From: &from, To: &to}), []string{audit.UserCreated})
	is.Equal(len(ids(audit.Filter{Actions: []string{audit.BackupWritten}})), 0)
	page, n, err := s.Audit.AuditEvents(ctx, audit.Filter{Limit: 2, Offset: 1})
	is.NoErr(err)
	is.Equal(n, int64(4))
	is.Equal([]string{page[0].Action, page[1].Action}, []string{audit.RoleCreated, audit.UserCreated})

	// The export walks every match past one batch (of 500), newest first.
	const exportPast = 520
	for i := range exportPast {
		write(T0.Add(time.Hour+time.Duration(i%7)*time.Second), audit.SignOut, audit.TargetUser, "1", user, nil)
	}
	var seen int
	var last audit.Event
	is.NoErr(s.Audit.EachAuditEvent(ctx, audit.Filter{Actions: []string{audit.SignOut}, Limit: 3}, func(e audit.Event) error {
		if seen > 0 {
			is.True(e.At.Before(last.At) || (e.At.Equal(last.At) && e.ID < last.ID)) // strictly newest first
		}
		seen, last = seen+1, e
		return nil
	}))
	is.Equal(seen, exportPast)
	stop := errors.New("stop")
	is.Equal(s.Audit.EachAuditEvent(ctx, audit.Filter{}, func(audit.Event) error { return stop }), stop)

	// Pruning removes what is older than the cut.
	gone, err := s.Audit.PruneAuditEvents(ctx, T0.Add(90*time.Second))
	is.NoErr(err)
	is.Equal(gone, int64(2))
	_, n, err = s.Audit.AuditEvents(ctx, audit.Filter{Limit: 1})
	is.NoErr(err)
	is.Equal(n, int64(exportPast+2))
}
