package ports

import (
	"context"
	"time"

	"counsel/domain/account"
	"counsel/domain/remuneration"
	"counsel/domain/user"
)

// UserStore keeps users' profiles, offices and offering reviewers. Deleted
// users are invisible to every method: lookups answer ENOTFOUND and lists
// leave them out.
type UserStore interface {
	// Users returns one page of the users matching f, sorted by last name,
	// first name and id, and the number of all matches.
	Users(ctx context.Context, f user.Filter) ([]user.User, int64, error)
	// User returns a user with their office. ENOTFOUND if unknown or deleted.
	User(ctx context.Context, id int64) (user.User, error)
	// Profile returns a user with their office, PQE adjustment periods and
	// latest remuneration, and their roles when withRoles. PQY is left nil.
	// ENOTFOUND if unknown or deleted.
	Profile(ctx context.Context, id int64, withRoles bool) (user.Profile, error)
	// CreateUser adds a user with the password hash ("" for none), the
	// one way users are created (the API and the command line). fn (nil:
	// none) sees the new user's aggregate (user.Aggregate: no roles held,
	// roles looked up in the transaction) and may change the user and give
	// roles (SetRoles; otherwise the default roles); the store then
	// inserts them and returns the profile with roles. The store does not
	// validate the user: the use case does. ECONFLICT for an email an
	// undeleted user has; ENOTFOUND for an unknown office. An error from
	// fn creates nobody and is returned as is.
	CreateUser(ctx context.Context, u user.User, passwordHash string, fn func(*user.Aggregate) error) (user.Profile, error)
	// UpdateUser loads the user's aggregate (user.Aggregate: the user, the
	// roles they hold, the other active system administrators), all read
	// and held in one transaction so no concurrent change falsifies them,
	// lets fn change it (fn runs the rules and validates), saves the user
	// and, when fn called SetRoles, replaces the roles, and returns the
	// profile with roles. ENOTFOUND for an unknown or deleted user (fn not
	// called) or an unknown office; ECONFLICT for a taken email. An error
	// from fn rolls back and is returned as is.
	UpdateUser(ctx context.Context, id int64, fn func(*user.Aggregate) error) (user.Profile, error)
	// DeleteUser loads the user's aggregate as UpdateUser does, marks it
	// deleted (Aggregate.Delete) and lets fn (nil: none) refuse; then it
	// soft-deletes the user and revokes their sessions, in that
	// transaction. Remunerations and PQE adjustments stay. ENOTFOUND.
	DeleteUser(ctx context.Context, id int64, at time.Time, fn func(*user.Aggregate) error) error

	// Offices returns every office ordered by name.
	Offices(ctx context.Context) ([]user.Office, error)
	// Office returns an office. ENOTFOUND if unknown.
	Office(ctx context.Context, id int64) (user.Office, error)
	// CreateOffice adds an office.
	CreateOffice(ctx context.Context, o user.Office) (user.Office, error)
	// UpdateOffice loads an office, lets fn change it and saves it.
	// ENOTFOUND; an error from fn is returned as is.
	UpdateOffice(ctx context.Context, id int64, fn func(*user.Office) error) (user.Office, error)

	// AddReviewers permits users to review an offering (no error for those
	// already permitted) and returns the offering's reviewers. ENOTFOUND,
	// changing nothing, when any user is unknown or deleted.
	AddReviewers(ctx context.Context, offeringID int64, userIDs []int64) ([]int64, error)
	// RemoveReviewers withdraws the permission (unknown users are ignored)
	// and returns the offering's remaining reviewers.
	RemoveReviewers(ctx context.Context, offeringID int64, userIDs []int64) ([]int64, error)
}

// RemunerationStore keeps remunerations and PQE adjustments. Records load
// with their staff member (joined, not queried per row).
type RemunerationStore interface {
	// CreateRemuneration stores r as compute returns it, given the staff
	// member's admission date and PQE adjustment periods read in the same
	// transaction. When the record becomes the staff member's latest, the
	// staff member's billing rate is set to its billing rate, in that
	// transaction too. ENOTFOUND for an unknown or deleted staff member.
	CreateRemuneration(ctx context.Context, r remuneration.Remuneration,
		compute func(r remuneration.Remuneration, admission *time.Time, adjustments []remuneration.Period) remuneration.Remuneration) (user.StaffRemuneration, error)
	// Remuneration returns a remuneration by id (its staff member may have
	// been deleted since). ENOTFOUND if unknown.
	Remuneration(ctx context.Context, id int64) (user.StaffRemuneration, error)
	// LatestRemuneration returns the staff member's remuneration with the
	// greatest remunerationDate, then the greatest id. ENOTFOUND when the
	// staff member is unknown or deleted or has none.
	LatestRemuneration(ctx context.Context, staffID int64) (user.StaffRemuneration, error)
	// Remunerations returns one page of the remunerations whose staff member
	// matches f (its Limit and Offset page the remunerations), newest first
	// (remunerationDate, then id, descending), and the number of matches.
	Remunerations(ctx context.Context, f user.Filter) ([]user.StaffRemuneration, int64, error)
	// CreatePQEAdjustment stores an adjustment. ENOTFOUND for an unknown or
	// deleted staff member.
	CreatePQEAdjustment(ctx context.Context, a remuneration.PQEAdjustment) (user.StaffAdjustment, error)
	// PQEAdjustments returns one page of a staff member's adjustments,
	// newest start first (then id descending), and their number. ENOTFOUND
	// for an unknown or deleted staff member.
	PQEAdjustments(ctx context.Context, staffID, limit, offset int64) ([]user.StaffAdjustment, int64, error)
}

// PasswordSetter replaces a user's password: the accounts service, which
// checks the policy, hashes, and revokes the user's sessions. EINVALID for
// a password outside the policy (field "password"), ENOTFOUND for an
// unknown or deleted user. check (nil: none) is the caller's rule, run by
// the store in the transaction that writes the password
// (AccountStore.SetPassword).
type PasswordSetter interface {
	SetPassword(ctx context.Context, userID int64, password string, check account.RoleCheck) error
}

// UserService is the user administration use case (spec 4.2,
// docs/decisions.md §3 and §4). Every method checks the caller's permission
// itself: EUNAUTHORIZED without a caller, EFORBIDDEN without the
// permission.
type UserService interface {
	// Me returns the caller's profile (no roles) with PQY at now.
	Me(ctx context.Context) (user.Profile, error)
	// MeFormatted returns the caller as a formatted user.
	MeFormatted(ctx context.Context) (user.User, error)
	// Users lists users (f.Reviewers selects the reviewers list).
	// EINVALID for a filter out of bounds.
	Users(ctx context.Context, f user.Filter) ([]user.User, int64, error)
	// User returns a user's profile with roles and PQY at now. ENOTFOUND.
	User(ctx context.Context, id int64) (user.Profile, error)
	// CreateUser adds a user (UsersCreate). EINVALID, ECONFLICT for a
	// taken email, ENOTFOUND for an unknown office or role; EFORBIDDEN for
	// a system-admin role given by a caller who is not a system admin.
	CreateUser(ctx context.Context, in user.Input) (user.Profile, error)
	// UpdateUser changes the fields in.Patch sets and, when in.RoleIDs is
	// set, replaces the roles (UsersEdit). Passwords are not changed here.
	// EINVALID, ENOTFOUND, ECONFLICT as for UserStore.UpdateUser;
	// EFORBIDDEN for a user stronger than the caller or a role the caller
	// may not give; ECONFLICT when no active system administrator would
	// be left.
	UpdateUser(ctx context.Context, id int64, in user.Input) (user.Profile, error)
	// DeleteUser soft-deletes a user (UsersDelete). ENOTFOUND; ECONFLICT
	// for the caller themselves or the last system administrator.
	DeleteUser(ctx context.Context, id int64) error
	// ChangePassword sets a user's password: the caller's own with recent
	// authentication or the correct currentPassword (EREAUTH,
	// EUNAUTHORIZED), another's with UsersEdit. id 0 means the caller.
	// EINVALID, EFORBIDDEN, ENOTFOUND.
	ChangePassword(ctx context.Context, id int64, password, currentPassword string) error
	// ResetTOTP removes another user's authenticator-app enrolment and
	// revokes that user's sessions (UsersEdit; only a system administrator
	// may reset another system administrator, as for passwords; never the
	// caller's own: EFORBIDDEN). EFORBIDDEN, ENOTFOUND; no error when the
	// user has no enrolment.
	ResetTOTP(ctx context.Context, id int64) error
	// UserSessions lists another user's live sessions (UsersEdit; 403 for
	// a user whose roles grant more than the caller's). ENOTFOUND for an
	// unknown or deleted user.
	UserSessions(ctx context.Context, id int64) ([]account.Session, error)
	// RevokeUserSessions revokes every session of a user (the rules of
	// UserSessions).
	RevokeUserSessions(ctx context.Context, id int64) error
	// RemovePasskeys removes every passkey of another user (UsersEdit;
	// a system administrator's only by a system administrator). EFORBIDDEN
	// for oneself; ENOTFOUND for an unknown or deleted user.
	RemovePasskeys(ctx context.Context, id int64) error

	// Offices lists every office (any caller).
	Offices(ctx context.Context) ([]user.Office, error)
	// Office returns an office (any caller). ENOTFOUND.
	Office(ctx context.Context, id int64) (user.Office, error)
	// CreateOffice adds an office (OfficesEdit). EINVALID.
	CreateOffice(ctx context.Context, p user.OfficePatch) (user.Office, error)
	// UpdateOffice changes the fields p sets (OfficesEdit). EINVALID,
	// ENOTFOUND.
	UpdateOffice(ctx context.Context, id int64, p user.OfficePatch) (user.Office, error)

	// AddReviewers permits users to review an offering (OfferingsEdit)
	// and returns its reviewers. EINVALID, ENOTFOUND for an unknown user.
	AddReviewers(ctx context.Context, offeringID int64, userIDs []int64) ([]int64, error)
	// RemoveReviewers withdraws the permission (OfferingsEdit) and returns
	// the remaining reviewers. EINVALID.
	RemoveReviewers(ctx context.Context, offeringID int64, userIDs []int64) ([]int64, error)
}

// RemunerationService is the remuneration and PQE adjustment use case.
// Reads need any caller; creating a remuneration needs
// RemunerationsCreate; a PQE adjustment for oneself needs nothing more,
// for anyone else RemunerationsCreate.
type RemunerationService interface {
	// Remunerations lists remunerations whose staff member matches f,
	// newest first. EINVALID for a filter out of bounds.
	Remunerations(ctx context.Context, f user.Filter) ([]user.StaffRemuneration, int64, error)
	// Remuneration returns one remuneration. ENOTFOUND.
	Remuneration(ctx context.Context, id int64) (user.StaffRemuneration, error)
	// LatestRemuneration returns a staff member's latest remuneration.
	// ENOTFOUND for an unknown staff member or one without remunerations.
	LatestRemuneration(ctx context.Context, staffID int64) (user.StaffRemuneration, error)
	// CreateRemuneration validates, computes and stores a remuneration.
	// EINVALID, ENOTFOUND for an unknown staff member, EFORBIDDEN.
	CreateRemuneration(ctx context.Context, r remuneration.Remuneration) (user.StaffRemuneration, error)
	// PQEAdjustments lists a staff member's adjustments, newest start
	// first. EINVALID for bad paging, ENOTFOUND for an unknown staff member.
	PQEAdjustments(ctx context.Context, staffID, limit, offset int64) ([]user.StaffAdjustment, int64, error)
	// CreatePQEAdjustment validates and stores an adjustment. EINVALID,
	// EFORBIDDEN, ENOTFOUND for an unknown staff member.
	CreatePQEAdjustment(ctx context.Context, a remuneration.PQEAdjustment) (user.StaffAdjustment, error)
}
