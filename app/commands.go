package app

import (
	"context"
	"errors"
	"fmt"
	osuser "os/user"
	"sort"
	"strconv"
	"strings"
	"time"

	"counsel/adapters/argon2"
	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/audit"
	"counsel/domain/user"
	"counsel/ports"
)

// Migrate applies pending migrations to the database path names (a
// SQLite file or a PostgreSQL URL) and returns the applied migrations.
func Migrate(ctx context.Context, path string) ([]string, error) {
	db, err := OpenStores(ctx, path, "")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return db.Migrations(ctx)
}

// withStore opens the database, makes sure the bootstrap roles exist, and
// runs fn with the account store.
func withStore(ctx context.Context, path string, fn func(AccountStore) error) error {
	db, err := OpenStores(ctx, path, "")
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db.Accounts)
}

// CreateUser adds a user with a password from the command line. Without
// roles the user gets the default roles. The user is validated as the API
// validates (user.Create); a field error names the flag.
func CreateUser(ctx context.Context, path string, u account.NewUser, password string) (int64, error) {
	nu, err := newUser(u)
	if err != nil {
		return 0, flagErrors(err)
	}
	if err := account.ValidatePassword("password", password); err != nil {
		return 0, fmt.Errorf("password: must be 8 to 128 characters")
	}
	hash, err := argon2.New(argon2.Options{}).Hash(ctx, password)
	if err != nil {
		return 0, err
	}
	db, err := OpenStores(ctx, path, "")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	// Make sure the roles exist even before the first `serve`.
	if err := db.Accounts.EnsureRoles(ctx); err != nil {
		return 0, err
	}
	ctx, fx := ports.WithEffects(audit.WithActor(ctx, CLIActor("user create")))
	fx.Add(ports.Deferred(func(id int64) (ports.Effect, error) {
		return ports.Audit(ctx, audit.UserCreated, audit.TargetUser, strconv.FormatInt(id, 10), nil), nil
	}))
	id, err := createUser(ctx, db.Users, nu, u.Roles, hash)
	return id, flagErrors(err)
}

// newUser is the user u describes, validated (user.Create).
func newUser(u account.NewUser) (user.User, error) {
	return user.Create(user.Patch{Email: &u.Email, FirstName: &u.FirstName, LastName: &u.LastName})
}

// createUser adds u with the password hash and the roles named (the
// default roles when none) through the user store's one way of creating
// users; EINVALID (field "roles") for an unknown role.
func createUser(ctx context.Context, users ports.UserStore, u user.User, roles []string, hash string) (int64, error) {
	p, err := users.CreateUser(ctx, u, hash, func(a *user.Aggregate) error { return a.GiveRoleNames(roles) })
	return p.ID, err
}

// flagErrors names the command-line flags of the fields an EINVALID err
// refuses ("--email: email is not a valid address").
func flagErrors(err error) error {
	var de *domain.Error
	if !errors.As(err, &de) || len(de.Fields) == 0 {
		return err
	}
	flags := map[string]string{"email": "--email", "firstName": "--first-name", "lastName": "--last-name", "roles": "--role"}
	keys := make([]string, 0, len(de.Fields))
	for k := range de.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	msgs := make([]string, 0, len(keys))
	for _, k := range keys {
		name := flags[k]
		if name == "" {
			name = k
		}
		msgs = append(msgs, name+": "+strings.Join(de.Fields[k], "; "))
	}
	return errors.New(strings.Join(msgs, "\n"))
}

// SetPassword replaces a user's password from the command line and
// revokes the user's sessions.
func SetPassword(ctx context.Context, path, email, password string) error {
	if err := account.ValidatePassword("password", password); err != nil {
		return fmt.Errorf("password: must be 8 to 128 characters")
	}
	hash, err := argon2.New(argon2.Options{}).Hash(ctx, password)
	if err != nil {
		return err
	}
	return withStore(ctx, path, func(s AccountStore) error {
		id, err := s.UserIDByEmail(ctx, email)
		if err != nil {
			return fmt.Errorf("no user has the email %q", email)
		}
		ctx, fx := ports.WithEffects(audit.WithActor(ctx, CLIActor("user set-password")))
		fx.Add(ports.Audit(ctx, audit.PasswordChanged, audit.TargetUser, strconv.FormatInt(id, 10), nil))
		return s.SetPassword(ctx, id, hash, time.Now().UTC(), nil)
	})
}

// ResetTOTP removes a user's authenticator app from the command line,
// for an administrator who lost the phone and the recovery codes, and
// revokes the user's sessions. The user signs in with an emailed code
// again. It reports whether an app was enrolled.
func ResetTOTP(ctx context.Context, path, email string) (bool, error) {
	db, err := OpenStores(ctx, path, "")
	if err != nil {
		return false, err
	}
	defer db.Close()
	id, err := db.Accounts.UserIDByEmail(ctx, email)
	if err != nil {
		return false, fmt.Errorf("no user has the email %q", email)
	}
	had := false
	ctx, fx := ports.WithEffects(audit.WithActor(ctx, CLIActor("user reset-totp")))
	fx.Add(ports.Audit(ctx, audit.TOTPReset, audit.TargetUser, strconv.FormatInt(id, 10), nil))
	err = db.TOTP.UpdateTOTP(ctx, id, nil, func(st *account.TOTPAccount) error {
		had = st.TOTP != nil
		st.TOTP = nil
		st.RevokeSessions = true
		return nil
	})
	return had, err
}

// CLIActor is the command line as the actor of an event: the command's
// name and the operating-system user who ran it (not a Counsel user).
func CLIActor(command string) audit.Actor {
	name := "counsel " + command
	if u, err := osuser.Current(); err == nil && u.Username != "" {
		name += " (" + u.Username + ")"
	}
	return audit.Actor{Kind: audit.ActorCLI, Name: name}
}
