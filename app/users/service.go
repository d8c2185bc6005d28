// Package users is the user administration use case: the current user,
// user lists and reviewers, creating, changing and soft-deleting users,
// password changes, offices, and the reviewers of offerings. Every method
// checks the caller's permission itself, in addition to the route-level
// check of the HTTP adapter.
package users

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/audit"
	"counsel/domain/user"
	"counsel/domain/webhook"
	"counsel/ports"
)

// MaxLimit is the largest page a list returns (docs/decisions.md §1).
const MaxLimit = 100

// RoleLookup is the part of ports.RoleStore the service reads: which
// roles a user holds, before a password or authenticator change.
type RoleLookup interface {
	UserRoles(ctx context.Context, userID int64) ([]account.Role, error)
}

// Deps are the ports the service uses.
type Deps struct {
	Store ports.UserStore
	// Roles tells which roles a user holds.
	Roles RoleLookup
	// Hasher hashes the password of a new user.
	Hasher ports.PasswordHasher
	// Passwords changes passwords (the accounts service).
	Passwords ports.PasswordSetter
	Clock     ports.Clock
	// TOTP resets authenticator-app enrolments (the accounts service).
	TOTP ports.TOTPResetter
	// Passkeys removes a user's passkeys (the accounts service).
	Passkeys ports.PasskeyRemover
	// Recent is the rule of recent authentication before changing one's
	// own password (the accounts service).
	Recent RecentAuth
	// Sessions lists and ends other users' sessions (the accounts service).
	Sessions ports.SessionAdmin
	// Render renders a user as the API returns it, for the webhook event
	// of its deletion (read before it); nil: the event's data is the
	// user's id alone.
	Render func(ctx context.Context, v any) (json.RawMessage, error)
}

// RecentAuth is the part of ports.Reauthenticator the service calls.
type RecentAuth interface {
	RequireRecentAuth(ctx context.Context, currentPassword string) (account.Principal, error)
}

// Service implements ports.UserService.
type Service struct{ d Deps }

var _ ports.UserService = (*Service)(nil)

// New returns the user service.
func New(d Deps) *Service { return &Service{d: d} }

// Me implements ports.UserService.
func (s *Service) Me(ctx context.Context) (user.Profile, error) {
	p, err := account.Require(ctx)
	if err != nil {
		return user.Profile{}, err
	}
	prof, err := s.d.Store.Profile(ctx, p.UserID, false)
	if err != nil {
		return user.Profile{}, err
	}
	prof.ComputePQY(s.d.Clock.Now())
	return prof, nil
}

// MeFormatted implements ports.UserService.
func (s *Service) MeFormatted(ctx context.Context) (user.User, error) {
	p, err := account.Require(ctx)
	if err != nil {
		return user.User{}, err
	}
	return s.d.Store.User(ctx, p.UserID)
}

// Users implements ports.UserService.
func (s *Service) Users(ctx context.Context, f user.Filter) ([]user.User, int64, error) {
	if _, err := account.Require(ctx); err != nil {
		return nil, 0, err
	}
	if err := f.Prepare(MaxLimit); err != nil {
		return nil, 0, err
	}
	return s.d.Store.Users(ctx, f)
}

// User implements ports.UserService.
func (s *Service) User(ctx context.Context, id int64) (user.Profile, error) {
	if _, err := account.Require(ctx); err != nil {
		return user.Profile{}, err
	}
	prof, err := s.d.Store.Profile(ctx, id, true)
	if err != nil {
		return user.Profile{}, err
	}
	prof.ComputePQY(s.d.Clock.Now())
	return prof, nil
}

// roleCheck is the check a password or authenticator change runs, in
// the transaction that writes it, on the roles user id holds: a caller
// acting on another user whose roles grant more than the caller holds is
// refused (account.CheckTakeover): holding UsersEdit must not be a way to
// take over a stronger account through its password.
func roleCheck(p account.Principal, id int64) account.RoleCheck {
	return func(held []account.Role, _ func(int64) (account.Role, error)) error {
		return account.CheckTakeover(p, id, held)
	}
}

// giveRoles is the rule of the roles a user is given, run on the user's
// aggregate in the transaction that saves it: the caller may not act on a
// user whose roles grant more than the caller holds (CheckTakeover), and
// when ids is set they must be well formed (EINVALID), exist (ENOTFOUND)
// and be roles the caller may give (GiveRoles, EFORBIDDEN).
func giveRoles(a *user.Aggregate, p account.Principal, ids *[]int64) error {
	if err := a.CheckTakeover(p); err != nil || ids == nil {
		return err
	}
	return a.GiveRoles(p, *ids)
}

// guardTakeover refuses a caller acting on another user whose roles grant
// more than the caller holds (account.CheckTakeover) before a password or
// authenticator change, which other services write. It answers early, so
// a refused caller's password is neither checked against the policy nor
// hashed (and 403 comes before 422, as it always has); the rule that
// holds is roleCheck(p, id), which the store runs again in the
// transaction that writes, on the roles read there. (Deleting stays with
// UsersDelete, as the spec says; Aggregate.KeepAnAdmin keeps the last
// administrator, on the aggregate the store reads in its transaction.)
func (s *Service) guardTakeover(ctx context.Context, p account.Principal, id int64) error {
	roles, err := s.d.Roles.UserRoles(ctx, id)
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return nil // the store answers 404 itself
	} else if err != nil {
		return err
	}
	return account.CheckTakeover(p, id, roles)
}

// addFields copies the field errors of an EINVALID err into f.
func addFields(f domain.FieldErrors, err error) {
	var de *domain.Error
	if errors.As(err, &de) {
		for k, v := range de.Fields {
			f[k] = append(f[k], v...)
		}
	}
}

// CreateUser implements ports.UserService.
func (s *Service) CreateUser(ctx context.Context, in user.Input) (user.Profile, error) {
	p, err := account.Require(ctx, account.UsersCreate)
	if err != nil {
		return user.Profile{}, err
	}
	u, err := user.Create(in.Patch)
	f := domain.FieldErrors{}
	addFields(f, err)
	password := ""
	if in.Password != nil {
		password = *in.Password
	}
	if password != "" {
		addFields(f, account.ValidatePassword("password", password))
	}
	if err := f.Err(); err != nil {
		return user.Profile{}, err
	}
	// Malformed role ids answer before the password is hashed; the store
	// runs the whole check again in its transaction.
	if err := user.ValidateRoleIDs(in.RoleIDs); err != nil {
		return user.Profile{}, err
	}
	hash := ""
	if password != "" {
		if hash, err = s.d.Hasher.Hash(ctx, password); err != nil {
			return user.Profile{}, err
		}
	}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Deferred(func(id int64) (ports.Effect, error) {
		return ports.Audit(ctx, audit.UserCreated, audit.TargetUser, strconv.FormatInt(id, 10), nil), nil
	}), ports.Deferred(func(id int64) (ports.Effect, error) { return ports.UserEvent(webhook.UserCreated, id), nil }))
	prof, err := s.d.Store.CreateUser(ctx, u, hash, func(a *user.Aggregate) error { return giveRoles(a, p, in.RoleIDs) })
	if err != nil {
		return user.Profile{}, err
	}
	prof.ComputePQY(s.d.Clock.Now())
	return prof, nil
}

// UpdateUser implements ports.UserService.
func (s *Service) UpdateUser(ctx context.Context, id int64, in user.Input) (user.Profile, error) {
	p, err := account.Require(ctx, account.UsersEdit)
	if err != nil {
		return user.Profile{}, err
	}
	reauthed, err := s.emailChangeAuth(ctx, p, id, in.Patch)
	if err != nil {
		return user.Profile{}, err
	}
	ctx, fx := ports.WithEffects(ctx)
	target := strconv.FormatInt(id, 10)
	prof, err := s.d.Store.UpdateUser(ctx, id, func(a *user.Aggregate) error {
		if err := giveRoles(a, p, in.RoleIDs); err != nil {
			return err
		}
		u := &a.User
		before := *u
		u.Apply(in.Patch)
		if id == p.UserID && u.Email != before.Email && !reauthed {
			return account.ErrReauthRequired // the email changed since emailChangeAuth read it
		}
		if err := u.Validate(); err != nil {
			return err
		}
		fields := audit.Changed(before, *u)
		if in.RoleIDs != nil {
			fields = append(fields, "roles")
		}
		if len(fields) > 0 {
			fx.Add(ports.Audit(ctx, audit.UserUpdated, audit.TargetUser, target, map[string]any{"fields": fields}),
				ports.UserEvent(webhook.UserUpdated, id))
		}
		if before.Active && !u.Active {
			fx.Add(ports.Audit(ctx, audit.UserDeactivated, audit.TargetUser, target, nil), ports.UserEvent(webhook.UserDeactivated, id))
		}
		return a.KeepAnAdmin(account.LastAdminChange)
	})
	if err != nil {
		return user.Profile{}, err
	}
	// Activity and roles decide access; the next request re-reads them.
	prof.ComputePQY(s.d.Clock.Now())
	return prof, nil
}

// emailChangeAuth asks for recent authentication when the caller changes
// their own email, which is how they sign in (the one-time code goes
// there, and identity-provider sign-in finds users by it). It reports
// whether the caller passed it; another user's email is CheckTakeover's.
func (s *Service) emailChangeAuth(ctx context.Context, p account.Principal, id int64, in user.Patch) (bool, error) {
	if id != p.UserID || in.Email == nil {
		return false, nil
	}
	u, err := s.d.Store.User(ctx, id)
	if err != nil {
		return false, err
	}
	was := u.Email
	u.Apply(user.Patch{Email: in.Email})
	if u.Email == was {
		return false, nil
	}
	if s.d.Recent == nil {
		return false, domain.Errorf(domain.ENOTIMPLEMENTED, "email changes are not available in this configuration")
	}
	if _, err := s.d.Recent.RequireRecentAuth(ctx, ""); err != nil {
		return false, err
	}
	return true, nil
}

// DeleteUser implements ports.UserService.
func (s *Service) DeleteUser(ctx context.Context, id int64) error {
	p, err := account.Require(ctx, account.UsersDelete)
	if err != nil {
		return err
	}
	if id == p.UserID {
		return domain.Errorf(domain.ECONFLICT, "you cannot delete yourself")
	}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Audit(ctx, audit.UserDeleted, audit.TargetUser, strconv.FormatInt(id, 10), nil), s.deletedEvent(ctx, id))
	if err := s.d.Store.DeleteUser(ctx, id, s.d.Clock.Now(), func(a *user.Aggregate) error {
		return a.KeepAnAdmin(account.LastAdminDeleted)
	}); err != nil {
		return err
	}
	return nil
}

// ChangePassword implements ports.UserService. The accounts service
// validates, hashes, revokes the sessions and invalidates cached
// principals. Changing one's own password changes a factor: it needs
// recent authentication, or currentPassword (RequireRecentAuth).
func (s *Service) ChangePassword(ctx context.Context, id int64, password, currentPassword string) error {
	p, err := account.Require(ctx)
	if err != nil {
		return err
	}
	if id == 0 {
		id = p.UserID
	}
	if id == p.UserID {
		if s.d.Recent == nil {
			return domain.Errorf(domain.ENOTIMPLEMENTED, "password changes are not available in this configuration")
		}
		if _, err := s.d.Recent.RequireRecentAuth(ctx, currentPassword); err != nil {
			return err
		}
	}
	if id != p.UserID && !p.Can(account.UsersEdit) {
		return domain.Errorf(domain.EFORBIDDEN, "changing another user's password requires the UsersEdit permission")
	}
	if id < 0 {
		return domain.Errorf(domain.ENOTFOUND, "user not found")
	}
	if err := s.guardTakeover(ctx, p, id); err != nil {
		return err
	}
	return s.d.Passwords.SetPassword(ctx, id, password, roleCheck(p, id))
}

// ResetTOTP implements ports.UserService. It is for other users only:
// one's own app is turned off through the account routes, which need the
// password, a code and recent authentication (account.CheckNotSelf).
func (s *Service) ResetTOTP(ctx context.Context, id int64) error {
	p, err := account.Require(ctx, account.UsersEdit)
	if err != nil {
		return err
	}
	if err := account.CheckNotSelf(p, id, "reset the authenticator app"); err != nil {
		return err
	}
	if s.d.TOTP == nil {
		return domain.Errorf(domain.ENOTIMPLEMENTED, "authenticator apps are not available in this configuration")
	}
	// Resetting the second factor of a stronger account is a step to
	// taking it over, like setting its password.
	if err := s.guardTakeover(ctx, p, id); err != nil {
		return err
	}
	return s.d.TOTP.ResetTOTP(ctx, id, "", roleCheck(p, id))
}

// sessionsAccess is the rule of UserSessions and RevokeUserSessions:
// UsersEdit, an undeleted user, and no stronger account than the
// caller's (the rule that protects system administrators).
func (s *Service) sessionsAccess(ctx context.Context, id int64) error {
	p, err := account.Require(ctx, account.UsersEdit)
	if err != nil {
		return err
	}
	if s.d.Sessions == nil {
		return domain.Errorf(domain.ENOTIMPLEMENTED, "sessions are not available in this configuration")
	}
	roles, err := s.d.Roles.UserRoles(ctx, id)
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return domain.Errorf(domain.ENOTFOUND, "user %d not found", id)
	} else if err != nil {
		return err
	}
	return account.CheckTakeover(p, id, roles)
}

// UserSessions implements ports.UserService.
func (s *Service) UserSessions(ctx context.Context, id int64) ([]account.Session, error) {
	if err := s.sessionsAccess(ctx, id); err != nil {
		return nil, err
	}
	return s.d.Sessions.SessionsOf(ctx, id)
}

// RevokeUserSessions implements ports.UserService.
func (s *Service) RevokeUserSessions(ctx context.Context, id int64) error {
	if err := s.sessionsAccess(ctx, id); err != nil {
		return err
	}
	return s.d.Sessions.EndSessionsOf(ctx, id)
}

// RemovePasskeys implements ports.UserService: every passkey of another
// user goes (docs/decisions.md §20), with the protection of ResetTOTP.
func (s *Service) RemovePasskeys(ctx context.Context, id int64) error {
	p, err := account.Require(ctx, account.UsersEdit)
	if err != nil {
		return err
	}
	if err := account.CheckNotSelf(p, id, "remove the passkeys"); err != nil {
		return err
	}
	if s.d.Passkeys == nil {
		return domain.Errorf(domain.ENOTIMPLEMENTED, "passkeys are not available in this configuration")
	}
	if err := s.guardTakeover(ctx, p, id); err != nil {
		return err
	}
	return s.d.Passkeys.RemoveUserPasskeys(ctx, id, roleCheck(p, id))
}

// Offices implements ports.UserService.
func (s *Service) Offices(ctx context.Context) ([]user.Office, error) {
	if _, err := account.Require(ctx); err != nil {
		return nil, err
	}
	return s.d.Store.Offices(ctx)
}

// Office implements ports.UserService.
func (s *Service) Office(ctx context.Context, id int64) (user.Office, error) {
	if _, err := account.Require(ctx); err != nil {
		return user.Office{}, err
	}
	return s.d.Store.Office(ctx, id)
}

// CreateOffice implements ports.UserService.
func (s *Service) CreateOffice(ctx context.Context, p user.OfficePatch) (user.Office, error) {
	if _, err := account.Require(ctx, account.OfficesEdit); err != nil {
		return user.Office{}, err
	}
	o := user.NewOffice()
	o.Apply(p)
	if err := o.Validate(); err != nil {
		return user.Office{}, err
	}
	ctx, fx := ports.WithEffects(ctx)
	fx.Add(ports.Deferred(func(id int64) (ports.Effect, error) {
		return ports.Audit(ctx, audit.OfficeCreated, audit.TargetOffice, strconv.FormatInt(id, 10), nil), nil
	}))
	return s.d.Store.CreateOffice(ctx, o)
}

// UpdateOffice implements ports.UserService.
func (s *Service) UpdateOffice(ctx context.Context, id int64, p user.OfficePatch) (user.Office, error) {
	if _, err := account.Require(ctx, account.OfficesEdit); err != nil {
		return user.Office{}, err
	}
	ctx, fx := ports.WithEffects(ctx)
	return s.d.Store.UpdateOffice(ctx, id, func(o *user.Office) error {
		before := *o
		o.Apply(p)
		if err := o.Validate(); err != nil {
			return err
		}
		if fields := audit.Changed(before, *o); len(fields) > 0 {
			fx.Add(ports.Audit(ctx, audit.OfficeUpdated, audit.TargetOffice, strconv.FormatInt(id, 10), map[string]any{"fields": fields}))
		}
		return nil
	})
}

// AddReviewers implements ports.UserService.
func (s *Service) AddReviewers(ctx context.Context, offeringID int64, userIDs []int64) ([]int64, error) {
	if _, err := account.Require(ctx, account.OfferingsEdit); err != nil {
		return nil, err
	}
	ids, err := user.ReviewerIDs(userIDs)
	if err != nil {
		return nil, err
	}
	return s.d.Store.AddReviewers(ctx, offeringID, ids)
}

// RemoveReviewers implements ports.UserService.
func (s *Service) RemoveReviewers(ctx context.Context, offeringID int64, userIDs []int64) ([]int64, error) {
	if _, err := account.Require(ctx, account.OfferingsEdit); err != nil {
		return nil, err
	}
	ids, err := user.ReviewerIDs(userIDs)
	if err != nil {
		return nil, err
	}
	return s.d.Store.RemoveReviewers(ctx, offeringID, ids)
}

// deletedEvent is the webhook event of deleting user id, with the user
// as the API returned it just before.
func (s *Service) deletedEvent(ctx context.Context, id int64) ports.Effect {
	ev := ports.UserEvent(webhook.UserDeleted, id).(ports.WebhookEvent)
	if s.d.Render == nil {
		return ev
	}
	prof, err := s.d.Store.Profile(ctx, id, true)
	if err != nil {
		return ev // the deletion answers for an unknown user
	}
	prof.ComputePQY(s.d.Clock.Now())
	if data, err := s.d.Render(ctx, prof); err == nil {
		ev.Data = data
	}
	return ev
}
