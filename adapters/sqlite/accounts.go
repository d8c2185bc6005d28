package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
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
	return sqlrow.ScanCredentials(dialect{}, s.db.queryRow(ctx, sqlrow.CredentialsSQL, email))
}

func loadOTP(ctx context.Context, tx *sql.Tx, email string) (account.OTPState, error) {
	var st account.OTPState
	var sends string
	var expires int64
	err := tx.QueryRowContext(ctx, `SELECT code_hash, expires_at, attempts, sends FROM otps WHERE email = ?`, email).
		Scan(&st.CodeHash, &expires, &st.Attempts, &sends)
	if errors.Is(err, sql.ErrNoRows) {
		return st, nil
	} else if err != nil {
		return st, err
	}
	st.ExpiresAt = fromMs(expires)
	for _, f := range strings.Split(sends, ",") {
		if v, err := strconv.ParseInt(f, 10, 64); err == nil {
			st.Sends = append(st.Sends, fromMs(v))
		}
	}
	return st, nil
}

func saveOTP(ctx context.Context, tx *sql.Tx, email string, st account.OTPState) error {
	sends := make([]string, len(st.Sends))
	for i, t := range st.Sends {
		sends[i] = strconv.FormatInt(ms(t), 10)
	}
	var hash any
	if len(st.CodeHash) > 0 {
		hash = st.CodeHash
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO otps (email, code_hash, expires_at, attempts, sends) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (email) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at,
		attempts = excluded.attempts, sends = excluded.sends`,
		email, hash, ms(st.ExpiresAt), st.Attempts, strings.Join(sends, ","))
	return err
}

// UpdateOTP implements ports.AccountStore.
func (s *AccountStore) UpdateOTP(ctx context.Context, email string, fn func(*account.OTPState) error) error {
	return s.db.writeTx(ctx, func(tx *sql.Tx) error {
		st, err := loadOTP(ctx, tx, email)
		if err != nil {
			return err
		}
		if err := fn(&st); err != nil {
			return err
		}
		return saveOTP(ctx, tx, email, st)
	})
}

// Login implements ports.AccountStore.
func (s *AccountStore) Login(ctx context.Context, userID int64, email string, fn func(*account.LoginState) error) error {
	return s.db.writeTx(ctx, func(tx *sql.Tx) error {
		c, err := sqlrow.ScanCredentials(dialect{}, tx.QueryRowContext(ctx, sqlrow.CredentialsSQL, email))
		if err != nil {
			return err
		}
		if c.UserID != userID {
			return sqlrow.NotFound("user")
		}
		otp, err := loadOTP(ctx, tx, email)
		if err != nil {
			return err
		}
		st := account.LoginState{Credentials: c, OTP: otp}
		if c.TOTPEnabled {
			if st.TOTP, err = sqlrow.ScanTOTP(dialect{}, tx.QueryRowContext(ctx, sqlrow.TOTPSQL, userID)); err != nil {
				return err
			}
		}
		if err := fn(&st); err != nil {
			return err
		}
		if err := sqlrow.SaveCounters(ctx, sq{tx}, dialect{}, userID, st.Credentials); err != nil {
			return err
		}
		if st.TOTP != nil {
			// The step used and a spent recovery code commit with the session.
			if err := sqlrow.SaveTOTP(ctx, sq{tx}, dialect{}, userID, st.TOTP); err != nil {
				return err
			}
		} else if err := saveOTP(ctx, tx, email, st.OTP); err != nil {
			return err
		}
		if st.Reauthenticated != "" {
			if err := sqlrow.RenewAuthentication(ctx, sq{tx}, dialect{}, st.Reauthenticated, userID, st.ReauthenticatedAt); err != nil {
				return err
			}
		}
		if st.NewSession != nil {
			return insertSession(ctx, tx, *st.NewSession, st.RefreshHash)
		}
		return nil
	})
}

func insertSession(ctx context.Context, tx *sql.Tx, ss account.Session, refreshHash []byte) error {
	return sqlrow.InsertSession(ctx, sq{tx}, dialect{}, ss, refreshHash)
}

// CreateSession implements ports.AccountStore.
func (s *AccountStore) CreateSession(ctx context.Context, ss account.Session, refreshHash []byte) error {
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error { return insertSession(ctx, tx, ss, refreshHash) })
	if err != nil {
		return fmt.Errorf("create session of user %d: %w", ss.UserID, err)
	}
	return nil
}

// sessionCols ends with when the session last authenticated: its
// sign-in (created_at) until a re-authentication sets authenticated_at.
const sessionCols = `s.id, s.user_id, s.method, s.created_at, s.expires_at, s.revoked_at, COALESCE(s.authenticated_at, s.created_at)`

func scanSession(row rowScanner, extra ...any) (account.Session, error) {
	var ss account.Session
	var created, expires, authed int64
	var revoked sql.NullInt64
	dest := append([]any{&ss.ID, &ss.UserID, &ss.Method, &created, &expires, &revoked, &authed}, extra...)
	if err := row.Scan(dest...); errors.Is(err, sql.ErrNoRows) {
		return ss, sqlrow.NotFound("session")
	} else if err != nil {
		return ss, err
	}
	ss.CreatedAt, ss.ExpiresAt, ss.RevokedAt = fromMs(created), fromMs(expires), fromNullMs(revoked)
	ss.AuthenticatedAt = fromMs(authed)
	return ss, nil
}

// The statements of a refresh, prepared once (stmt.go hotWrites).
const (
	refreshSelectSQL = `SELECT ` + sessionCols + `, t.used_at, u.active = 1 AND u.deleted_at IS NULL
		FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id JOIN users u ON u.id = s.user_id
		WHERE t.hash = ?`
	revokeSessionSQL = `UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`
	useRefreshSQL    = `UPDATE refresh_tokens SET used_at = ? WHERE hash = ?`
	insertRefreshSQL = `INSERT INTO refresh_tokens (hash, session_id, created_at) VALUES (?, ?, ?)`
)

// SessionByRefreshHash implements ports.AccountStore.
func (s *AccountStore) SessionByRefreshHash(ctx context.Context, tokenHash []byte) (account.Session, error) {
	return scanSession(s.db.queryRow(ctx, `SELECT `+sessionCols+`
		FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id WHERE t.hash = ?`, tokenHash))
}

// Session implements ports.AccountStore.
func (s *AccountStore) Session(ctx context.Context, id string) (account.Session, error) {
	return scanSession(s.db.queryRow(ctx, `SELECT `+sessionCols+` FROM sessions s WHERE s.id = ?`, id))
}

// ConsoleSession implements ports.AccountStore.
func (s *AccountStore) ConsoleSession(ctx context.Context, tokenHash []byte) (account.Session, error) {
	var lastSeen sql.NullInt64
	var kind string
	ss, err := scanSession(s.db.queryRow(ctx, `SELECT `+sessionCols+`, s.kind, s.last_seen FROM sessions s WHERE s.token_hash = ?`, tokenHash),
		&kind, &lastSeen)
	if err != nil {
		return ss, err
	}
	ss.Kind, ss.TokenHash = kind, tokenHash
	if lastSeen.Valid {
		ss.LastSeen = fromMs(lastSeen.Int64)
	}
	return ss, nil
}

// TouchSession implements ports.AccountStore.
func (s *AccountStore) TouchSession(ctx context.Context, id string, at time.Time) error {
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET last_seen = ? WHERE id = ? AND revoked_at IS NULL`, ms(at), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("touch session %q: %w", id, err)
	}
	return nil
}

// RevokeSession implements ports.AccountStore.
func (s *AccountStore) RevokeSession(ctx context.Context, id string, at time.Time) error {
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, ms(at), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("revoke session %q: %w", id, err)
	}
	return nil
}

// RevokeUserSessions implements ports.AccountStore.
func (s *AccountStore) RevokeUserSessions(ctx context.Context, userID int64, at time.Time) error {
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error { return revokeUserSessions(ctx, tx, userID, at) })
	if err != nil {
		return fmt.Errorf("revoke the sessions of user %d: %w", userID, err)
	}
	return nil
}

func revokeUserSessions(ctx context.Context, tx *sql.Tx, userID int64, at time.Time) error {
	_, err := tx.ExecContext(ctx, `UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL`, ms(at), userID)
	return err
}

// UserAccess implements ports.AccountStore. The union of the user's roles'
// permissions is computed in one query.
func (s *AccountStore) UserAccess(ctx context.Context, userID int64) (account.PermissionSet, bool, error) {
	rows, err := s.db.query(ctx, `SELECT r.is_system_admin, rp.permission
		FROM users u
		LEFT JOIN user_roles ur ON ur.user_id = u.id
		LEFT JOIN roles r ON r.id = ur.role_id
		LEFT JOIN role_permissions rp ON rp.role_id = r.id
		WHERE u.id = ? AND u.deleted_at IS NULL AND u.active = 1`, userID)
	if err != nil {
		return 0, false, err
	}
	defer rows.Close()
	var set account.PermissionSet
	found, admin := false, false
	for rows.Next() {
		found = true
		var isAdmin sql.NullBool
		var perm sql.NullString
		if err := rows.Scan(&isAdmin, &perm); err != nil {
			return 0, false, err
		}
		if isAdmin.Bool {
			admin = true
		}
		if p, ok := account.ParsePermission(perm.String); ok && perm.Valid {
			set |= account.NewPermissionSet(p)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, false, err
	}
	if !found {
		return 0, false, sqlrow.NotFound("user")
	}
	if admin {
		set = account.AllPermissionSet
	}
	return set, admin, nil
}

// SigningKeys implements ports.AccountStore.
func (s *AccountStore) SigningKeys(ctx context.Context) ([]account.SigningKey, error) {
	rows, err := s.db.query(ctx, `SELECT kid, private_key, created_at, retired_at FROM signing_keys ORDER BY created_at DESC, kid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []account.SigningKey
	for rows.Next() {
		var k account.SigningKey
		var created int64
		var retired sql.NullInt64
		if err := rows.Scan(&k.ID, &k.PrivateKey, &created, &retired); err != nil {
			return nil, err
		}
		k.CreatedAt, k.RetiredAt = fromMs(created), fromNullMs(retired)
		out = append(out, k)
	}
	return out, rows.Err()
}

// AddSigningKey implements ports.AccountStore.
func (s *AccountStore) AddSigningKey(ctx context.Context, k account.SigningKey) error {
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO signing_keys (kid, private_key, created_at, retired_at) VALUES (?, ?, ?, ?)`,
			k.ID, k.PrivateKey, ms(k.CreatedAt), nullMs(k.RetiredAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("add signing key %q: %w", k.ID, err)
	}
	return nil
}

// EnsureSigningKey implements ports.AccountStore. Write transactions
// begin IMMEDIATE, so processes starting together on one file decide one
// after the other.
func (s *AccountStore) EnsureSigningKey(ctx context.Context, k account.SigningKey) error {
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO signing_keys (kid, private_key, created_at, retired_at)
			SELECT ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM signing_keys)`,
			k.ID, k.PrivateKey, ms(k.CreatedAt), nullMs(k.RetiredAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("first signing key: %w", err)
	}
	return nil
}

// Secret implements ports.AccountStore.
func (s *AccountStore) Secret(ctx context.Context, name string, create func() ([]byte, error)) ([]byte, error) {
	var v []byte
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT value FROM settings WHERE name = ?`, name).Scan(&v)
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if v, err = create(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO settings (name, value) VALUES (?, ?)`, name, v)
		return err
	})
	if err != nil {
		return v, fmt.Errorf("secret %q: %w", name, err)
	}
	return v, nil
}

// HasUsers implements ports.AccountStore.
func (s *AccountStore) HasUsers(ctx context.Context) (bool, error) {
	var one int
	err := s.db.queryRow(ctx, `SELECT 1 FROM users LIMIT 1`).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return err == nil, fmt.Errorf("count users: %w", err)
	}
	return err == nil, nil
}

// Bootstrap implements ports.AccountStore.
func (s *AccountStore) Bootstrap(ctx context.Context, admin account.NewUser) (bool, error) {
	created := false
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		if err := ensureRoles(ctx, tx); err != nil {
			return err
		}
		var users int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM users`).Scan(&users); err != nil || users > 0 {
			return err
		}
		admin.Roles = []string{account.AdministratorRole}
		_, err := createUser(ctx, tx, admin, s.db.Now())
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
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error { return ensureRoles(ctx, tx) })
	if err != nil {
		return fmt.Errorf("ensure the built-in roles: %w", err)
	}
	return nil
}

func ensureRoles(ctx context.Context, tx *sql.Tx) error {
	var roles int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM roles`).Scan(&roles); err != nil || roles > 0 {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO roles (name, is_system_admin, is_default_role) VALUES (?, 1, 0), (?, 0, 1)`,
		account.AdministratorRole, account.StaffRole); err != nil {
		return err
	}
	if err := setRolePermissions(ctx, tx, account.AdministratorRole, account.AllPermissionSet); err != nil {
		return err
	}
	return setRolePermissions(ctx, tx, account.StaffRole, account.NewPermissionSet(account.ContractView))
}

func setRolePermissions(ctx context.Context, tx *sql.Tx, roleName string, ps account.PermissionSet) error {
	var id int64
	if err := tx.QueryRowContext(ctx, `SELECT id FROM roles WHERE name = ?`, roleName).Scan(&id); err != nil {
		return err
	}
	return sqlrow.ReplaceRolePermissions(ctx, sq{tx}, id, ps)
}

// CreateUser implements ports.AccountStore.
func (s *AccountStore) CreateUser(ctx context.Context, u account.NewUser) (int64, error) {
	var id int64
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		var err error
		id, err = createUser(ctx, tx, u, s.db.Now())
		ports.Created(ctx, id)
		return err
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

func createUser(ctx context.Context, tx *sql.Tx, u account.NewUser, now time.Time) (int64, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO users (email, first_name, last_name, password_hash, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?)`, account.NormalizeEmail(u.Email), u.FirstName, u.LastName, u.PasswordHash, ms(now), ms(now))
	if err != nil {
		if domain.ErrorCode(formatError(err)) == domain.ECONFLICT {
			return 0, &domain.Error{Code: domain.ECONFLICT, Message: "a user with this email already exists"}
		}
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	// No id with an error: the transaction rolls the row back.
	if err := assignRoles(ctx, tx, id, u.Roles); err != nil {
		return 0, err
	}
	return id, nil
}

// assignRoles gives a new user the named roles, or the default roles when
// none are named.
func assignRoles(ctx context.Context, tx *sql.Tx, userID int64, names []string) error {
	if len(names) == 0 {
		_, err := tx.ExecContext(ctx, `INSERT INTO user_roles (user_id, role_id) SELECT ?, id FROM roles WHERE is_default_role = 1`, userID)
		return err
	}
	for _, n := range names {
		res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO user_roles (user_id, role_id) SELECT ?, id FROM roles WHERE name = ?`, userID, n)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k == 0 {
			var exists int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM roles WHERE name = ?`, n).Scan(&exists); err != nil {
				return err
			}
			if exists == 0 {
				return domain.Invalid(map[string][]string{"roles": {"unknown role " + strconv.Quote(n)}})
			}
		}
	}
	return nil
}

// SetPassword implements ports.AccountStore.
func (s *AccountStore) SetPassword(ctx context.Context, userID int64, hash string, at time.Time, check account.RoleCheck) error {
	return s.db.writeTx(ctx, func(tx *sql.Tx) error {
		if err := s.db.runRoleCheck(ctx, tx, userID, check); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ?, failed_logins = 0, locked_until = 0, updated_at = ?
			WHERE id = ? AND deleted_at IS NULL`, hash, ms(at), userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return sqlrow.NotFound("user")
		}
		return revokeUserSessions(ctx, tx, userID, at)
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

// Prune deletes what sign-in no longer needs, so the file does not grow
// with every sign-in: sessions that ended (expired or revoked) more than a
// day before now, with their refresh tokens, and one-time-password rows
// whose code expired more than an hour ago. It returns the number of
// sessions removed.
func (s *AccountStore) Prune(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := s.db.writeTx(ctx, func(tx *sql.Tx) error {
		cutoff := ms(now.Add(-24 * time.Hour))
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at < ? OR revoked_at < ?`, cutoff, cutoff)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		// A code expires TTL after its send, so a row whose code expired over
		// an hour ago has no send left inside the hourly window either.
		_, err = tx.ExecContext(ctx, `DELETE FROM otps WHERE expires_at < ?`, ms(now.Add(-time.Hour)))
		return err
	})
	if err != nil {
		return n, err
	}
	// Housekeeping's moment for the planner's statistics too: cheap when
	// nothing changed much, a sampled ANALYZE of a table that did.
	return n, s.db.Optimize(ctx)
}
