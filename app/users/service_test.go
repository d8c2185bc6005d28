package users

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/user"
	"counsel/ports"
	"counsel/ports/porttest"
)

// txStore is a UserStore whose transaction sees roles (held, byID) that
// differ from what RoleLookup answered before it: as if a role had been
// given, made an administrator's or deleted between a check made before
// the store's transaction and the write.
type txStore struct {
	ports.UserStore
	held    []account.Role
	byID    map[int64]account.Role
	written bool
}

func (s *txStore) Role(id int64) (account.Role, error) {
	r, ok := s.byID[id]
	if !ok {
		return r, domain.Errorf(domain.ENOTFOUND, "role not found")
	}
	return r, nil
}

func (s *txStore) RoleNamed(string) (account.Role, error) {
	return account.Role{}, domain.Errorf(domain.ENOTFOUND, "role not found")
}

func (s *txStore) CreateUser(_ context.Context, u user.User, _ string, fn func(*user.Aggregate) error) (user.Profile, error) {
	if err := fn(user.NewAggregate(u, nil, 1, s)); err != nil {
		return user.Profile{}, err
	}
	s.written = true
	return user.Profile{User: u}, nil
}

func (s *txStore) UpdateUser(_ context.Context, id int64, fn func(*user.Aggregate) error) (user.Profile, error) {
	u := user.New()
	u.ID, u.Email, u.LastName = id, "t@example.com", "T"
	a := user.NewAggregate(u, s.held, 1, s)
	if err := fn(a); err != nil {
		return user.Profile{}, err
	}
	s.written = true
	return user.Profile{User: a.User}, nil
}

// staleRoles is what was true before the store's transaction: the target
// holds no role.
type staleRoles struct{}

func (staleRoles) UserRoles(context.Context, int64) ([]account.Role, error) { return nil, nil }

// TestRoleChecksSeeTheTransaction shows that creating and changing users
// decides on the roles as the store's transaction reads them, not on an
// earlier read: a change made in between cannot slip past.
func TestRoleChecksSeeTheTransaction(t *testing.T) {
	t.Parallel()
	admin := account.Role{ID: 1, Name: "Administrator", IsSystemAdmin: true, Permissions: account.AllPermissionSet}
	clerk := account.Role{ID: 3, Name: "Clerk", Permissions: account.NewPermissionSet(account.UsersView)}
	editor := account.Principal{UserID: 7, Permissions: account.NewPermissionSet(account.UsersView, account.UsersCreate, account.UsersEdit)}
	name := "New"
	tests := []struct {
		name   string
		create bool
		held   []account.Role // the target's roles in the transaction
		byID   map[int64]account.Role
		roles  *[]int64
		code   string
		detail string
	}{
		{name: "target made an administrator meanwhile", held: []account.Role{admin}, code: domain.EFORBIDDEN,
			detail: "only a system administrator may change another system administrator"},
		{name: "role made an administrator's meanwhile", byID: map[int64]account.Role{1: admin}, roles: &[]int64{1}, code: domain.EFORBIDDEN,
			detail: "only a system administrator may give the role Administrator"},
		{name: "role deleted meanwhile", byID: map[int64]account.Role{}, roles: &[]int64{3}, code: domain.ENOTFOUND, detail: "role 3 not found"},
		{name: "held role kept", held: []account.Role{clerk}, byID: map[int64]account.Role{3: clerk}, roles: &[]int64{3}},
		{name: "malformed role ids", roles: &[]int64{0}, code: domain.EINVALID},
		{name: "create with a role made an administrator's meanwhile", create: true, byID: map[int64]account.Role{1: admin}, roles: &[]int64{1},
			code: domain.EFORBIDDEN, detail: "only a system administrator may give the role Administrator"},
		{name: "create", create: true, byID: map[int64]account.Role{3: clerk}, roles: &[]int64{3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			store := &txStore{held: tt.held, byID: tt.byID}
			svc := New(Deps{Store: store, Roles: staleRoles{}, Clock: porttest.NewClock(porttest.T0)})
			ctx := account.NewContext(context.Background(), editor)
			in := user.Input{Patch: user.Patch{FirstName: &name}, RoleIDs: tt.roles}
			var err error
			if tt.create {
				email := "new@example.com"
				in.Patch.LastName, in.Patch.Email = &name, &email
				_, err = svc.CreateUser(ctx, in)
			} else {
				_, err = svc.UpdateUser(ctx, 42, in)
			}
			is.Equal(domain.ErrorCode(err), tt.code)
			if tt.detail != "" {
				is.Equal(domain.ErrorMessage(err), tt.detail)
			}
			is.Equal(store.written, tt.code == "") // refused: nothing written
		})
	}
}

// txWriter is the accounts service as the users module sees it: it
// passes the check to a store whose transaction reads held as the
// target's roles.
type txWriter struct {
	held    []account.Role
	written bool
}

func (w *txWriter) write(check account.RoleCheck) error {
	if err := check(w.held, func(int64) (account.Role, error) { return account.Role{}, nil }); err != nil {
		return err
	}
	w.written = true
	return nil
}

func (w *txWriter) SetPassword(_ context.Context, _ int64, _ string, check account.RoleCheck) error {
	return w.write(check)
}

func (w *txWriter) ResetTOTP(_ context.Context, _ int64, _ string, check account.RoleCheck) error {
	return w.write(check)
}

// TestTakeoverCheckSeesTheTransaction shows that password and
// authenticator resets decide on the target's roles as the store's
// transaction reads them: a target made an administrator after the early
// read (guardTakeover) is still refused, and nothing is written.
func TestTakeoverCheckSeesTheTransaction(t *testing.T) {
	t.Parallel()
	admin := account.Role{ID: 1, Name: "Administrator", IsSystemAdmin: true, Permissions: account.AllPermissionSet}
	editor := account.Principal{UserID: 7, Permissions: account.NewPermissionSet(account.UsersView, account.UsersEdit)}
	tests := []struct {
		name string
		totp bool
		held []account.Role
		code string
	}{
		{name: "password of a target made an administrator meanwhile", held: []account.Role{admin}, code: domain.EFORBIDDEN},
		{name: "authenticator of a target made an administrator meanwhile", totp: true, held: []account.Role{admin}, code: domain.EFORBIDDEN},
		{name: "password of a plain user"},
		{name: "authenticator of a plain user", totp: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			w := &txWriter{held: tt.held}
			svc := New(Deps{Store: &txStore{}, Roles: staleRoles{}, Clock: porttest.NewClock(porttest.T0), Passwords: w, TOTP: w})
			ctx := account.NewContext(context.Background(), editor)
			var err error
			if tt.totp {
				err = svc.ResetTOTP(ctx, 42)
			} else {
				err = svc.ChangePassword(ctx, 42, "a long enough passphrase", "")
			}
			is.Equal(domain.ErrorCode(err), tt.code)
			if tt.code != "" {
				is.Equal(domain.ErrorMessage(err), "only a system administrator may change another system administrator")
			}
			is.Equal(w.written, tt.code == "") // refused: nothing written
		})
	}
}
