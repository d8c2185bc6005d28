package user

import (
	"strconv"

	"counsel/domain"
	"counsel/domain/account"
)

// RoleLookup finds roles in the transaction that saves an Aggregate. A
// role it returns stays as returned until that transaction ends, so a rule
// decided on it still holds at commit. Both answer ENOTFOUND for an
// unknown role.
type RoleLookup interface {
	Role(id int64) (account.Role, error)
	RoleNamed(name string) (account.Role, error)
}

// Aggregate is a user with what the rules of creating, changing and
// deleting users decide on, as a store reads it in the transaction that
// saves the change: the user, the roles they hold, and how many other
// active, undeleted users hold a system-admin role. A store saves User and,
// when SetRoles was called, the new roles; the rules (CheckTakeover,
// GiveRoles, KeepAnAdmin) run in the use case's function between the two.
type Aggregate struct {
	// User is the user as the change leaves them (ID 0 for a new user).
	User User
	// OtherAdmins counts the active, undeleted users other than User
	// holding a system-admin role.
	OtherAdmins int

	held     []account.Role // the roles held when loaded
	was      User           // User when loaded
	roles    []account.Role // the roles after SetRoles
	newRoles *[]int64       // nil: the roles are unchanged
	deleted  bool
	lookup   RoleLookup
}

// NewAggregate returns the aggregate of u, who holds roles, with
// otherAdmins other administrators; lookup finds roles to give. A new user
// (ID 0) holds no roles and gets the default roles unless SetRoles gives
// others.
func NewAggregate(u User, roles []account.Role, otherAdmins int, lookup RoleLookup) *Aggregate {
	return &Aggregate{User: u, OtherAdmins: otherAdmins, held: roles, was: u, roles: roles, lookup: lookup}
}

// Roles returns the roles the user holds as the change leaves them.
func (a *Aggregate) Roles() []account.Role { return a.roles }

// Held returns the roles the user held before the change.
func (a *Aggregate) Held() []account.Role { return a.held }

// NewRoleIDs returns the ids of the roles SetRoles gave, or nil when the
// roles stay as they were (for a new user: the default roles).
func (a *Aggregate) NewRoleIDs() *[]int64 { return a.newRoles }

// Deleted reports whether the change deletes the user.
func (a *Aggregate) Deleted() bool { return a.deleted }

// Delete marks the user deleted: they no longer count as an administrator.
func (a *Aggregate) Delete() { a.deleted = true }

// SetRoles makes rs the user's roles.
func (a *Aggregate) SetRoles(rs []account.Role) {
	ids := make([]int64, 0, len(rs))
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	a.roles, a.newRoles = rs, &ids
}

// LookupRoles finds the roles ids: EINVALID for malformed ids
// (ValidateRoleIDs), ENOTFOUND naming the first unknown one.
func (a *Aggregate) LookupRoles(ids []int64) ([]account.Role, error) {
	if err := ValidateRoleIDs(&ids); err != nil {
		return nil, err
	}
	out := make([]account.Role, 0, len(ids))
	for _, id := range ids {
		r, err := a.lookup.Role(id)
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			return nil, domain.Errorf(domain.ENOTFOUND, "role %d not found", id)
		} else if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// LookupRoleNames finds the roles named: EINVALID (field "roles") naming
// the first unknown one.
func (a *Aggregate) LookupRoleNames(names []string) ([]account.Role, error) {
	out := make([]account.Role, 0, len(names))
	for _, n := range names {
		r, err := a.lookup.RoleNamed(n)
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			return nil, domain.Invalid(map[string][]string{"roles": {"unknown role " + strconv.Quote(n)}})
		} else if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// GiveRoleNames gives the user the roles named, as the command line names
// them (none: the roles stay as they are, for a new user the default
// roles); EINVALID (field "roles") for an unknown one.
func (a *Aggregate) GiveRoleNames(names []string) error {
	if len(names) == 0 {
		return nil
	}
	rs, err := a.LookupRoleNames(names)
	if err != nil {
		return err
	}
	a.SetRoles(rs)
	return nil
}

// CheckTakeover refuses p changing another user whose roles grant more
// than p holds (account.CheckTakeover), on the roles held before the
// change.
func (a *Aggregate) CheckTakeover(p account.Principal) error {
	if a.was.ID == 0 {
		return nil
	}
	return account.CheckTakeover(p, a.was.ID, a.held)
}

// GiveRoles replaces the user's roles with those ids on behalf of p: the
// ids must be well formed (EINVALID) and exist (ENOTFOUND), and each role
// not held already must be one p may give (account.CheckAssignRole,
// EFORBIDDEN): holding UsersCreate or UsersEdit must not be a way to make
// an administrator or to hand out permissions p lacks.
func (a *Aggregate) GiveRoles(p account.Principal, ids []int64) error {
	rs, err := a.LookupRoles(ids)
	if err != nil {
		return err
	}
	has := map[int64]bool{}
	for _, r := range a.held {
		has[r.ID] = true
	}
	for _, r := range rs {
		if has[r.ID] {
			continue
		}
		if err := account.CheckAssignRole(p, r); err != nil {
			return err
		}
	}
	a.SetRoles(rs)
	return nil
}

// Admins returns the active system administrators before and after the
// change.
func (a *Aggregate) Admins() account.AdminCount {
	c := account.AdminCount{Before: a.OtherAdmins, After: a.OtherAdmins}
	if a.was.ID != 0 && a.was.Active && account.AnySystemAdmin(a.held) {
		c.Before++
	}
	if !a.deleted && a.User.Active && account.AnySystemAdmin(a.roles) {
		c.After++
	}
	return c
}

// KeepAnAdmin is the last-administrator rule (account.KeepAnAdmin) on the
// change: ECONFLICT with msg when it leaves no active system
// administrator where there was one.
func (a *Aggregate) KeepAnAdmin(msg string) error {
	return account.KeepAnAdmin(msg)(a.Admins())
}
