package account_test

import (
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/account"
)

func TestNormalizePasskeyName(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"Work laptop", "Work laptop", true},
		{"  Phone\t", "Phone", true},
		{"Ordinateur portable d'Élodie", "Ordinateur portable d'Élodie", true},
		{strings.Repeat("é", 100), strings.Repeat("é", 100), true},
		{strings.Repeat("é", 101), "", false},
		{"", "", false},
		{"   ", "", false},
		{"two\nlines", "", false},
		{"bell\x07", "", false},
		{"bad \xff utf-8", "", false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			is := is.New(t)
			got, err := account.NormalizePasskeyName(tc.in)
			if !tc.ok {
				is.Equal(domain.ErrorCode(err), domain.EINVALID) // refused
				return
			}
			is.NoErr(err)
			is.Equal(got, tc.want) // trimmed
		})
	}
}

func TestSignCountAdvances(t *testing.T) {
	for _, tc := range []struct {
		stored, got uint32
		ok          bool
	}{
		{0, 0, true},  // an authenticator that keeps no counter
		{0, 1, true},  // the first use of one that does
		{5, 6, true},  // grows
		{5, 9, true},  // by any step
		{5, 5, false}, // repeated: a replay or a clone
		{5, 4, false}, // backwards
		{5, 0, false}, // back to zero
	} {
		if got := account.SignCountAdvances(tc.stored, tc.got); got != tc.ok {
			t.Errorf("SignCountAdvances(%d, %d) = %v, want %v", tc.stored, tc.got, got, tc.ok)
		}
	}
}

func TestPasskeyLogin(t *testing.T) {
	now := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	lock := account.LockoutPolicy{Threshold: 3, Duration: 15 * time.Minute}
	st := func(active bool, failed int, lockedUntil time.Time) *account.LoginState {
		return &account.LoginState{Credentials: account.Credentials{Active: active, FailedLogins: failed, LockedUntil: lockedUntil}}
	}
	t.Run("a verified assertion of an active user succeeds and resets the count", func(t *testing.T) {
		is := is.New(t)
		s := st(true, 2, time.Time{})
		is.True(account.PasskeyLogin(lock, s, true, now))
		is.Equal(s.Credentials.FailedLogins, 0)
	})
	t.Run("a failed assertion counts and locks at the threshold", func(t *testing.T) {
		is := is.New(t)
		s := st(true, 2, time.Time{})
		is.True(!account.PasskeyLogin(lock, s, false, now))
		is.True(s.Credentials.LockedUntil.Equal(now.Add(15 * time.Minute))) // locked
	})
	t.Run("an inactive user fails and counts", func(t *testing.T) {
		is := is.New(t)
		s := st(false, 0, time.Time{})
		is.True(!account.PasskeyLogin(lock, s, true, now))
		is.Equal(s.Credentials.FailedLogins, 1)
	})
	t.Run("a locked account fails whatever the assertion", func(t *testing.T) {
		is := is.New(t)
		s := st(true, 0, now.Add(time.Minute))
		is.True(!account.PasskeyLogin(lock, s, true, now))
		is.True(s.Credentials.LockedUntil.Equal(now.Add(time.Minute))) // unchanged
	})
}
