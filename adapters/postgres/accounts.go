package postgres

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"counsel/adapters/sqlrow"
	"counsel/domain"
	"counsel/domain/account"
	"counsel/ports"
)

// AccountStore implements ports.AccountStore.
type AccountStore struct {
	sqlrow.SessionStore
	db *DB
}

var _ ports.AccountStore = (*AccountStore)(nil)

// NewAccountStore returns the account store of db.
func NewAccountStore(db *DB) *AccountStore {
	return &AccountStore{db: db, SessionStore: sqlrow.SessionStore{E: engine{db: db}}}
}

// CredentialsByEmail implements ports.AccountStore.
func (s *AccountStore) CredentialsByEmail(ctx context.Context, email string) (account.Credentials, error) {
	c, err := sqlrow.ScanCredentials(dialect{}, s.db.read().row(ctx, sqlrow.CredentialsSQL, email))
	return c, formatError(err)
}

// loadOTP reads an email's OTP row and locks it, so that concurrent
// requests on several instances count their sends and attempts one after
// the other. A missing row is created first, so there is a row to lock.
func loadOTP(ctx context.Context, x q, email string) (account.OTPState, error) {
	if _, err := x.exec(ctx, `INSERT INTO otps (email) VALUES (?) ON CONFLICT (email) DO NOTHING`, email); err != nil {
		return account.OTPState{}, err
	}
	var st account.OTPState
	var expires *time.Time
	var sends []time.Time
	if err := x.row(ctx, `SELECT code_hash, expires_at, attempts, sends FROM otps WHERE email = ? FOR UPDATE`, email).
		Scan(&st.CodeHash, &expires, &st.Attempts, &sends); err != nil {
		return st, err
	}
	if expires != nil {
		st.ExpiresAt = expires.UTC()
	}
	for _, t := range sends {
		st.Sends = append(st.Sends, t.UTC())
	}
	return st, nil
}

func saveOTP(ctx context.Context, x q, email string, st account.OTPState) error {
	var hash any
	if len(st.CodeHash) > 0 {
		hash = st.CodeHash
	}
	sends := st.Sends
	if sends == nil {
		sends = []time.Time{}
	}
	_, err := x.exec(ctx, `UPDATE otps SET code_hash = ?, expires_at = ?, attempts = ?, sends = ? WHERE email = ?`,
		hash, nullTime(&st.ExpiresAt), st.Attempts, sends, email)
	return err
}

// UpdateOTP implements ports.AccountStore.
func (s *AccountStore) UpdateOTP(ctx context.Context, email string, fn func(*account.OTPState) error) error {
	return s.db.tx(ctx, func(x q) error {
		st, err := loadOTP(ctx, x, email)
		if err != nil {
			return err
		}
		if err := fn(&st); err != nil {
			return err
		}
		return saveOTP(ctx, x, email, st)
	})
}

// Login implements ports.AccountStore. The user's row and the OTP row are
// locked, so the failure counter and the code's attempts count every try
// whichever instance takes it.
func (s *AccountStore) Login(ctx context.Context, userID int64, email string, fn func(*account.LoginState) error) error {
	return s.db.tx(ctx, func(x q) error {
		c, err := sqlrow.ScanCredentials(dialect{}, x.row(ctx, sqlrow.CredentialsSQL+` FOR UPDATE OF users`, email))
		if err != nil {
			return err
		}
		if c.UserID != userID {
			return sqlrow.NotFound("user")
		}
		otp, err := loadOTP(ctx, x, email)
		if err != nil {
			return err
		}
		st := account.LoginState{Credentials: c, OTP: otp}
		if c.TOTPEnabled {
			if st.TOTP, err = sqlrow.ScanTOTP(dialect{}, x.row(ctx, sqlrow.TOTPSQL, userID)); err != nil {
				return err
			}
		}
		if err := fn(&st); err != nil {
			return err
		}
		if err := sqlrow.SaveCounters(ctx, x, dialect{}, userID, st.Credentials); err != nil {
			return err
		}
		if st.TOTP != nil {
			// The step used and a spent recovery code commit with the session.
			if err := sqlrow.SaveTOTP(ctx, x, dialect{}, userID, st.TOTP); err != nil {
				return err
			}
		} else if err := saveOTP(ctx, x, email, st.OTP); err != nil {
			return err
		}
		if st.Reauthenticated != "" {
			if err := sqlrow.RenewAuthentication(ctx, x, dialect{}, st.Reauthenticated, userID, st.ReauthenticatedAt); err != nil {
				return err
			}
		}
		if st.NewSession != nil {
			return insertSession(ctx, x, *st.NewSession, st.RefreshHash)
		}
		return nil
	})
}

func insertSession(ctx context.Context, x q, ss account.Session, refreshHash []byte) error {
	return sqlrow.InsertSession(ctx, x, dialect{}, ss, refreshHash)
}

// CreateSession implements ports.AccountStore.
func (s *AccountStore) CreateSession(ctx context.Context, ss account.Session, refreshHash []byte) error {
	err := s.db.tx(ctx, func(x q) error { return insertSession(ctx, x, ss, refreshHash) })
	if err != nil {
		return fmt.Errorf("create session of user %d: %w", ss.UserID, err)
	}
	return nil
}

// sessionCols ends with when the session last authenticated: its
// sign-in (created_at) until a re-authentication sets authenticated_at.
const sessionCols = `s.id, s.user_id, s.method, s.created_at, s.expires_at, s.revoked_at, COALESCE(s.authenticated_at, s.created_at)`

func scanSession(row interface{ Scan(...any) error }, extra ...any) (account.Session, error) {
	var ss account.Session
	dest := append([]any{&ss.ID, &ss.UserID, &ss.Method, &ss.CreatedAt, &ss.ExpiresAt, &ss.RevokedAt, &ss.AuthenticatedAt}, extra...)
	if err := row.Scan(dest...); noRows(err) {
		return ss, sqlrow.NotFound("session")
	} else if err != nil {
		return ss, err
	}
	ss.CreatedAt, ss.ExpiresAt, ss.RevokedAt = utc(ss.CreatedAt), utc(ss.ExpiresAt), utcp(ss.RevokedAt)
	ss.AuthenticatedAt = utc(ss.AuthenticatedAt)
	return ss, nil
}

// SessionByRefreshHash implements ports.AccountStore.
func (s *AccountStore) SessionByRefreshHash(ctx context.Context, tokenHash []byte) (account.Session, error) {
	return scanSession(s.db.read().row(ctx, `SELECT `+sessionCols+`
		FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id WHERE t.hash = ?`, tokenHash))
}

// Session implements ports.AccountStore.
func (s *AccountStore) Session(ctx context.Context, id string) (account.Session, error) {
	return scanSession(s.db.read().row(ctx, `SELECT `+sessionCols+` FROM sessions s WHERE s.id = ?`, id))
}

// ConsoleSession implements ports.AccountStore.
func (s *AccountStore) ConsoleSession(ctx context.Context, tokenHash []byte) (account.Session, error) {
	var lastSeen *time.Time
	var kind string
	ss, err := scanSession(s.db.read().row(ctx, `SELECT `+sessionCols+`, s.kind, s.last_seen FROM sessions s WHERE s.token_hash = ?`, tokenHash),
		&kind, &lastSeen)
	if err != nil {
		return ss, err
	}
	ss.Kind, ss.TokenHash = kind, tokenHash
	if lastSeen != nil {
		ss.LastSeen = utc(*lastSeen)
	}
	return ss, nil
}

// TouchSession implements ports.AccountStore.
func (s *AccountStore) TouchSession(ctx context.Context, id string, at time.Time) error {
	err := s.db.tx(ctx, func(x q) error {
		_, err := x.exec(ctx, `UPDATE sessions SET last_seen = ? WHERE id = ? AND revoked_at IS NULL`, at, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("touch session %q: %w", id, err)
	}
	return nil
}

// RevokeSession implements ports.AccountStore.
func (s *AccountStore) RevokeSession(ctx context.Context, id string, at time.Time) error {
	err := s.db.accessTx(ctx, func(x q) error {
		_, err := x.exec(ctx, `UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, at, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("revoke session %q: %w", id, err)
	}
	return nil
}

// RevokeUserSessions implements ports.AccountStore.
func (s *AccountStore) RevokeUserSessions(ctx context.Context, userID int64, at time.Time) error {
	err := s.db.accessTx(ctx, func(x q) error { return revokeUserSessions(ctx, x, userID, at) })
	if err != nil {
		return fmt.Errorf("revoke the sessions of user %d: %w", userID, err)
	}
	return nil
}

func revokeUserSessions(ctx context.Context, x q, userID int64, at time.Time) error {
	_, err := x.exec(ctx, `UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL`, at, userID)
	return err
}

// UserAccess implements ports.AccountStore: the union of the user's
// roles' permissions in one query.
func (s *AccountStore) UserAccess(ctx context.Context, userID int64) (account.PermissionSet, bool, error) {
	var admin *bool
	var perms []string
	err := s.db.read().row(ctx, `SELECT bool_or(r.is_system_admin),
		coalesce(array_agg(DISTINCT rp.permission) FILTER (WHERE rp.permission IS NOT NULL), '{}')
		FROM users u
		LEFT JOIN user_roles ur ON ur.user_id = u.id
		LEFT JOIN roles r ON r.id = ur.role_id
		LEFT JOIN role_permissions rp ON rp.role_id = r.id
		WHERE u.id = ? AND u.deleted_at IS NULL AND u.active
		GROUP BY u.id`, userID).Scan(&admin, &perms)
	if noRows(err) {
		return 0, false, sqlrow.NotFound("user")
	} else if err != nil {
		return 0, false, err
	}
	if admin != nil && *admin {
		return account.AllPermissionSet, true, nil
	}
	var set account.PermissionSet
	for _, n := range perms {
		if p, ok := account.ParsePermission(n); ok {
			set |= account.NewPermissionSet(p)
		}
	}
	return set, false, nil
}

// SigningKeys implements ports.AccountStore.
func (s *AccountStore) SigningKeys(ctx context.Context) ([]account.SigningKey, error) {
	rows, err := s.db.read().query(ctx, `SELECT kid, private_key, created_at, retired_at FROM signing_keys ORDER BY created_at DESC, kid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []account.SigningKey
	for rows.Next() {
		var k account.SigningKey
		if err := rows.Scan(&k.ID, &k.PrivateKey, &k.CreatedAt, &k.RetiredAt); err != nil {
			return nil, err
		}
		k.CreatedAt, k.RetiredAt = utc(k.CreatedAt), utcp(k.RetiredAt)
		out = append(out, k)
	}
	return out, rows.Err()
}

// AddSigningKey implements ports.AccountStore.
func (s *AccountStore) AddSigningKey(ctx context.Context, k account.SigningKey) error {
	err := s.db.tx(ctx, func(x q) error {
		_, err := x.exec(ctx, `INSERT INTO signing_keys (kid, private_key, created_at, retired_at) VALUES (?, ?, ?, ?)`,
			k.ID, k.PrivateKey, k.CreatedAt, nullTime(k.RetiredAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("add signing key %q: %w", k.ID, err)
	}
	return nil
}

// EnsureSigningKey implements ports.AccountStore. Under a
// transaction-level advisory lock, instances starting together decide one
// after the other: the first stores its key, the others find it.
func (s *AccountStore) EnsureSigningKey(ctx context.Context, k account.SigningKey) error {
	err := s.db.tx(ctx, func(x q) error {
		if _, err := x.exec(ctx, `SELECT pg_advisory_xact_lock(?)`, lockKey("signing-keys")); err != nil {
			return err
		}
		_, err := x.exec(ctx, `INSERT INTO signing_keys (kid, private_key, created_at, retired_at)
			SELECT ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM signing_keys)`,
			k.ID, k.PrivateKey, k.CreatedAt, nullTime(k.RetiredAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("first signing key: %w", err)
	}
	return nil
}

// Secret implements ports.AccountStore. Instances starting together
// agree: the insert of the second does nothing and it reads the first's.
func (s *AccountStore) Secret(ctx context.Context, name string, create func() ([]byte, error)) ([]byte, error) {
	var v []byte
	err := s.db.tx(ctx, func(x q) error {
		err := x.row(ctx, `SELECT value FROM settings WHERE name = ?`, name).Scan(&v)
		if !noRows(err) {
			return err
		}
		nv, err := create()
		if err != nil {
			return err
		}
		if _, err := x.exec(ctx, `INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`, name, nv); err != nil {
			return err
		}
		return x.row(ctx, `SELECT value FROM settings WHERE name = ?`, name).Scan(&v)
	})
	if err != nil {
		return v, fmt.Errorf("secret %q: %w", name, err)
	}
	return v, nil
}

// HasUsers implements ports.AccountStore.
func (s *AccountStore) HasUsers(ctx context.Context) (bool, error) {
	var has bool
	err := s.db.read().row(ctx, `SELECT EXISTS (SELECT 1 FROM users)`).Scan(&has)
	if err != nil {
		return has, fmt.Errorf("count users: %w", err)
	}
	return has, nil
}

// Bootstrap implements ports.AccountStore. A transaction-level advisory
// lock makes instances starting together create one administrator.
func (s *AccountStore) Bootstrap(ctx context.Context, admin account.NewUser) (bool, error) {
	created := false
	err := s.db.tx(ctx, func(x q) error {
		if _, err := x.exec(ctx, `SELECT pg_advisory_xact_lock(?)`, lockLastAdmin); err != nil {
			return err
		}
		if err := ensureRoles(ctx, x); err != nil {
			return err
		}
		var has bool
		if err := x.row(ctx, `SELECT EXISTS (SELECT 1 FROM users)`).Scan(&has); err != nil || has {
			return err
		}
		admin.Roles = []string{account.AdministratorRole}
		_, err := createUser(ctx, x, admin, s.db.Now())
		created = err == nil
		return err
	})
	if err != nil {
		return created, fmt.Errorf("bootstrap the first administrator: %w", err)
	}
	return created, nil
}

// EnsureRoles creates the Administrator and Staff roles when no role
// exists, for commands that run before the first start.
func (s *AccountStore) EnsureRoles(ctx context.Context) error {
	err := s.db.tx(ctx, func(x q) error {
		if _, err := x.exec(ctx, `SELECT pg_advisory_xact_lock(?)`, lockLastAdmin); err != nil {
			return err
		}
		return ensureRoles(ctx, x)
	})
	if err != nil {
		return fmt.Errorf("ensure the built-in roles: %w", err)
	}
	return nil
}

func ensureRoles(ctx context.Context, x q) error {
	var has bool
	if err := x.row(ctx, `SELECT EXISTS (SELECT 1 FROM roles)`).Scan(&has); err != nil || has {
		return err
	}
	var adminID, staffID int64
	if err := x.row(ctx, `INSERT INTO roles (name, is_system_admin, is_default_role) VALUES (?, true, false) RETURNING id`,
		account.AdministratorRole).Scan(&adminID); err != nil {
		return err
	}
	if err := x.row(ctx, `INSERT INTO roles (name, is_system_admin, is_default_role) VALUES (?, false, true) RETURNING id`,
		account.StaffRole).Scan(&staffID); err != nil {
		return err
	}
	if err := sqlrow.ReplaceRolePermissions(ctx, x, adminID, account.AllPermissionSet); err != nil {
		return err
	}
	return sqlrow.ReplaceRolePermissions(ctx, x, staffID, account.NewPermissionSet(account.ContractView))
}

// CreateUser implements ports.AccountStore.
func (s *AccountStore) CreateUser(ctx context.Context, u account.NewUser) (int64, error) {
	var id int64
	err := s.db.tx(ctx, func(x q) error {
		var err error
		id, err = createUser(ctx, x, u, s.db.Now())
		ports.Created(ctx, id)
		return err
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

func createUser(ctx context.Context, x q, u account.NewUser, now time.Time) (int64, error) {
	email := account.NormalizeEmail(u.Email)
	var id int64
	err := x.row(ctx, `INSERT INTO users (email, first_name, last_name, password_hash, search_key, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, email, u.FirstName, u.LastName, u.PasswordHash,
		searchKey(u.FirstName, u.LastName, email), now, now).Scan(&id)
	if err != nil {
		return 0, emailTaken(err)
	}
	if err := assignRoles(ctx, x, id, u.Roles); err != nil {
		return 0, err
	}
	return id, nil
}

// assignRoles gives a new user the named roles, or the default roles when
// none are named.
func assignRoles(ctx context.Context, x q, userID int64, names []string) error {
	if len(names) == 0 {
		_, err := x.exec(ctx, `INSERT INTO user_roles (user_id, role_id) SELECT ?, id FROM roles WHERE is_default_role`, userID)
		return err
	}
	for _, n := range names {
		var roleID int64
		if err := x.row(ctx, `SELECT id FROM roles WHERE name = ?`, n).Scan(&roleID); noRows(err) {
			return domain.Invalid(map[string][]string{"roles": {"unknown role " + strconv.Quote(n)}})
		} else if err != nil {
			return err
		}
		if _, err := x.exec(ctx, `INSERT INTO user_roles (user_id, role_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, userID, roleID); err != nil {
			return err
		}
	}
	return nil
}

// SetPassword implements ports.AccountStore.
func (s *AccountStore) SetPassword(ctx context.Context, userID int64, hash string, at time.Time, check account.RoleCheck) error {
	return s.db.profileTx(ctx, func(x q) error {
		if err := s.db.runRoleCheck(ctx, x, userID, check); err != nil {
			return err
		}
		n, err := x.exec(ctx, `UPDATE users SET password_hash = ?, failed_logins = 0, locked_until = NULL, updated_at = ?
			WHERE id = ? AND deleted_at IS NULL`, hash, at, userID)
		if err != nil {
			return err
		}
		if n == 0 {
			return sqlrow.NotFound("user")
		}
		return revokeUserSessions(ctx, x, userID, at)
	})
}

// UserIDByEmail returns the id of the undeleted user with email.
// ENOTFOUND if there is none.
func (s *AccountStore) UserIDByEmail(ctx context.Context, email string) (int64, error) {
	c, err := s.CredentialsByEmail(ctx, account.NormalizeEmail(email))
	if err != nil {
		return c.UserID, fmt.Errorf("find user by email: %w", err)
	}
	return c.UserID, nil
}

// Prune deletes sessions that ended more than a day before now, with
// their refresh tokens, and OTP rows whose code expired over an hour ago.
// It returns the number of sessions removed.
func (s *AccountStore) Prune(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := s.db.tx(ctx, func(x q) error {
		cutoff := now.Add(-24 * time.Hour)
		var err error
		if n, err = x.exec(ctx, `DELETE FROM sessions WHERE expires_at < ? OR revoked_at < ?`, cutoff, cutoff); err != nil {
			return err
		}
		_, err = x.exec(ctx, `DELETE FROM otps WHERE expires_at IS NULL OR expires_at < ?`, now.Add(-time.Hour))
		return err
	})
	if err != nil {
		return n, fmt.Errorf("prune expired rows: %w", err)
	}
	return n, nil
}
