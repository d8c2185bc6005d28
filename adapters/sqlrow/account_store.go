package sqlrow

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/user"
)

// OTPRows reads and writes an email's one-time-password row, whose
// columns the two schemas store differently (a list of send times).
type OTPRows interface {
	// LoadOTP reads an email's row (the zero state when there is none)
	// and locks it for the transaction, so concurrent requests on several
	// instances count their sends and attempts one after the other.
	LoadOTP(ctx context.Context, x Querier, email string) (account.OTPState, error)
	// SaveOTP writes the state LoadOTP read, changed.
	SaveOTP(ctx context.Context, x Querier, email string, st account.OTPState) error
}

// AccountStore is ports.AccountStore on any Engine, with the engine's OTP
// rows, but for Refresh: each engine batches refreshes its own way.
type AccountStore struct {
	SessionStore
	e   Engine
	otp OTPRows
}

// NewAccountStore returns the account store of e.
func NewAccountStore(e Engine, otp OTPRows) AccountStore {
	return AccountStore{SessionStore: SessionStore{E: e}, e: e, otp: otp}
}

// CredentialsByEmail implements ports.AccountStore.
func (s AccountStore) CredentialsByEmail(ctx context.Context, email string) (account.Credentials, error) {
	c, err := ScanCredentials(s.e, s.e.Read().Row(ctx, CredentialsSQL, email))
	return c, s.e.FormatError(err)
}

// UpdateOTP implements ports.AccountStore.
func (s AccountStore) UpdateOTP(ctx context.Context, email string, fn func(*account.OTPState) error) error {
	return s.e.WriteTx(ctx, func(x Querier) error {
		st, err := s.otp.LoadOTP(ctx, x, email)
		if err != nil {
			return err
		}
		if err := fn(&st); err != nil {
			return err
		}
		return s.otp.SaveOTP(ctx, x, email, st)
	})
}

// Login implements ports.AccountStore. The user's row (LockRow) and the
// OTP row are locked, so the failure counter and the code's attempts
// count every try whichever instance takes it.
func (s AccountStore) Login(ctx context.Context, userID int64, email string, fn func(*account.LoginState) error) error {
	return s.e.WriteTx(ctx, func(x Querier) error {
		lock := ""
		if s.e.LockRow() != "" {
			lock = s.e.LockRow() + " OF users"
		}
		c, err := ScanCredentials(s.e, x.Row(ctx, CredentialsSQL+lock, email))
		if err != nil {
			return err
		}
		if c.UserID != userID {
			return NotFound("user")
		}
		otp, err := s.otp.LoadOTP(ctx, x, email)
		if err != nil {
			return err
		}
		st := account.LoginState{Credentials: c, OTP: otp}
		if c.TOTPEnabled {
			if st.TOTP, err = ScanTOTP(s.e, x.Row(ctx, TOTPSQL, userID)); err != nil {
				return err
			}
		}
		if err := fn(&st); err != nil {
			return err
		}
		if err := SaveCounters(ctx, x, s.e, userID, st.Credentials); err != nil {
			return err
		}
		if st.TOTP != nil {
			// The step used and a spent recovery code commit with the session.
			if err := SaveTOTP(ctx, x, s.e, userID, st.TOTP); err != nil {
				return err
			}
		} else if err := s.otp.SaveOTP(ctx, x, email, st.OTP); err != nil {
			return err
		}
		if st.Reauthenticated != "" { // cached principals carry the old time
			if err := RenewAuthentication(ctx, x, s.e, st.Reauthenticated, userID, st.ReauthenticatedAt); err != nil {
				return err
			}
			if err := s.e.PrincipalsChanged(ctx, x); err != nil {
				return err
			}
		}
		if st.NewSession != nil {
			return InsertSession(ctx, x, s.e, *st.NewSession, st.RefreshHash)
		}
		return nil
	})
}

// CreateSession implements ports.AccountStore.
func (s AccountStore) CreateSession(ctx context.Context, ss account.Session, refreshHash []byte) error {
	err := s.e.WriteTx(ctx, func(x Querier) error { return InsertSession(ctx, x, s.e, ss, refreshHash) })
	if err != nil {
		return fmt.Errorf("create session of user %d: %w", ss.UserID, err)
	}
	return nil
}

// SessionCols ends with when the session last authenticated: its
// sign-in (created_at) until a re-authentication sets authenticated_at.
const SessionCols = `s.id, s.user_id, s.method, s.created_at, s.expires_at, s.revoked_at, COALESCE(s.authenticated_at, s.created_at)`

// ScanSession reads SessionCols, then extra; ENOTFOUND for no row.
func ScanSession(tc Times, row Scanner, extra ...any) (account.Session, error) {
	var ss account.Session
	dest := append([]any{&ss.ID, &ss.UserID, &ss.Method, Time(tc, &ss.CreatedAt), Time(tc, &ss.ExpiresAt),
		NullTime(tc, &ss.RevokedAt), Time(tc, &ss.AuthenticatedAt)}, extra...)
	if err := row.Scan(dest...); NoRows(err) {
		return ss, NotFound("session")
	} else if err != nil {
		return ss, err
	}
	return ss, nil
}

// SessionByRefreshHash implements ports.AccountStore.
func (s AccountStore) SessionByRefreshHash(ctx context.Context, tokenHash []byte) (account.Session, error) {
	return ScanSession(s.e, s.e.Read().Row(ctx, `SELECT `+SessionCols+`
		FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id WHERE t.hash = ?`, tokenHash))
}

// Session implements ports.AccountStore.
func (s AccountStore) Session(ctx context.Context, id string) (account.Session, error) {
	return ScanSession(s.e, s.e.Read().Row(ctx, `SELECT `+SessionCols+` FROM sessions s WHERE s.id = ?`, id))
}

// ConsoleSession implements ports.AccountStore.
func (s AccountStore) ConsoleSession(ctx context.Context, tokenHash []byte) (account.Session, error) {
	var lastSeen *time.Time
	var kind string
	ss, err := ScanSession(s.e, s.e.Read().Row(ctx, `SELECT `+SessionCols+`, s.kind, s.last_seen FROM sessions s WHERE s.token_hash = ?`, tokenHash),
		&kind, NullTime(s.e, &lastSeen))
	if err != nil {
		return ss, err
	}
	ss.Kind, ss.TokenHash = kind, tokenHash
	if lastSeen != nil {
		ss.LastSeen = *lastSeen
	}
	return ss, nil
}

// TouchSession implements ports.AccountStore.
func (s AccountStore) TouchSession(ctx context.Context, id string, at time.Time) error {
	err := s.e.WriteTx(ctx, func(x Querier) error {
		_, err := x.Exec(ctx, `UPDATE sessions SET last_seen = ? WHERE id = ? AND revoked_at IS NULL`, s.e.Arg(at), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("touch session %q: %w", id, err)
	}
	return nil
}

// RevokeSession implements ports.AccountStore.
func (s AccountStore) RevokeSession(ctx context.Context, id string, at time.Time) error {
	err := s.e.AccessTx(ctx, func(x Querier) error {
		_, err := x.Exec(ctx, `UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, s.e.Arg(at), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("revoke session %q: %w", id, err)
	}
	return nil
}

// RevokeUserSessions implements ports.AccountStore.
func (s AccountStore) RevokeUserSessions(ctx context.Context, userID int64, at time.Time) error {
	err := s.e.AccessTx(ctx, func(x Querier) error { return RevokeUserSessions(ctx, x, s.e, userID, at) })
	if err != nil {
		return fmt.Errorf("revoke the sessions of user %d: %w", userID, err)
	}
	return nil
}

// RevokeUserSessions ends every live session of a user at at.
func RevokeUserSessions(ctx context.Context, x Querier, tc Times, userID int64, at time.Time) error {
	_, err := x.Exec(ctx, `UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL`, tc.Arg(at), userID)
	return err
}

// UserAccess implements ports.AccountStore: account.Access of the user's
// roles, read in one query (a row per permission held, each read as a
// role granting that one permission).
func (s AccountStore) UserAccess(ctx context.Context, userID int64) (account.PermissionSet, bool, error) {
	roles, err := QueryAll(ctx, s.e.Read(), func(r Scanner) (account.Role, error) {
		var admin *bool
		var perm *string
		if err := r.Scan(&admin, &perm); err != nil {
			return account.Role{}, err
		}
		var g account.Role
		g.IsSystemAdmin = admin != nil && *admin
		if perm != nil {
			if p, ok := account.ParsePermission(*perm); ok {
				g.Permissions = account.NewPermissionSet(p)
			}
		}
		return g, nil
	}, `SELECT r.is_system_admin, rp.permission
		FROM users u
		LEFT JOIN user_roles ur ON ur.user_id = u.id
		LEFT JOIN roles r ON r.id = ur.role_id
		LEFT JOIN role_permissions rp ON rp.role_id = r.id
		WHERE u.id = ? AND u.deleted_at IS NULL AND u.active = ?`, userID, true)
	if err != nil {
		return 0, false, err
	}
	if len(roles) == 0 {
		return 0, false, NotFound("user")
	}
	set, admin := account.Access(roles)
	return set, admin, nil
}

// SigningKeys implements ports.AccountStore.
func (s AccountStore) SigningKeys(ctx context.Context) ([]account.SigningKey, error) {
	return QueryAll(ctx, s.e.Read(), func(r Scanner) (account.SigningKey, error) {
		var k account.SigningKey
		return k, r.Scan(&k.ID, &k.PrivateKey, Time(s.e, &k.CreatedAt), NullTime(s.e, &k.RetiredAt))
	}, `SELECT kid, private_key, created_at, retired_at FROM signing_keys ORDER BY created_at DESC, kid`)
}

// AddSigningKey implements ports.AccountStore.
func (s AccountStore) AddSigningKey(ctx context.Context, k account.SigningKey) error {
	err := s.e.WriteTx(ctx, func(x Querier) error {
		_, err := x.Exec(ctx, `INSERT INTO signing_keys (kid, private_key, created_at, retired_at) VALUES (?, ?, ?, ?)`,
			k.ID, k.PrivateKey, s.e.Arg(k.CreatedAt), NullArg(s.e, k.RetiredAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("add signing key %q: %w", k.ID, err)
	}
	return nil
}

// EnsureSigningKey implements ports.AccountStore. Instances starting
// together decide one after the other (Serialize): the first stores its
// key, the others find it.
func (s AccountStore) EnsureSigningKey(ctx context.Context, k account.SigningKey) error {
	err := s.e.WriteTx(ctx, func(x Querier) error {
		if err := s.e.Serialize(ctx, x, "signing-keys"); err != nil {
			return err
		}
		_, err := x.Exec(ctx, `INSERT INTO signing_keys (kid, private_key, created_at, retired_at)
			SELECT ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM signing_keys)`,
			k.ID, k.PrivateKey, s.e.Arg(k.CreatedAt), NullArg(s.e, k.RetiredAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("first signing key: %w", err)
	}
	return nil
}

// Secret implements ports.AccountStore. Instances starting together
// agree: the insert of the second does nothing and it reads the first's.
func (s AccountStore) Secret(ctx context.Context, name string, create func() ([]byte, error)) ([]byte, error) {
	var v []byte
	err := s.e.WriteTx(ctx, func(x Querier) error {
		err := x.Row(ctx, `SELECT value FROM settings WHERE name = ?`, name).Scan(&v)
		if !NoRows(err) {
			return err
		}
		nv, err := create()
		if err != nil {
			return err
		}
		if _, err := x.Exec(ctx, `INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`, name, nv); err != nil {
			return err
		}
		return x.Row(ctx, `SELECT value FROM settings WHERE name = ?`, name).Scan(&v)
	})
	if err != nil {
		return v, fmt.Errorf("secret %q: %w", name, err)
	}
	return v, nil
}

// HasUsers implements ports.AccountStore.
func (s AccountStore) HasUsers(ctx context.Context) (bool, error) {
	var has bool
	if err := s.e.Read().Row(ctx, `SELECT EXISTS (SELECT 1 FROM users)`).Scan(&has); err != nil {
		return has, fmt.Errorf("count users: %w", err)
	}
	return has, nil
}

// Bootstrap implements ports.AccountStore. Instances starting together
// create one administrator (Serialize).
func (s AccountStore) Bootstrap(ctx context.Context, admin account.NewUser) (bool, error) {
	created := false
	err := s.e.WriteTx(ctx, func(x Querier) error {
		if err := s.e.Serialize(ctx, x, LockAdministrators); err != nil {
			return err
		}
		if err := ensureRoles(ctx, x); err != nil {
			return err
		}
		var has bool
		if err := x.Row(ctx, `SELECT EXISTS (SELECT 1 FROM users)`).Scan(&has); err != nil || has {
			return err
		}
		admin.Roles = []string{account.AdministratorRole}
		_, err := CreateAccountUser(ctx, x, s.e, admin, s.e.Now())
		created = err == nil
		return err
	})
	if err != nil {
		return created, fmt.Errorf("bootstrap the first administrator: %w", err)
	}
	return created, nil
}

// EnsureRoles creates the built-in roles (account.BuiltinRoles) when no
// role exists, for commands that run before the first start.
func (s AccountStore) EnsureRoles(ctx context.Context) error {
	err := s.e.WriteTx(ctx, func(x Querier) error {
		if err := s.e.Serialize(ctx, x, LockAdministrators); err != nil {
			return err
		}
		return ensureRoles(ctx, x)
	})
	if err != nil {
		return fmt.Errorf("ensure the built-in roles: %w", err)
	}
	return nil
}

// ensureRoles inserts account.BuiltinRoles when no role exists.
func ensureRoles(ctx context.Context, x Querier) error {
	var has bool
	if err := x.Row(ctx, `SELECT EXISTS (SELECT 1 FROM roles)`).Scan(&has); err != nil || has {
		return err
	}
	for _, r := range account.BuiltinRoles() {
		id, err := x.Insert(ctx, `INSERT INTO roles (name, is_system_admin, is_default_role) VALUES (?, ?, ?)`, r.Name, r.IsSystemAdmin, r.IsDefaultRole)
		if err != nil {
			return err
		}
		if err := ReplaceRolePermissions(ctx, x, id, r.Permissions); err != nil {
			return err
		}
	}
	return nil
}

// CreateAccountUser inserts a user who signs in (no profile beyond the
// name) with the named roles, or the default roles when none are named:
// the first administrator (Bootstrap) and a user an identity provider
// vouches for (ProvisionUser).
func CreateAccountUser(ctx context.Context, x Querier, d Dialect, u account.NewUser, now time.Time) (int64, error) {
	nu := user.New()
	nu.Email, nu.FirstName, nu.LastName = account.NormalizeEmail(u.Email), u.FirstName, u.LastName
	id, err := insertUser(ctx, x, d, nu, u.PasswordHash, now)
	if err != nil {
		return 0, err
	}
	if err := assignRoles(ctx, x, id, u.Roles); err != nil {
		return 0, err
	}
	return id, nil
}

// EmailTaken names a unique violation of a user's email.
func EmailTaken(d Dialect, err error) error {
	if domain.ErrorCode(d.FormatError(err)) == domain.ECONFLICT {
		return &domain.Error{Code: domain.ECONFLICT, Message: "a user with this email already exists"}
	}
	return err
}

// assignRoles gives a new user the named roles, or the default roles when
// none are named.
func assignRoles(ctx context.Context, x Querier, userID int64, names []string) error {
	if len(names) == 0 {
		_, err := x.Exec(ctx, `INSERT INTO user_roles (user_id, role_id) SELECT ?, id FROM roles WHERE is_default_role = ?`, userID, true)
		return err
	}
	for _, n := range names {
		var roleID int64
		if err := x.Row(ctx, `SELECT id FROM roles WHERE name = ?`, n).Scan(&roleID); NoRows(err) {
			return domain.Invalid(map[string][]string{"roles": {"unknown role " + strconv.Quote(n)}})
		} else if err != nil {
			return err
		}
		if _, err := x.Exec(ctx, `INSERT INTO user_roles (user_id, role_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, userID, roleID); err != nil {
			return err
		}
	}
	return nil
}

// SetPassword implements ports.AccountStore: the new hash ends every
// session of the user.
func (s AccountStore) SetPassword(ctx context.Context, userID int64, hash string, at time.Time, check account.RoleCheck) error {
	return s.e.ProfileTx(ctx, func(x Querier) error {
		if err := RunRoleCheck(ctx, s.e, x, userID, check); err != nil {
			return err
		}
		n, err := x.Exec(ctx, `UPDATE users SET password_hash = ?, failed_logins = 0, locked_until = ?, updated_at = ?
			WHERE id = ? AND deleted_at IS NULL`, hash, s.e.LockedUntil(time.Time{}), s.e.Arg(at), userID)
		if err != nil {
			return err
		}
		if n == 0 {
			return NotFound("user")
		}
		return RevokeUserSessions(ctx, x, s.e, userID, at)
	})
}

// UserIDByEmail returns the id of the undeleted user with email.
// ENOTFOUND if there is none.
func (s AccountStore) UserIDByEmail(ctx context.Context, email string) (int64, error) {
	c, err := s.CredentialsByEmail(ctx, account.NormalizeEmail(email))
	if err != nil {
		return c.UserID, fmt.Errorf("find user by email: %w", err)
	}
	return c.UserID, nil
}

// Prune deletes what sign-in no longer needs, so the database does
// not grow with every sign-in: sessions that ended (expired or revoked)
// more than a day before now, with their refresh tokens, and
// one-time-password rows whose code expired more than an hour ago (a code
// expires its TTL after its send, so such a row has no send left inside
// the hourly window either). It returns the number of sessions removed.
func (s AccountStore) Prune(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := s.e.WriteTx(ctx, func(x Querier) error {
		cutoff := s.e.Arg(now.Add(-24 * time.Hour))
		var err error
		if n, err = x.Exec(ctx, `DELETE FROM sessions WHERE expires_at < ? OR revoked_at < ?`, cutoff, cutoff); err != nil {
			return err
		}
		_, err = x.Exec(ctx, `DELETE FROM otps WHERE expires_at IS NULL OR expires_at < ?`, s.e.Arg(now.Add(-time.Hour)))
		return err
	})
	if err != nil {
		return n, fmt.Errorf("prune expired rows: %w", err)
	}
	return n, nil
}
