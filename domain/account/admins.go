package account

import "counsel/domain"

// AdminCount is how many active, undeleted users hold a system-admin role
// before and after a change. A store reads both inside the change's
// transaction (and, where several instances write, under a lock), so the
// rule below decides on figures no concurrent change can falsify.
type AdminCount struct{ Before, After int }

// AdminRule decides whether a change may commit given the administrators
// it leaves. Stores call it inside the change's transaction; an error
// rolls the change back and is returned as is.
type AdminRule func(AdminCount) error

// Messages of the last-administrator rule, one per way of losing the last
// one (clients see them verbatim).
const (
	LastAdminRole    = "the last system administrator cannot lose that role"
	LastAdminChange  = "the change would leave no active system administrator"
	LastAdminDeleted = "the last system administrator cannot be deleted"
)

// KeepAnAdmin is the last-administrator rule: a change must not leave no
// active system administrator where there was one (ECONFLICT with msg).
// A database without any administrator (an import under way) is not
// refused, so it can be repaired.
func KeepAnAdmin(msg string) AdminRule {
	return func(c AdminCount) error {
		if c.Before > 0 && c.After == 0 {
			return &domain.Error{Code: domain.ECONFLICT, Message: msg}
		}
		return nil
	}
}
