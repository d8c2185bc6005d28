package sqlite

import (
	"context"
	"testing"

	"github.com/matryer/is"
)

// The port's contract is in totp_port_test.go; this checks what only the
// storage form can get wrong.
func TestTOTPStoredRecoveryHashes(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	db, accounts := bootstrapped(t)
	uid := addUser(t, accounts, "jane@example.com")
	exec(t, db, `INSERT INTO user_totp (user_id, sealed_secret, created_at, recovery_hashes) VALUES (?, x'00', 0, x'0102')`, uid)
	_, err := db.Stores().TOTP.TOTPAccount(context.Background(), uid)
	is.True(err != nil) // a hash list that is not whole 32-byte hashes is an error, not a misread
}
