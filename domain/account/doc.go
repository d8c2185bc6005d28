// Package account holds the rules of signing in: password policy, one-time
// passwords, lockout, sessions and refresh-token rotation, and the
// permission names of role-based access. It is pure Go: callers pass the
// current time and any random material in.
package account
