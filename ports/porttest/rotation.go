package porttest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/user"
)

// RotationSuite holds a refresh presented whole (an account.Rotation with
// its new token, which a store may write as one conditional write before
// deciding) to account.Refresh: in every state the outcome is the domain's
// decision and nothing else is written; a decision that fails, or one
// stricter than the domain's, leaves the token as it was; of two
// refreshes of one token at once one rotates and the other is a reuse,
// which revokes the session.
func RotationSuite(t *testing.T, s Stores) {
	ctx := context.Background()
	adminID := bootstrap(t, s)
	newUser := func(email string, fn func(*user.User)) int64 {
		t.Helper()
		p, err := s.Users.CreateUser(ctx, newUser(email, "R", "Otation"), "", nil)
		if err != nil {
			t.Fatalf("create %s: %v", email, err)
		}
		if fn != nil {
			if _, err := s.Users.UpdateUser(ctx, p.ID, func(a *user.Aggregate) error { fn(&a.User); return nil }); err != nil {
				t.Fatalf("update %s: %v", email, err)
			}
		}
		return p.ID
	}
	inactive := newUser("inactive@example.com", func(u *user.User) { u.Active = false })
	now := T0.Add(time.Minute)
	n := 0
	// session starts a session of uid whose token is current, used
	// (rotated once already) or of a revoked or expired session.
	session := func(t *testing.T, uid int64, state string) (id string, token []byte) {
		t.Helper()
		is := is.New(t)
		n++
		id, token = fmt.Sprint("rot-", n), []byte(fmt.Sprint("rot-token-", n))
		ss := account.Session{ID: id, UserID: uid, Method: "password", CreatedAt: T0, ExpiresAt: T0.Add(time.Hour)}
		if state == "expired" {
			ss.ExpiresAt = now
		}
		is.NoErr(s.Accounts.CreateSession(ctx, ss, token))
		switch state {
		case "revoked":
			is.NoErr(s.Accounts.RevokeSession(ctx, id, T0))
		case "used":
			is.NoErr(s.Accounts.Refresh(ctx, account.Rotation{TokenHash: token}, func(st *account.RefreshState) error {
				st.NewTokenHash = append(token, "-next"...)
				return nil
			}))
		}
		return id, token
	}
	// used reports whether token reads as used, writing nothing.
	used := func(t *testing.T, token []byte) bool {
		t.Helper()
		var u bool
		is.New(t).NoErr(s.Accounts.Refresh(ctx, account.Rotation{TokenHash: token}, func(st *account.RefreshState) error {
			u = st.Used
			return nil
		}))
		return u
	}
	stored := func(token []byte) bool {
		_, err := s.Accounts.SessionByRefreshHash(ctx, token)
		return err == nil
	}

	tests := []struct {
		name    string
		user    int64
		state   string
		claims  func(id string, uid int64) (string, int64) // the access token's session and user
		rotates bool
		revokes bool
	}{
		{"current token rotates", adminID, "current", nil, true, false},
		{"used token revokes the session", adminID, "used", nil, false, true},
		{"revoked session", adminID, "revoked", nil, false, false},
		{"expired session", adminID, "expired", nil, false, false},
		{"deactivated user", inactive, "current", nil, false, false},
		{"access token of another session", adminID, "current", func(string, int64) (string, int64) { return "other", adminID }, false, false},
		{"access token of another user", adminID, "current", func(id string, _ int64) (string, int64) { return id, inactive }, false, false},
		{"used token with another's access token still revokes", adminID, "used", func(string, int64) (string, int64) { return "other", inactive }, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			id, token := session(t, tt.user, tt.state)
			rot := account.Rotation{TokenHash: token, NewTokenHash: append(token, "-new"...), SessionID: id, UserID: tt.user, Now: now}
			if tt.claims != nil {
				rot.SessionID, rot.UserID = tt.claims(id, tt.user)
			}
			var ok, revoke bool
			is.NoErr(s.Accounts.Refresh(ctx, rot, func(st *account.RefreshState) error {
				ok = account.Refresh(st, rot)
				revoke = st.Revoke
				return nil
			}))
			is.Equal(ok, tt.rotates)                                   // the domain's decision
			is.Equal(revoke, tt.revokes)                               // and its revocation
			is.Equal(stored(rot.NewTokenHash), tt.rotates)             // the new token stored only on rotation
			is.Equal(used(t, token), tt.rotates || tt.state == "used") // the old one used only then
			ss, err := s.Accounts.Session(ctx, id)
			is.NoErr(err)
			is.Equal(ss.RevokedAt != nil, tt.revokes || tt.state == "revoked") // revoked only on reuse
		})
	}

	t.Run("a decision that fails undoes the rotation", func(t *testing.T) {
		is := is.New(t)
		id, token := session(t, adminID, "current")
		rot := account.Rotation{TokenHash: token, NewTokenHash: []byte("failed-new"), SessionID: id, UserID: adminID, Now: now}
		boom := errors.New("boom")
		err := s.Accounts.Refresh(ctx, rot, func(st *account.RefreshState) error {
			account.Refresh(st, rot)
			return boom
		})
		is.True(errors.Is(err, boom))      // the decision's error
		is.True(!stored(rot.NewTokenHash)) // no new token
		is.True(!used(t, token))           // the old one still current
	})

	t.Run("a stricter decision is made again and stands", func(t *testing.T) {
		is := is.New(t)
		id, token := session(t, adminID, "current")
		rot := account.Rotation{TokenHash: token, NewTokenHash: []byte("strict-new"), SessionID: id, UserID: adminID, Now: now}
		calls := 0
		is.NoErr(s.Accounts.Refresh(ctx, rot, func(st *account.RefreshState) error {
			calls++
			is.True(!st.Used) // every call sees the token as it was
			return nil        // and declines
		}))
		is.True(calls >= 1)
		is.True(!stored(rot.NewTokenHash))
		is.True(!used(t, token))
	})

	t.Run("of two refreshes of one token one rotates, the other revokes", func(t *testing.T) {
		is := is.New(t)
		for range 10 {
			id, token := session(t, adminID, "current")
			var wg sync.WaitGroup
			var rotated, revoked [2]bool // as each refresh's last call of fn decided
			start := make(chan struct{})
			for k := range 2 {
				wg.Go(func() {
					<-start
					rot := account.Rotation{TokenHash: token, NewTokenHash: fmt.Appendf(nil, "%s-race-%d", token, k), SessionID: id, UserID: adminID, Now: now}
					err := s.Accounts.Refresh(ctx, rot, func(st *account.RefreshState) error {
						rotated[k], revoked[k] = account.Refresh(st, rot), st.Revoke
						return nil
					})
					if err != nil {
						t.Errorf("refresh: %v", err)
					}
				})
			}
			close(start)
			wg.Wait()
			is.True(rotated[0] != rotated[1]) // one rotation
			is.Equal(revoked[0], rotated[1])  // the other a reuse
			is.Equal(revoked[1], rotated[0])
			ss, err := s.Accounts.Session(ctx, id)
			is.NoErr(err)
			is.True(ss.RevokedAt != nil) // which revoked the session
		}
	})

	t.Run("an unknown token", func(t *testing.T) {
		is := is.New(t)
		rot := account.Rotation{TokenHash: []byte("rot-unknown"), NewTokenHash: []byte("rot-unknown-new"), SessionID: "x", UserID: adminID, Now: now}
		err := s.Accounts.Refresh(ctx, rot, func(*account.RefreshState) error {
			t.Error("fn called for an unknown token")
			return nil
		})
		is.Equal(code(err), domain.ENOTFOUND)
	})
}
