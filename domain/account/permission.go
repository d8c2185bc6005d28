package account

import (
	"context"
	"strings"
	"time"

	"counsel/domain"
)

// Permission is one named right. Permissions are kept as a bit set so that
// checking one on every request costs a mask operation.
type Permission uint8

// The permissions of docs/decisions.md §3, in their documented order.
const (
	UsersView Permission = iota
	UsersCreate
	UsersEdit
	UsersDelete
	RemunerationsCreate
	RemunerationsEdit
	RolesView
	RolesCreate
	RolesEdit
	RolesDelete
	PermissionsView
	OfficesEdit
	OfferingsEdit
	ContractView
	ContractCreate
	ContractEdit
	ContractDelete
	// AuditView reads the security and administration events
	// (docs/decisions.md §18).
	AuditView
	// WebhooksManage manages the outbound webhook subscriptions and reads
	// their deliveries (docs/decisions.md §17).
	WebhooksManage
	numPermissions
)

var permissionNames = [numPermissions]string{
	"UsersView", "UsersCreate", "UsersEdit", "UsersDelete",
	"RemunerationsCreate", "RemunerationsEdit",
	"RolesView", "RolesCreate", "RolesEdit", "RolesDelete",
	"PermissionsView", "OfficesEdit", "OfferingsEdit",
	"ContractView", "ContractCreate", "ContractEdit", "ContractDelete",
	"AuditView",
	"WebhooksManage",
}

// Area is the permissions of one area of the firm's work, as role forms
// group them.
type Area struct {
	Name        string
	Permissions []Permission
}

// areas holds every permission exactly once, in the documented order
// (TestAreasHoldEveryPermission).
var areas = []Area{
	{"Users", []Permission{UsersView, UsersCreate, UsersEdit, UsersDelete}},
	{"Pay records", []Permission{RemunerationsCreate, RemunerationsEdit}},
	{"Roles and permissions", []Permission{RolesView, RolesCreate, RolesEdit, RolesDelete, PermissionsView}},
	{"Offices and offerings", []Permission{OfficesEdit, OfferingsEdit}},
	{"Contracts", []Permission{ContractView, ContractCreate, ContractEdit, ContractDelete}},
	{"Security", []Permission{AuditView}},
	{"Integrations", []Permission{WebhooksManage}},
}

// Areas returns the permissions grouped by area.
func Areas() []Area { return areas }

// String returns the permission's wire name.
func (p Permission) String() string {
	if p < numPermissions {
		return permissionNames[p]
	}
	return "Unknown"
}

// ParsePermission finds a permission by name, ignoring case.
func ParsePermission(name string) (Permission, bool) {
	for i, n := range permissionNames {
		if strings.EqualFold(n, name) {
			return Permission(i), true
		}
	}
	return 0, false
}

// AllPermissions lists every permission in documented order.
func AllPermissions() []Permission {
	all := make([]Permission, numPermissions)
	for i := range all {
		all[i] = Permission(i)
	}
	return all
}

// PermissionSet is a set of permissions.
type PermissionSet uint64

// AllPermissionSet is the set a system administrator holds.
const AllPermissionSet = PermissionSet(1<<numPermissions - 1)

// NewPermissionSet returns the set of ps.
func NewPermissionSet(ps ...Permission) PermissionSet {
	var s PermissionSet
	for _, p := range ps {
		s |= 1 << p
	}
	return s
}

// Has reports whether p is in the set.
func (s PermissionSet) Has(p Permission) bool { return s&(1<<p) != 0 }

// HasAll reports whether every permission of o is in the set.
func (s PermissionSet) HasAll(o PermissionSet) bool { return s&o == o }

// List returns the set's permissions in documented order.
func (s PermissionSet) List() []Permission {
	var out []Permission
	for _, p := range AllPermissions() {
		if s.Has(p) {
			out = append(out, p)
		}
	}
	return out
}

// Names returns the set's permission names in documented order.
func (s PermissionSet) Names() []string {
	out := []string{}
	for _, p := range s.List() {
		out = append(out, p.String())
	}
	return out
}

// Role is a named set of permissions given to users.
type Role struct {
	ID            int64
	Name          string
	IsSystemAdmin bool // holds every permission, whatever its set says
	IsDefaultRole bool // given to users created without explicit roles
	Permissions   PermissionSet
}

// Effective returns the permissions the role grants.
func (r Role) Effective() PermissionSet {
	if r.IsSystemAdmin {
		return AllPermissionSet
	}
	return r.Permissions
}

// Access is what a holder of roles may do: the union of the permissions
// the roles grant (Role.Effective), and whether one of them is a
// system-admin role, whose holder holds every permission. Every principal
// (session, console session, API key's creator) is computed from it.
func Access(roles []Role) (PermissionSet, bool) {
	var set PermissionSet
	admin := false
	for _, r := range roles {
		set |= r.Effective()
		admin = admin || r.IsSystemAdmin
	}
	return set, admin
}

// AnySystemAdmin reports whether one of roles is a system-admin role.
func AnySystemAdmin(roles []Role) bool {
	_, admin := Access(roles)
	return admin
}

// Bootstrap role names created on first start.
const (
	AdministratorRole = "Administrator"
	StaffRole         = "Staff"
)

// BuiltinRoles are the roles every database starts with: Administrator, a
// system-admin role (every permission), and Staff, the default role, which
// may view contracts. A store creates them (IDs 0 here) when no role
// exists.
func BuiltinRoles() []Role {
	return []Role{
		{Name: AdministratorRole, IsSystemAdmin: true, Permissions: AllPermissionSet},
		{Name: StaffRole, IsDefaultRole: true, Permissions: NewPermissionSet(ContractView)},
	}
}

// Principal is the authenticated caller of a request.
type Principal struct {
	UserID      int64
	SessionID   string
	Permissions PermissionSet
	// SystemAdmin is true when one of the caller's roles is a system-admin role.
	SystemAdmin bool
	// AuthenticatedAt is when the caller's session last signed in or
	// re-authenticated (CheckRecentAuth).
	AuthenticatedAt time.Time
	// APIKeyID is the API key the request carried, 0 for a session
	// (SessionID set). A key's principal holds the key's permissions that
	// its creator still holds (APIKey.Principal) and never changes the
	// account (CheckNotAPIKey).
	APIKeyID int64
}

// ViaAPIKey reports whether the caller authenticated with an API key
// rather than a session.
func (p Principal) ViaAPIKey() bool { return p.APIKeyID != 0 }

// Can reports whether the principal holds p.
func (p Principal) Can(perm Permission) bool { return p.Permissions.Has(perm) }

type principalKey struct{}

// NewContext returns ctx carrying p.
func NewContext(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// Require returns the caller in ctx, EUNAUTHORIZED without one and
// EFORBIDDEN when the caller lacks any of perms. Every use case starts
// with it: authorization is checked in the use case as well as on the
// route.
func Require(ctx context.Context, perms ...Permission) (Principal, error) {
	p, ok := FromContext(ctx)
	if !ok {
		return p, &domain.Error{Code: domain.EUNAUTHORIZED, Message: "authentication required"}
	}
	for _, perm := range perms {
		if !p.Can(perm) {
			return p, &domain.Error{Code: domain.EFORBIDDEN, Message: "this requires the " + perm.String() + " permission"}
		}
	}
	return p, nil
}

// FromContext returns the principal in ctx, if any.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
