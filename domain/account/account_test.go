package account_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"counsel/domain"
	"counsel/domain/account"

	"github.com/matryer/is"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestPermissionNames(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	all := account.AllPermissions()
	is.Equal(len(all), 19) // the permissions of docs/decisions.md §3, AuditView of §18 and WebhooksManage of §17
	want := []string{
		"UsersView", "UsersCreate", "UsersEdit", "UsersDelete",
		"RemunerationsCreate", "RemunerationsEdit",
		"RolesView", "RolesCreate", "RolesEdit", "RolesDelete",
		"PermissionsView", "OfficesEdit", "OfferingsEdit",
		"ContractView", "ContractCreate", "ContractEdit", "ContractDelete",
		"AuditView", "WebhooksManage",
	}
	for i, p := range all {
		is.Equal(p.String(), want[i]) // documented order and spelling
		back, ok := account.ParsePermission(p.String())
		is.True(ok)       // name parses
		is.Equal(back, p) // round trip
	}
	is.Equal(account.Permission(200).String(), "Unknown") // out of range
	is.Equal(account.AllPermissionSet.Names(), want)      // the full set lists every name in order
}

func TestParsePermission(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want account.Permission
		ok   bool
	}{
		{"UsersView", account.UsersView, true},
		{"usersview", account.UsersView, true},
		{"USERSVIEW", account.UsersView, true},
		{"contractDelete", account.ContractDelete, true},
		{"", 0, false},
		{" UsersView", 0, false},
		{"UsersViews", 0, false},
		{"Unknown", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			is := is.New(t)
			p, ok := account.ParsePermission(tt.in)
			is.Equal(ok, tt.ok) // found
			if ok {
				is.Equal(p, tt.want) // permission
			}
		})
	}
}

func TestPermissionSet(t *testing.T) {
	t.Parallel()
	view := account.NewPermissionSet(account.UsersView)
	viewEdit := account.NewPermissionSet(account.UsersEdit, account.UsersView)
	tests := []struct {
		name  string
		set   account.PermissionSet
		names []string
	}{
		{"empty", account.NewPermissionSet(), []string{}},
		{"one", view, []string{"UsersView"}},
		{"listed in documented order whatever the input order", viewEdit, []string{"UsersView", "UsersEdit"}},
		{"duplicates collapse", account.NewPermissionSet(account.RolesEdit, account.RolesEdit), []string{"RolesEdit"}},
		{"last permission", account.NewPermissionSet(account.ContractDelete), []string{"ContractDelete"}},
		{"union", view | account.NewPermissionSet(account.ContractView), []string{"UsersView", "ContractView"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(tt.set.Names(), tt.names) // names
			is.Equal(len(tt.set.List()), len(tt.names))
			for _, n := range tt.names {
				p, _ := account.ParsePermission(n)
				is.True(tt.set.Has(p)) // member
			}
			is.True(account.AllPermissionSet.HasAll(tt.set))   // everything is within the full set
			is.True(tt.set.HasAll(account.NewPermissionSet())) // every set holds the empty set
		})
	}

	t.Run("HasAll", func(t *testing.T) {
		is := is.New(t)
		is.True(viewEdit.HasAll(view))                                            // superset
		is.True(!view.HasAll(viewEdit))                                           // subset lacks one
		is.True(!view.Has(account.UsersEdit))                                     // not a member
		is.True(!account.NewPermissionSet().Has(account.UsersView))               // empty
		is.True(!account.AllPermissionSet.HasAll(account.PermissionSet(1 << 40))) // bits beyond the last permission are not held
	})

	t.Run("Effective", func(t *testing.T) {
		is := is.New(t)
		is.Equal(account.Role{Permissions: view}.Effective(), view)                                          // ordinary role: its set
		is.Equal(account.Role{IsSystemAdmin: true}.Effective(), account.AllPermissionSet)                    // system admin: everything
		is.Equal(account.Role{IsSystemAdmin: true, Permissions: view}.Effective(), account.AllPermissionSet) // whatever its set says
	})

	t.Run("principal in context", func(t *testing.T) {
		is := is.New(t)
		_, ok := account.FromContext(context.Background())
		is.True(!ok) // none
		p := account.Principal{UserID: 7, SessionID: "s", Permissions: view}
		got, ok := account.FromContext(account.NewContext(context.Background(), p))
		is.True(ok)                            // found
		is.Equal(got, p)                       // same principal
		is.True(got.Can(account.UsersView))    // held
		is.True(!got.Can(account.UsersDelete)) // not held
	})
}

func TestValidatePassword(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		pw   string
		ok   bool
		msg  string
	}{
		{"empty", "", false, "newPassword is required"},
		{"7 characters", strings.Repeat("a", 7), false, "must be 8 to 128 characters"},
		{"8 characters", strings.Repeat("a", 8), true, ""},
		{"128 characters", strings.Repeat("a", 128), true, ""},
		{"129 characters", strings.Repeat("a", 129), false, "must be 8 to 128 characters"},
		{"7 two-byte runes (14 bytes)", strings.Repeat("é", 7), false, "must be 8 to 128 characters"},
		{"8 two-byte runes", strings.Repeat("é", 8), true, ""},
		{"128 four-byte runes (512 bytes)", strings.Repeat("😀", 128), true, ""},
		{"129 four-byte runes", strings.Repeat("😀", 129), false, "must be 8 to 128 characters"},
		{"spaces count", "        ", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := account.ValidatePassword("newPassword", tt.pw)
			if tt.ok {
				is.NoErr(err) // accepted
				return
			}
			is.Equal(domain.ErrorCode(err), domain.EINVALID) // refused as invalid input
			var de *domain.Error
			is.True(asError(err, &de))
			msgs := de.Fields["newPassword"]
			is.Equal(len(msgs), 1)    // keyed by the given field name
			is.Equal(msgs[0], tt.msg) // message
		})
	}
}

func asError(err error, de **domain.Error) bool { return errors.As(err, de) }

func TestEmail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in         string
		normalized string
		valid      bool
	}{
		{"a@b", "a@b", true},
		{"  Admin@Example.COM \n", "admin@example.com", true},
		{"first.last+tag@sub.example.org", "first.last+tag@sub.example.org", true},
		{"ÉLODIE@exemple.fr", "élodie@exemple.fr", true},
		{"", "", false},
		{"nobody", "nobody", false},
		{"@example.com", "@example.com", false},
		{"user@", "user@", false},
		{"a@b@c", "a@b@c", false},
		{"john doe@example.com", "john doe@example.com", false},
		{"a@b\tc", "a@b\tc", false},
		{strings.Repeat("a", 244) + "@example.c", strings.Repeat("a", 244) + "@example.c", true},  // 254 bytes
		{strings.Repeat("a", 245) + "@example.c", strings.Repeat("a", 245) + "@example.c", false}, // 255 bytes
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			is := is.New(t)
			n := account.NormalizeEmail(tt.in)
			is.Equal(n, tt.normalized)                // normalized
			is.Equal(account.ValidEmail(n), tt.valid) // validity
			is.Equal(account.NormalizeEmail(n), n)    // idempotent
		})
	}
}

func TestOTPIssue(t *testing.T) {
	t.Parallel()
	policy := account.OTPPolicy{TTL: 5 * time.Minute, ResendInterval: 30 * time.Second, HourlyLimit: 3, MaxAttempts: 5}
	ago := func(d time.Duration) time.Time { return t0.Add(-d) }
	tests := []struct {
		name       string
		policy     account.OTPPolicy
		sends      []time.Time
		retryAfter time.Duration // 0: issued
		kept       int           // sends kept after pruning (issued: plus the new one)
	}{
		{"first code", policy, nil, 0, 1},
		{"after the resend interval", policy, []time.Time{ago(30 * time.Second)}, 0, 2},
		{"within the resend interval", policy, []time.Time{ago(10 * time.Second)}, 20 * time.Second, 1},
		{"a moment before the interval ends rounds up to a second", policy, []time.Time{ago(30*time.Second - time.Millisecond)}, time.Second, 1},
		{"hourly limit reached: wait for the oldest to age out", policy,
			[]time.Time{ago(50 * time.Minute), ago(20 * time.Minute), ago(10 * time.Minute)}, 10 * time.Minute, 3},
		{"hourly limit counts only the last hour", policy,
			[]time.Time{ago(2 * time.Hour), ago(time.Hour), ago(20 * time.Minute), ago(10 * time.Minute)}, 0, 3},
		{"over the limit (a lowered setting): the send that frees a slot decides", policy,
			[]time.Time{ago(55 * time.Minute), ago(40 * time.Minute), ago(30 * time.Minute), ago(5 * time.Minute)}, 20 * time.Minute, 4},
		{"resend interval is checked before the hourly limit", policy,
			[]time.Time{ago(50 * time.Minute), ago(20 * time.Minute), ago(5 * time.Second)}, 25 * time.Second, 3},
		{"zero resend interval is off", account.OTPPolicy{TTL: time.Minute, HourlyLimit: 3},
			[]time.Time{ago(time.Millisecond)}, 0, 2},
		{"zero hourly limit is off", account.OTPPolicy{TTL: time.Minute, ResendInterval: time.Second},
			[]time.Time{ago(50 * time.Minute), ago(40 * time.Minute), ago(30 * time.Minute), ago(20 * time.Minute), ago(10 * time.Minute)}, 0, 6},
		{"both off", account.OTPPolicy{TTL: time.Minute}, []time.Time{t0, t0, t0}, 0, 4},
		{"sends older than an hour are pruned", policy,
			[]time.Time{ago(3 * time.Hour), ago(61 * time.Minute), ago(60 * time.Minute)}, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			old := []byte("old")
			orig := append([]time.Time(nil), tt.sends...)
			st := account.OTPState{CodeHash: old, ExpiresAt: t0.Add(time.Minute), Attempts: 3, Sends: tt.sends}
			err := tt.policy.Issue(&st, []byte("new"), t0)
			if tt.retryAfter > 0 {
				is.Equal(domain.ErrorCode(err), domain.ERATELIMITED) // refused
				var de *domain.Error
				is.True(asError(err, &de))
				is.Equal(de.RetryAfter, tt.retryAfter) // Retry-After
				is.Equal(string(st.CodeHash), "old")   // the current code stays
				is.Equal(st.Attempts, 3)               // and its tries
				is.Equal(len(st.Sends), tt.kept)       // pruned
				is.Equal(tt.sends, orig)               // pruning does not rewrite the loaded slice
				return
			}
			is.NoErr(err)                                 // issued
			is.Equal(string(st.CodeHash), "new")          // replaced
			is.Equal(st.ExpiresAt, t0.Add(tt.policy.TTL)) // expiry
			is.Equal(st.Attempts, 0)                      // tries reset
			is.Equal(len(st.Sends), tt.kept)              // pruned and appended
			is.Equal(st.Sends[len(st.Sends)-1], t0)       // this send recorded last
			for _, s := range st.Sends {
				is.True(t0.Sub(s) < time.Hour) // nothing older than an hour is kept
			}
		})
	}

	t.Run("a burst up to the hourly limit, then 429 until the oldest ages out", func(t *testing.T) {
		is := is.New(t)
		p := account.OTPPolicy{TTL: time.Minute, ResendInterval: time.Minute, HourlyLimit: 10}
		var st account.OTPState
		now := t0
		for i := range 10 {
			is.NoErr(p.Issue(&st, []byte{byte(i)}, now)) // within the limit
			now = now.Add(time.Minute)
		}
		// now = t0+10m; the oldest send (t0) frees its slot at t0+1h.
		err := p.Issue(&st, []byte("x"), now)
		var de *domain.Error
		is.True(asError(err, &de))                             // limited
		is.Equal(de.RetryAfter, 50*time.Minute)                // until t0+1h
		is.NoErr(p.Issue(&st, []byte("y"), t0.Add(time.Hour))) // the slot is free at t0+1h
		is.Equal(len(st.Sends), 10)                            // t0 pruned, the new one added
	})
}

func TestOTPCheck(t *testing.T) {
	t.Parallel()
	policy := account.OTPPolicy{TTL: 5 * time.Minute, MaxAttempts: 3}
	right, wrong := []byte("right-hash-0123456789"), []byte("wrong-hash-0123456789")
	tests := []struct {
		name        string
		policy      account.OTPPolicy
		state       account.OTPState
		hash        []byte
		now         time.Time
		ok          bool
		attempts    int
		codeRemains bool
	}{
		{"right code", policy, account.OTPState{CodeHash: right, ExpiresAt: t0.Add(time.Minute)}, right, t0, true, 0, true},
		{"right code after wrong tries", policy, account.OTPState{CodeHash: right, ExpiresAt: t0.Add(time.Minute), Attempts: 2}, right, t0, true, 2, true},
		{"wrong code counts a try", policy, account.OTPState{CodeHash: right, ExpiresAt: t0.Add(time.Minute)}, wrong, t0, false, 1, true},
		{"wrong code of a different length", policy, account.OTPState{CodeHash: right, ExpiresAt: t0.Add(time.Minute)}, []byte("x"), t0, false, 1, true},
		{"empty submitted hash", policy, account.OTPState{CodeHash: right, ExpiresAt: t0.Add(time.Minute)}, nil, t0, false, 1, true},
		{"the try that reaches MaxAttempts voids the code", policy, account.OTPState{CodeHash: right, ExpiresAt: t0.Add(time.Minute), Attempts: 2}, wrong, t0, false, 3, false},
		{"zero MaxAttempts never voids", account.OTPPolicy{TTL: time.Minute}, account.OTPState{CodeHash: right, ExpiresAt: t0.Add(time.Minute), Attempts: 100}, wrong, t0, false, 101, true},
		{"expired at the exact expiry", policy, account.OTPState{CodeHash: right, ExpiresAt: t0}, right, t0, false, 0, true},
		{"valid a moment before expiry", policy, account.OTPState{CodeHash: right, ExpiresAt: t0.Add(time.Nanosecond)}, right, t0, true, 0, true},
		{"expired does not count tries", policy, account.OTPState{CodeHash: right, ExpiresAt: t0.Add(-time.Second)}, wrong, t0, false, 0, true},
		{"no code (used, voided or unknown email)", policy, account.OTPState{ExpiresAt: t0.Add(time.Minute)}, nil, t0, false, 0, false},
		{"no code does not match an empty hash", policy, account.OTPState{CodeHash: []byte{}, ExpiresAt: t0.Add(time.Minute)}, []byte{}, t0, false, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			st := tt.state
			is.Equal(tt.policy.Check(&st, tt.hash, tt.now), tt.ok) // decision
			is.Equal(st.Attempts, tt.attempts)                     // tries
			is.Equal(len(st.CodeHash) > 0, tt.codeRemains)         // code kept or voided
		})
	}

	t.Run("voided code refuses the right code too", func(t *testing.T) {
		is := is.New(t)
		st := account.OTPState{CodeHash: right, ExpiresAt: t0.Add(time.Minute)}
		for range 3 {
			is.True(!policy.Check(&st, wrong, t0)) // wrong
		}
		is.True(!policy.Check(&st, right, t0)) // voided
	})

	t.Run("Consume", func(t *testing.T) {
		is := is.New(t)
		st := account.OTPState{CodeHash: right, ExpiresAt: t0.Add(time.Minute), Attempts: 2}
		st.Consume()
		is.Equal(st.CodeHash, nil)             // gone
		is.Equal(st.Attempts, 0)               // reset
		is.True(!policy.Check(&st, right, t0)) // single use
	})
}

func TestLogin(t *testing.T) {
	t.Parallel()
	otpPolicy := account.OTPPolicy{TTL: 5 * time.Minute, MaxAttempts: 5}
	lock := account.LockoutPolicy{Threshold: 3, Duration: 15 * time.Minute}
	code := []byte("code-hash")
	otp := func() account.OTPState { return account.OTPState{CodeHash: code, ExpiresAt: t0.Add(time.Minute)} }
	good := account.LoginInput{PasswordOK: true, OTPHash: code}
	tests := []struct {
		name        string
		lock        account.LockoutPolicy
		creds       account.Credentials
		otp         account.OTPState
		in          account.LoginInput
		ok          bool
		failed      int
		lockedUntil time.Time
		otpUsed     bool
		otpAttempts int
	}{
		{"success", lock, account.Credentials{Active: true}, otp(), good, true, 0, time.Time{}, true, 0},
		{"success resets the counter and an expired lock", lock,
			account.Credentials{Active: true, FailedLogins: 2, LockedUntil: t0.Add(-time.Second)}, otp(), good, true, 0, time.Time{}, true, 0},
		{"success at the exact end of a lock", lock,
			account.Credentials{Active: true, LockedUntil: t0}, otp(), good, true, 0, time.Time{}, true, 0},
		{"wrong password counts", lock, account.Credentials{Active: true}, otp(),
			account.LoginInput{OTPHash: code}, false, 1, time.Time{}, false, 0},
		{"wrong code counts in both places", lock, account.Credentials{Active: true}, otp(),
			account.LoginInput{PasswordOK: true, OTPHash: []byte("nope")}, false, 1, time.Time{}, false, 1},
		{"no code counts", lock, account.Credentials{Active: true}, account.OTPState{}, good, false, 1, time.Time{}, true, 0},
		{"inactive user fails and counts", lock, account.Credentials{Active: false}, otp(), good, false, 1, time.Time{}, false, 0},
		{"the failure at the threshold locks and resets the counter", lock,
			account.Credentials{Active: true, FailedLogins: 2}, otp(), account.LoginInput{OTPHash: code}, false, 0, t0.Add(15 * time.Minute), false, 0},
		{"locked: refused even with everything right, nothing counted", lock,
			account.Credentials{Active: true, LockedUntil: t0.Add(time.Second)}, otp(), good, false, 0, t0.Add(time.Second), false, 0},
		{"locked: a wrong code is not tried against the OTP", lock,
			account.Credentials{Active: true, LockedUntil: t0.Add(time.Second)}, otp(), account.LoginInput{PasswordOK: true, OTPHash: []byte("x")}, false, 0, t0.Add(time.Second), false, 0},
		{"zero threshold never locks", account.LockoutPolicy{}, account.Credentials{Active: true, FailedLogins: 99}, otp(),
			account.LoginInput{OTPHash: code}, false, 100, time.Time{}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			st := account.LoginState{Credentials: tt.creds, OTP: tt.otp}
			is.Equal(account.Login(otpPolicy, tt.lock, &st, tt.in, t0), tt.ok) // decision
			is.Equal(st.Credentials.FailedLogins, tt.failed)                   // counter
			is.Equal(st.Credentials.LockedUntil, tt.lockedUntil)               // lock
			is.Equal(len(st.OTP.CodeHash) == 0, tt.otpUsed)                    // code consumed only on success
			is.Equal(st.OTP.Attempts, tt.otpAttempts)                          // OTP tries
			is.Equal(st.NewSession, nil)                                       // the caller sets the session
		})
	}

	t.Run("three failures lock; the lock ends after its duration", func(t *testing.T) {
		is := is.New(t)
		st := account.LoginState{Credentials: account.Credentials{Active: true}, OTP: otp()}
		bad := account.LoginInput{OTPHash: code}
		now := t0
		for range 3 {
			is.True(!account.Login(otpPolicy, lock, &st, bad, now)) // failure
			now = now.Add(time.Second)
		}
		is.Equal(st.Credentials.LockedUntil, t0.Add(2*time.Second+15*time.Minute)) // locked from the third failure
		st.OTP = account.OTPState{CodeHash: code, ExpiresAt: now.Add(time.Hour)}
		is.True(!account.Login(otpPolicy, lock, &st, good, now))                       // still locked
		is.True(account.Login(otpPolicy, lock, &st, good, st.Credentials.LockedUntil)) // free at the lock's end
	})
}

func TestRefresh(t *testing.T) {
	t.Parallel()
	revokedAt := t0.Add(-time.Minute)
	session := account.Session{ID: "s1", UserID: 7, Method: account.MethodPassword, CreatedAt: t0.Add(-time.Hour), ExpiresAt: t0.Add(time.Hour)}
	claims := account.AccessClaims{UserID: 7, SessionID: "s1"}
	next := []byte("next")
	with := func(f func(*account.Session)) account.Session { s := session; f(&s); return s }
	tests := []struct {
		name    string
		state   account.RefreshState
		claims  account.AccessClaims
		ok      bool
		revoke  bool
		newHash bool
	}{
		{"current token of an active session rotates", account.RefreshState{Session: session, UserActive: true}, claims, true, false, true},
		{"deactivated or deleted user", account.RefreshState{Session: session}, claims, false, false, false},
		{"used token revokes the session", account.RefreshState{Session: session, Used: true}, claims, false, true, false},
		{"used token of an already revoked session changes nothing", account.RefreshState{Session: with(func(s *account.Session) { s.RevokedAt = &revokedAt }), Used: true}, claims, false, false, false},
		{"used token with someone else's access token still revokes", account.RefreshState{Session: session, Used: true}, account.AccessClaims{UserID: 8, SessionID: "x"}, false, true, false},
		{"revoked session", account.RefreshState{Session: with(func(s *account.Session) { s.RevokedAt = &revokedAt }), UserActive: true}, claims, false, false, false},
		{"expired session", account.RefreshState{Session: with(func(s *account.Session) { s.ExpiresAt = t0 }), UserActive: true}, claims, false, false, false},
		{"access token of another user", account.RefreshState{Session: session, UserActive: true}, account.AccessClaims{UserID: 8, SessionID: "s1"}, false, false, false},
		{"access token of another session", account.RefreshState{Session: session, UserActive: true}, account.AccessClaims{UserID: 7, SessionID: "s2"}, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			st := tt.state
			rot := account.Rotation{NewTokenHash: next, UserID: tt.claims.UserID, SessionID: tt.claims.SessionID, Now: t0}
			is.Equal(account.Refresh(&st, rot), tt.ok)   // decision
			is.Equal(st.Revoke, tt.revoke)               // revoke
			is.Equal(st.NewTokenHash != nil, tt.newHash) // rotation
		})
	}
}

func TestSessionActive(t *testing.T) {
	t.Parallel()
	revoked := t0
	tests := []struct {
		name string
		s    account.Session
		ok   bool
	}{
		{"live", account.Session{ExpiresAt: t0.Add(time.Second)}, true},
		{"at expiry", account.Session{ExpiresAt: t0}, false},
		{"revoked", account.Session{ExpiresAt: t0.Add(time.Hour), RevokedAt: &revoked}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(tt.s.Active(t0), tt.ok) // active
		})
	}
}

func TestRoleInputValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"name", "Partners", true},
		{"empty", "", false},
		{"blank", "   ", false},
		{"100 runes", strings.Repeat("é", 100), true},
		{"101 runes", strings.Repeat("é", 101), false},
		{"spaces around do not count", "  " + strings.Repeat("a", 100) + "  ", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := account.RoleInput{Name: tt.in}.Validate()
			if tt.ok {
				is.NoErr(err) // valid
				return
			}
			is.Equal(domain.ErrorCode(err), domain.EINVALID) // invalid
			var de *domain.Error
			is.True(asError(err, &de))
			is.True(len(de.Fields["name"]) == 1) // keyed by name
		})
	}
}

// TestAreasHoldEveryPermission: a new permission reaches the role forms
// only through an area, so every permission is in exactly one.
func TestAreasHoldEveryPermission(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	var inAreas []account.Permission
	for _, a := range account.Areas() {
		is.True(a.Name != "")
		inAreas = append(inAreas, a.Permissions...)
	}
	is.Equal(inAreas, account.AllPermissions()) // each once, in the documented order
}
