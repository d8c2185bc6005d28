package app_test

import (
	"fmt"
	"testing"

	"counsel/app/apptest"
	"counsel/domain/account"

	"github.com/matryer/is"
)

// TestLastAdministratorRule drives every way of losing the last system
// administrator through HTTP: the rule (account.KeepAnAdmin) is the use
// case's, run by the store inside the change's transaction, on either
// engine.
func TestLastAdministratorRule(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	_, deleter := s.User(t, account.UsersDelete)
	var roles []struct{ ID int64 }
	s.Do(t, "GET", "/api/users/1/roles", admin, nil).JSON(t, &roles)
	if len(roles) != 1 {
		t.Fatalf("the administrator holds %d roles", len(roles))
	}
	adminRole := fmt.Sprintf("/api/roles/%d", roles[0].ID)
	tests := []struct {
		name, method, path, token string
		body                      any
		detail                    string
	}{
		{"take the role", "DELETE", fmt.Sprintf("/api/users/1/roles/%d", roles[0].ID), admin, nil, account.LastAdminRole},
		{"unmake the role", "PUT", adminRole, admin, map[string]any{"isSystemAdmin": false}, account.LastAdminRole},
		{"delete the role", "DELETE", adminRole, admin, nil, account.LastAdminRole},
		{"deactivate", "PUT", "/api/users/1", admin, map[string]any{"active": false}, account.LastAdminChange},
		{"replace the roles", "PUT", "/api/users/1", admin, map[string]any{"roleIds": []int64{}}, account.LastAdminChange},
		{"delete the user", "DELETE", "/api/users/1", deleter, nil, account.LastAdminDeleted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, tt.method, tt.path, tt.token, tt.body)
			is.Equal(r.Status, 409)
			is.Equal(r.Map(t)["detail"], tt.detail)
		})
	}
	is := is.New(t)
	// The administrator is intact, and with a second one the first may go.
	var me struct{ Active bool }
	s.Do(t, "GET", "/api/users/1", admin, nil).JSON(t, &me)
	is.True(me.Active)
	second, _ := s.User(t)
	is.Equal(s.Do(t, "POST", fmt.Sprintf("/api/users/%d/roles/%d", second, roles[0].ID), admin, nil).Status/100, 2)
	is.Equal(s.Do(t, "DELETE", fmt.Sprintf("/api/users/1/roles/%d", roles[0].ID), admin, nil).Status/100, 2)
}
