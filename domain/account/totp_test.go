package account_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"counsel/domain/account"

	"github.com/matryer/is"
)

// fakeCode stands in for the app: a distinct six-digit code per step.
func fakeCode(step int64) string { return fmt.Sprintf("%06d", (step*7919+13)%1_000_000) }

func recHash(code string) []byte {
	h := sha256.Sum256([]byte(code))
	return h[:]
}

func attempt(code string) account.TOTPAttempt {
	a := account.TOTPAttempt{Code: code, CodeAt: fakeCode}
	if rc, ok := account.NormalizeRecoveryCode(code); ok {
		a.RecoveryHash = recHash(rc)
	}
	return a
}

// tnow is in the middle of a step, 12:00:15 UTC.
var tnow = time.Date(2026, 3, 1, 12, 0, 15, 0, time.UTC)

func enabled(lastStep int64, recovery ...string) *account.TOTP {
	c := t0
	t := &account.TOTP{SealedSecret: []byte("sealed"), ConfirmedAt: &c, LastStep: lastStep}
	for _, r := range recovery {
		t.Recovery = append(t.Recovery, recHash(r))
	}
	return t
}

func TestTOTPMatch(t *testing.T) {
	t.Parallel()
	cur := account.TOTPStep(tnow)
	tests := []struct {
		name     string
		totp     *account.TOTP
		code     string
		ok       bool
		step     int64
		recovery bool
	}{
		{"current step", enabled(0), fakeCode(cur), true, cur, false},
		{"one step behind (drift)", enabled(0), fakeCode(cur - 1), true, cur - 1, false},
		{"one step ahead (drift)", enabled(0), fakeCode(cur + 1), true, cur + 1, false},
		{"two steps behind", enabled(0), fakeCode(cur - 2), false, 0, false},
		{"two steps ahead", enabled(0), fakeCode(cur + 2), false, 0, false},
		{"replay of the last used step", enabled(cur), fakeCode(cur), false, 0, false},
		{"a step before the last used one, inside the window", enabled(cur), fakeCode(cur - 1), false, 0, false},
		{"the step after the last used one", enabled(cur), fakeCode(cur + 1), true, cur + 1, false},
		{"wrong digits", enabled(0), "000000", fakeCode(cur) == "000000", cur, false},
		{"five digits", enabled(0), fakeCode(cur)[:5], false, 0, false},
		{"seven digits", enabled(0), fakeCode(cur) + "1", false, 0, false},
		{"letters", enabled(0), "12a456", false, 0, false},
		{"empty", enabled(0), "", false, 0, false},
		{"recovery code", enabled(0, "abcde12345", "zzzzz00000"), "zzzzz00000", true, 0, true},
		{"recovery code typed loosely", enabled(0, "abcde12345"), "ABCDE-12345", true, 0, true},
		{"unknown recovery code", enabled(0, "abcde12345"), "abcde12346", false, 0, false},
		{"no enrolment", nil, fakeCode(cur), false, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			m, ok := tt.totp.Match(attempt(tt.code), tnow)
			is.Equal(ok, tt.ok) // accepted
			if ok {
				is.Equal(m.Recovery, tt.recovery) // kind
				if !tt.recovery {
					is.Equal(m.Step, tt.step) // step
				}
			}
		})
	}
}

func TestTOTPUseSpendsOnce(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	cur := account.TOTPStep(tnow)
	tp := enabled(0, "aaaaa11111", "bbbbb22222", "ccccc33333")
	m, ok := tp.Match(attempt("bbbbb22222"), tnow)
	is.True(ok) // a recovery code
	tp.Use(m)
	is.Equal(len(tp.Recovery), 2) // spent
	_, ok = tp.Match(attempt("bbbbb22222"), tnow)
	is.True(!ok) // not twice
	for _, c := range []string{"aaaaa11111", "ccccc33333"} {
		_, ok = tp.Match(attempt(c), tnow)
		is.True(ok) // the others still work
	}
	is.Equal(tp.LastStep, int64(0)) // a recovery code uses no step

	m, ok = tp.Match(attempt(fakeCode(cur)), tnow)
	is.True(ok)
	tp.Use(m)
	is.Equal(tp.LastStep, cur) // the app code's step is used
	_, ok = tp.Match(attempt(fakeCode(cur)), tnow)
	is.True(!ok) // replay refused
	_, ok = tp.Match(attempt(fakeCode(cur)), tnow.Add(29*time.Second))
	is.True(!ok) // still refused in the next step's window
}

func TestTOTPConfirm(t *testing.T) {
	t.Parallel()
	cur := account.TOTPStep(tnow)
	hashes := [][]byte{recHash("aaaaa11111")}
	tests := []struct {
		name string
		totp *account.TOTP
		code string
		ok   bool
	}{
		{"current code", &account.TOTP{}, fakeCode(cur), true},
		{"drifted code", &account.TOTP{}, fakeCode(cur - 1), true},
		{"wrong code", &account.TOTP{}, fakeCode(cur - 2), false},
		{"a recovery code cannot confirm", &account.TOTP{Recovery: hashes}, "aaaaa11111", false},
		{"already confirmed", enabled(0), fakeCode(cur), false},
		{"nothing pending", nil, fakeCode(cur), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			ok := tt.totp.Confirm(attempt(tt.code), hashes, tnow)
			is.Equal(ok, tt.ok)
			if ok {
				is.True(tt.totp.Enabled())                        // on
				is.Equal(*tt.totp.ConfirmedAt, tnow)              // when
				is.True(tt.totp.LastStep >= cur-1)                // the confirming step counts as used
				is.Equal(tt.totp.Status().RecoveryCodesLeft, 1)   // the new recovery codes
				_, again := tt.totp.Match(attempt(tt.code), tnow) // the confirming code is spent
				is.True(!again)
			}
		})
	}
}

func TestRecoveryCodes(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	code := account.NewRecoveryCode(bytes.Repeat([]byte{0xff, 0x00, 0x1f, 0x10, 0x3a}, 2))
	is.Equal(code, "z0zgtz0zgt") // 5 bits per character, Crockford alphabet
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"z0zgtz0zgt", "z0zgtz0zgt", true},
		{"Z0ZGT-Z0ZGT", "z0zgtz0zgt", true},
		{" z0zgt z0zgt ", "z0zgtz0zgt", true},
		{"zOzgtzozgt", "z0zgtz0zgt", true}, // o read as 0
		{"1ilIL00000", "1111100000", true}, // i and l read as 1
		{"z0zgtz0zg", "", false},           // 9 characters
		{"z0zgtz0zgtz", "", false},         // 11
		{"z0zgtz0zgu", "", false},          // u is not in the alphabet
		{"z0zgtz0zg!", "", false},
		{"z0zgtz0zgé", "", false},
		{"123456", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := account.NormalizeRecoveryCode(tt.in)
		is.Equal(ok, tt.ok) // accepted
		is.Equal(got, tt.want)
	}
}

func TestLoginWithTOTP(t *testing.T) {
	t.Parallel()
	cur := account.TOTPStep(tnow)
	otp := account.OTPPolicy{TTL: 5 * time.Minute, MaxAttempts: 5}
	lock := account.LockoutPolicy{Threshold: 3, Duration: 15 * time.Minute}
	newState := func() *account.LoginState {
		return &account.LoginState{
			Credentials: account.Credentials{UserID: 1, Active: true, TOTPEnabled: true},
			// An emailed code would be wrong here: with an app it is not a second factor.
			OTP:  account.OTPState{CodeHash: []byte("h"), ExpiresAt: tnow.Add(time.Minute)},
			TOTP: enabled(0, "aaaaa11111"),
		}
	}
	t.Run("app code", func(t *testing.T) {
		is := is.New(t)
		st := newState()
		is.True(account.Login(otp, lock, st, account.LoginInput{PasswordOK: true, TOTP: attempt(fakeCode(cur))}, tnow))
		is.Equal(st.TOTP.LastStep, cur) // step used
		is.True(!account.Login(otp, lock, st, account.LoginInput{PasswordOK: true, TOTP: attempt(fakeCode(cur))}, tnow))
		is.Equal(st.Credentials.FailedLogins, 1) // the replay counts as a failure
	})
	t.Run("the emailed code does not work", func(t *testing.T) {
		is := is.New(t)
		st := newState()
		is.True(!account.Login(otp, lock, st, account.LoginInput{PasswordOK: true, OTPHash: []byte("h"), TOTP: attempt("")}, tnow))
	})
	t.Run("wrong password does not spend the code", func(t *testing.T) {
		is := is.New(t)
		st := newState()
		is.True(!account.Login(otp, lock, st, account.LoginInput{PasswordOK: false, TOTP: attempt("aaaaa11111")}, tnow))
		is.Equal(len(st.TOTP.Recovery), 1) // kept
		is.True(account.Login(otp, lock, st, account.LoginInput{PasswordOK: true, TOTP: attempt("aaaaa11111")}, tnow))
		is.Equal(len(st.TOTP.Recovery), 0) // spent by the success
	})
	t.Run("wrong codes lock the account", func(t *testing.T) {
		is := is.New(t)
		st := newState()
		for i := 0; i < 3; i++ {
			is.True(!account.Login(otp, lock, st, account.LoginInput{PasswordOK: true, TOTP: attempt(fakeCode(cur - 5))}, tnow))
		}
		is.Equal(st.Credentials.LockedUntil, tnow.Add(15*time.Minute)) // locked
		is.True(!account.Login(otp, lock, st, account.LoginInput{PasswordOK: true, TOTP: attempt(fakeCode(cur))}, tnow))
		is.Equal(st.TOTP.LastStep, int64(0)) // nothing spent while locked
	})
}

func TestDisable(t *testing.T) {
	t.Parallel()
	cur := account.TOTPStep(tnow)
	lock := account.LockoutPolicy{Threshold: 2, Duration: time.Minute}
	tests := []struct {
		name       string
		passwordOK bool
		code       string
		locked     bool
		ok         bool
	}{
		{"password and app code", true, fakeCode(cur), false, true},
		{"password and recovery code", true, "aaaaa11111", false, true},
		{"wrong password", false, fakeCode(cur), false, false},
		{"wrong code", true, fakeCode(cur - 3), false, false},
		{"replayed step", true, fakeCode(cur - 1), false, false},
		{"locked", true, fakeCode(cur), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			st := &account.TOTPAccount{Credentials: account.Credentials{Active: true}, TOTP: enabled(cur-1, "aaaaa11111")}
			if tt.locked {
				st.Credentials.LockedUntil = tnow.Add(time.Second)
			}
			ok := account.Disable(lock, st, tt.passwordOK, attempt(tt.code), "mine", tnow)
			is.Equal(ok, tt.ok)
			if ok {
				is.True(st.TOTP == nil)          // removed
				is.True(st.RevokeSessions)       // other sessions end
				is.Equal(st.KeepSession, "mine") // but not the caller's
				return
			}
			is.True(st.TOTP != nil) // kept
			if !tt.locked {
				is.Equal(st.Credentials.FailedLogins, 1) // counts toward the lockout
			}
		})
	}
}

// FuzzTOTPCheck throws arbitrary codes, times and last steps at the second
// factor check: it never panics, never accepts a step outside the window
// or at or before the last used one, and accepts a recovery code only if
// its hash is held.
func FuzzTOTPCheck(f *testing.F) {
	f.Add("123456", int64(1_700_000_000), int64(0))
	f.Add("aaaaa11111", int64(0), int64(-1))
	f.Add("AAAAA-11111", int64(59), int64(1))
	f.Add("", int64(-1), int64(1<<62))
	f.Add("0000000000", int64(1<<40), int64(1<<35))
	f.Fuzz(func(t *testing.T, code string, unix, last int64) {
		if unix < -1<<40 || unix > 1<<40 {
			unix %= 1 << 40
		}
		now := time.Unix(unix, 0)
		tp := enabled(last, "aaaaa11111")
		cur := account.TOTPStep(now)
		// Make the code valid for some step near now, sometimes.
		if len(code) > 0 && code[0] == '#' {
			code = fakeCode(cur + int64(len(code)%5) - 2)
		}
		m, ok := tp.Match(attempt(code), now)
		if !ok {
			return
		}
		if m.Recovery {
			rc, valid := account.NormalizeRecoveryCode(code)
			if !valid || rc != "aaaaa11111" {
				t.Fatalf("recovery code %q accepted", code)
			}
			tp.Use(m)
			if _, again := tp.Match(attempt(code), now); again {
				t.Fatalf("recovery code %q accepted twice", code)
			}
			return
		}
		if m.Step < cur-account.TOTPSkew || m.Step > cur+account.TOTPSkew || m.Step <= last {
			t.Fatalf("step %d accepted at step %d after last %d", m.Step, cur, last)
		}
		if fakeCode(m.Step) != code {
			t.Fatalf("code %q accepted for step %d whose code is %s", code, m.Step, fakeCode(m.Step))
		}
		tp.Use(m)
		if _, again := tp.Match(attempt(code), now); again {
			t.Fatalf("code %q replayed", code)
		}
	})
}
