package account

import (
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/domain"
)

func TestNewAPIKeyCheck(t *testing.T) {
	now := time.Date(2026, 2, 28, 12, 0, 0, 0, time.UTC)
	caller := Principal{UserID: 7, Permissions: NewPermissionSet(ContractView, ContractEdit, UsersView)}
	at := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	year := now.AddDate(1, 0, 0)
	for _, c := range []struct {
		name string
		in   NewAPIKey
		code string
		want PermissionSet
		msg  string
	}{
		{"subset, any case", NewAPIKey{Name: "ci", Permissions: []string{"contractview", " UsersView "}}, "", NewPermissionSet(ContractView, UsersView), ""},
		{"none", NewAPIKey{Name: "ci"}, "", 0, ""},
		{"exactly a year", NewAPIKey{Name: "ci", ExpiresAt: &year}, "", 0, ""},
		{"missing ones named", NewAPIKey{Name: "ci", Permissions: []string{"ContractView", "RolesEdit", "UsersDelete"}}, domain.EFORBIDDEN, 0, "UsersDelete, RolesEdit"},
		{"unknown name", NewAPIKey{Name: "ci", Permissions: []string{"Root"}}, domain.EINVALID, 0, "Root"},
		{"no name", NewAPIKey{Name: " "}, domain.EINVALID, 0, "name"},
		{"control character", NewAPIKey{Name: "a\nb"}, domain.EINVALID, 0, "control"},
		{"101 characters", NewAPIKey{Name: strings.Repeat("é", 101)}, domain.EINVALID, 0, "100"},
		{"past", NewAPIKey{Name: "ci", ExpiresAt: at(-time.Second)}, domain.EINVALID, 0, "future"},
		{"now", NewAPIKey{Name: "ci", ExpiresAt: at(0)}, domain.EINVALID, 0, "future"},
		{"a year and a day", NewAPIKey{Name: "ci", ExpiresAt: at(367 * 24 * time.Hour)}, domain.EINVALID, 0, "one year"},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			got, err := c.in.Check(caller, now)
			is.Equal(domain.ErrorCode(err), c.code)
			if err != nil {
				msg := err.Error()
				var de *domain.Error
				if e, ok := err.(*domain.Error); ok {
					de = e
					for _, f := range de.Fields {
						msg += " " + strings.Join(f, " ")
					}
					for k := range de.Fields {
						msg += " " + k
					}
				}
				is.True(strings.Contains(msg, c.msg)) // the message says what is wrong
				return
			}
			is.Equal(got, c.want)
		})
	}
}

func TestAPIKeyPrincipal(t *testing.T) {
	is := is.New(t)
	now := time.Date(2026, 2, 28, 12, 0, 0, 0, time.UTC)
	exp := now.Add(time.Hour)
	k := APIKey{ID: 3, UserID: 7, Permissions: NewPermissionSet(ContractView, UsersView), ExpiresAt: &exp}
	p := k.Principal(NewPermissionSet(ContractView, RolesView), false)
	is.Equal(p.Permissions, NewPermissionSet(ContractView)) // the key ∩ the creator's
	is.True(p.ViaAPIKey() && p.SessionID == "" && p.AuthenticatedAt.IsZero())
	is.Equal(CheckNotAPIKey(p), ErrAPIKeyAccount)
	is.NoErr(CheckNotAPIKey(Principal{UserID: 7, SessionID: "s"}))
	is.True(!k.Principal(AllPermissionSet, true).SystemAdmin) // a narrow key of an administrator
	k.Permissions = AllPermissionSet
	is.True(k.Principal(AllPermissionSet, true).SystemAdmin)
	is.True(!k.Principal(AllPermissionSet, false).SystemAdmin)
	is.True(k.Usable(now))
	is.True(!k.Usable(exp))
	r := now
	k.RevokedAt = &r
	is.True(!k.Usable(now))
	is.True(IsAPIKey("cnsl_abc") && !IsAPIKey("eyJhbGciOi"))
	is.Equal(APIKeyPrefixOf("cnsl_abcdefghij"), "cnsl_abcde")
	is.Equal(len(HashAPIKey("cnsl_x")), 32)
}
