package porttest

import (
	"context"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports"
)

// SessionsSuite covers the sessions a user sees (docs/decisions.md §18):
// the device they were opened from, the list of live ones, revoking one
// or the others, and last-seen times written at most once per interval.
func SessionsSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	is := is.New(t)
	adminID := bootstrap(t, s)
	otherID, err := createUser(ctx, s.Users, account.NewUser{Email: "other@example.com", PasswordHash: "p"})
	is.NoErr(err)
	open := func(id string, user int64, at time.Time, kind string) account.Session {
		ss := account.Session{ID: id, UserID: user, Method: account.MethodAuthenticator, CreatedAt: at, ExpiresAt: at.Add(24 * time.Hour),
			Kind: kind, AuthenticatedAt: at, LastSeen: at, IP: "2001:db8::1", UserAgent: "Firefox/133.0"}
		var refresh []byte
		if kind == account.SessionConsole {
			ss.TokenHash = []byte("console-" + id)
		} else {
			refresh = []byte("refresh-" + id)
		}
		is.NoErr(s.Accounts.CreateSession(ctx, ss, refresh))
		return ss
	}
	a := open("sa", adminID, T0, account.SessionAPI)
	b := open("sb", adminID, T0.Add(time.Second), account.SessionConsole)
	open("sc", adminID, T0.Add(2*time.Second), account.SessionAPI)
	open("sd", adminID, T0.Add(-25*time.Hour), account.SessionAPI) // expired
	open("so", otherID, T0, account.SessionAPI)

	now := T0.Add(time.Minute)
	list, err := s.Accounts.UserSessions(ctx, adminID, now)
	is.NoErr(err)
	is.Equal(len(list), 3) // live ones, newest first
	is.Equal([]string{list[0].ID, list[1].ID, list[2].ID}, []string{"sc", "sb", "sa"})
	got := list[2]
	is.Equal(got.Method, a.Method)
	is.Equal(got.IP, a.IP)
	is.Equal(got.UserAgent, a.UserAgent)
	is.Equal(got.CreatedAt, a.CreatedAt)
	is.Equal(got.LastSeen, a.CreatedAt)
	is.Equal(list[1].Kind, account.SessionConsole)
	is.Equal(list[1].LastSeen, b.LastSeen)

	// Last-seen times move at most once per interval.
	is.NoErr(s.Accounts.SeeSessions(ctx, []account.SessionSeen{{ID: "sa", At: T0.Add(30 * time.Second)}, {ID: "sc", At: T0.Add(90 * time.Second)}}, time.Minute))
	list, err = s.Accounts.UserSessions(ctx, adminID, now)
	is.NoErr(err)
	is.Equal(list[2].LastSeen, T0)                     // within the minute: kept
	is.Equal(list[0].LastSeen, T0.Add(90*time.Second)) // past it: written
	is.NoErr(s.Accounts.SeeSessions(ctx, nil, time.Minute))

	// Revoking one: only a live session of that user.
	is.Equal(code(s.Accounts.RevokeUserSession(ctx, adminID, "so", now)), domain.ENOTFOUND)
	is.Equal(code(s.Accounts.RevokeUserSession(ctx, adminID, "sd", now)), domain.ENOTFOUND) // expired
	is.Equal(code(s.Accounts.RevokeUserSession(ctx, adminID, "nope", now)), domain.ENOTFOUND)
	is.NoErr(s.Accounts.RevokeUserSession(ctx, adminID, "sb", now))
	is.Equal(code(s.Accounts.RevokeUserSession(ctx, adminID, "sb", now)), domain.ENOTFOUND) // once
	ss, err := s.Accounts.Session(ctx, "sb")
	is.NoErr(err)
	is.True(!ss.Active(now))
	is.NoErr(s.Accounts.SeeSessions(ctx, []account.SessionSeen{{ID: "sb", At: now.Add(time.Hour)}}, time.Minute)) // revoked: not written

	// The others: all but the one kept, of that user only.
	n, err := s.Accounts.RevokeOtherSessions(ctx, adminID, "sc", now)
	is.NoErr(err)
	is.Equal(n, int64(2)) // sa and the expired sd
	list, err = s.Accounts.UserSessions(ctx, adminID, now)
	is.NoErr(err)
	is.Equal(len(list), 1)
	is.Equal(list[0].ID, "sc")
	list, err = s.Accounts.UserSessions(ctx, otherID, now)
	is.NoErr(err)
	is.Equal(len(list), 1)

	// Devices: written as the sign-in's effect, read with a window.
	d := account.Device{Agent: "Firefox on Linux", Network: "203.0.113.0/24"}
	agent, network, anyDev, err := s.Accounts.KnownDevice(ctx, adminID, d, T0)
	is.NoErr(err)
	is.True(!agent && !network && !anyDev) // nothing yet
	dctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.DeviceSeen{UserID: adminID, Device: d, At: T0})
	is.NoErr(s.Accounts.TouchSession(dctx, "sc", T0)) // any write transaction carries it
	fx2ctx, fx2 := ports.WithEffects(ctx)
	fx2.Add(ports.DeviceSeen{UserID: adminID, Device: account.Device{Agent: "curl", Network: "198.51.100.0/24"}, At: T0.Add(time.Hour)})
	is.NoErr(s.Accounts.TouchSession(fx2ctx, "sc", T0))
	agent, network, anyDev, err = s.Accounts.KnownDevice(ctx, adminID, d, T0)
	is.NoErr(err)
	is.True(agent && network && anyDev)
	agent, network, anyDev, err = s.Accounts.KnownDevice(ctx, adminID, d, T0.Add(time.Minute)) // seen before the window
	is.NoErr(err)
	is.True(!agent && !network && anyDev)
	agent, _, _, err = s.Accounts.KnownDevice(ctx, otherID, d, T0)
	is.NoErr(err)
	is.True(!agent) // another user's devices are not this one's
}
