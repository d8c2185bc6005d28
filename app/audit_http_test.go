package app_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/matryer/is"

	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"
	"counsel/domain/audit"
)

// Security and administration events (docs/decisions.md §18), through
// HTTP and the command line on the engine of COUNSEL_TEST_ENGINE.

type eventDTO struct {
	ID          int64          `json:"id"`
	At          string         `json:"at"`
	Action      string         `json:"action"`
	ActorKind   string         `json:"actorKind"`
	ActorUserID *int64         `json:"actorUserId"`
	ActorName   string         `json:"actorName"`
	TargetType  string         `json:"targetType"`
	TargetID    string         `json:"targetId"`
	IP          string         `json:"ip"`
	UserAgent   string         `json:"userAgent"`
	RequestID   string         `json:"requestId"`
	Details     map[string]any `json:"details"`
}

func events(t *testing.T, s *apptest.Server, token, query string) ([]eventDTO, int64) {
	t.Helper()
	var page struct {
		Items []eventDTO
		Count int64
	}
	s.Do(t, "GET", "/api/audit/events?Limit=100&"+query, token, nil).Expect(t, 200, "list events").JSON(t, &page)
	return page.Items, page.Count
}

// find returns the newest event of action on target (any target when
// targetID is empty).
func find(es []eventDTO, action, targetID string) (eventDTO, bool) {
	for _, e := range es {
		if e.Action == action && (targetID == "" || e.TargetID == targetID) {
			return e, true
		}
	}
	return eventDTO{}, false
}

// doWith sends a request with a request id and a user agent.
func doWith(t *testing.T, s *apptest.Server, method, path, token string, body any, reqID string) *apptest.Response {
	t.Helper()
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, s.URL+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Request-Id", reqID)
	req.Header.Set("User-Agent", "AuditTest/1.0")
	return s.Send(t, req)
}

func TestAuditEvents(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, func(c *app.Config) { c.LockoutThreshold = 3 })
	is := is.New(t)
	ctx := context.Background()
	secrets := []string{apptest.AdminPassword}
	admin := s.Login(t, apptest.AdminEmail, apptest.AdminPassword)
	secrets = append(secrets, admin.AccessToken, admin.RefreshToken)
	adminID := int64(1)

	// Sign-in failures: a wrong password, an unknown email; a lockout.
	wrong := "wrong-password-1"
	secrets = append(secrets, wrong)
	for range 3 {
		s.Do(t, "POST", "/api/account/login", "", map[string]string{"email": "locked@example.com", "password": wrong, "otp": "123456"})
	}
	lockedID, err := s.App.CreateUser(ctx, account.NewUser{Email: "locked@example.com", FirstName: "Lock", LastName: "Ed"}, "password-locked-1")
	is.NoErr(err)
	secrets = append(secrets, "password-locked-1")
	for range 4 { // the fourth meets the lock
		s.Do(t, "POST", "/api/account/login", "", map[string]string{"email": "locked@example.com", "password": wrong, "otp": "123456"}).Expect(t, 401, "wrong")
	}

	// Administration through the API, with a request id.
	var role struct{ ID int64 }
	doWith(t, s, "POST", "/api/roles", admin.AccessToken, map[string]any{"name": "Auditors"}, "req-role").Expect(t, 201, "role").JSON(t, &role)
	doWith(t, s, "POST", fmt.Sprintf("/api/roles/%d/permissions", role.ID), admin.AccessToken, []string{"AuditView", "UsersView"}, "req-perms").Expect(t, 200, "perms")
	doWith(t, s, "PUT", fmt.Sprintf("/api/roles/%d", role.ID), admin.AccessToken, map[string]any{"name": "Auditors 2"}, "r").Expect(t, 200, "rename")
	newPW := "new-user-password-9"
	secrets = append(secrets, newPW)
	var u struct{ ID int64 }
	doWith(t, s, "POST", "/api/users", admin.AccessToken, map[string]any{"email": "aud@example.com", "firstName": "Audrey", "lastName": "Tor",
		"password": newPW}, "req-user").Expect(t, 201, "user").JSON(t, &u)
	uid := fmt.Sprint(u.ID)
	doWith(t, s, "POST", fmt.Sprintf("/api/users/%d/roles/%d", u.ID, role.ID), admin.AccessToken, nil, "r").Expect(t, 200, "assign")
	doWith(t, s, "PUT", "/api/users/"+uid, admin.AccessToken, map[string]any{"lastName": "Tor-Smith", "billingRate": 777.77}, "r").Expect(t, 200, "update")
	rem := remBody(u.ID, "2026-01-01", func(b map[string]any) { b["remunerationIncSuper"] = "123456.78" })
	payFigures := []string{"123456.78", "123456", "777.77"} // in their own tables, never in an event
	doWith(t, s, "POST", "/api/users/remuneration", admin.AccessToken, rem, "r").Expect(t, 200, "remuneration")
	doWith(t, s, "POST", "/api/users/pqeadjustments", admin.AccessToken, map[string]any{"staffId": u.ID, "name": "Leave", "startDate": "2020-01-01", "endDate": "2020-02-01"}, "r")
	var office struct{ ID int64 }
	doWith(t, s, "POST", "/api/offices", admin.AccessToken, map[string]any{"name": "Perth"}, "r").Expect(t, 201, "office").JSON(t, &office)
	doWith(t, s, "PUT", fmt.Sprintf("/api/offices/%d", office.ID), admin.AccessToken, map[string]any{"phone": "08 9000 0000"}, "r").Expect(t, 200, "office update")
	changed := "changed-password-77"
	secrets = append(secrets, changed)
	doWith(t, s, "POST", "/api/users/changepassword", admin.AccessToken, map[string]any{"id": u.ID, "password": changed}, "r").Expect(t, 200, "password")

	// The new user signs in (a code in the body), signs a session out, and
	// reuses a refresh token.
	var otp struct{ OTP string }
	s.Do(t, "POST", "/api/account/login/get-otp", "", map[string]string{"email": "aud@example.com"}).JSON(t, &otp)
	secrets = append(secrets, otp.OTP)
	var tok apptest.Tokens
	s.Do(t, "POST", "/api/account/login", "", map[string]string{"email": "aud@example.com", "password": changed, "otp": otp.OTP}).Expect(t, 200, "login").JSON(t, &tok)
	secrets = append(secrets, tok.AccessToken, tok.RefreshToken)
	refresh := map[string]string{"accessToken": tok.AccessToken, "refreshToken": tok.RefreshToken}
	var next apptest.Tokens
	s.Do(t, "POST", "/api/account/refresh-token", "", refresh).Expect(t, 200, "refresh").JSON(t, &next)
	secrets = append(secrets, next.AccessToken, next.RefreshToken)
	s.Do(t, "POST", "/api/account/refresh-token", "", refresh).Expect(t, 401, "reuse")
	second := s.Login(t, "aud@example.com", changed)
	secrets = append(secrets, second.AccessToken, second.RefreshToken)
	s.Do(t, "POST", "/api/account/logout", second.AccessToken, map[string]string{"refreshToken": second.RefreshToken}).Expect(t, 200, "logout")

	// An authenticator app: enabled, refused to turn off with a wrong
	// password, then reset by an administrator.
	_, totpTok, secret, recovery := totpUser(t, s, "audit-totp@example.com")
	secrets = append(secrets, secret, totpTok)
	secrets = append(secrets, recovery...)
	s.Do(t, "DELETE", "/api/account/totp", totpTok, map[string]string{"password": wrong, "otp": recovery[0]}).Expect(t, 400, "refused")
	var totpUserID int64
	s.QueryRow(ctx, `SELECT id FROM users WHERE email = 'audit-totp@example.com'`).Scan(&totpUserID)
	s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d/totp", totpUserID), admin.AccessToken, nil).Expect(t, 204, "reset")

	// A refused change writes nothing: deleting the last administrator.
	s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d/roles/1", adminID), admin.AccessToken, nil).Expect(t, 409, "last admin")
	doWith(t, s, "PUT", "/api/users/"+uid, admin.AccessToken, map[string]any{"active": false}, "r").Expect(t, 200, "deactivate")
	s.Do(t, "DELETE", fmt.Sprintf("/api/users/%d/roles/%d", u.ID, role.ID), admin.AccessToken, nil).Expect(t, 200, "unassign")
	s.Do(t, "DELETE", "/api/users/"+uid, admin.AccessToken, nil).Expect(t, 204, "delete")
	s.Do(t, "DELETE", fmt.Sprintf("/api/roles/%d", role.ID), admin.AccessToken, nil).Expect(t, 204, "delete role")

	// The command line.
	_, err = app.CreateUser(ctx, s.Config.DB, account.NewUser{Email: "cli@example.com", FirstName: "Cli"}, "cli-password-123")
	is.NoErr(err)
	secrets = append(secrets, "cli-password-123", "cli-password-456")
	is.NoErr(app.SetPassword(ctx, s.Config.DB, "cli@example.com", "cli-password-456"))
	_, err = app.ResetTOTP(ctx, s.Config.DB, "cli@example.com")
	is.NoErr(err)

	// Only AuditView may read them.
	_, staff := s.User(t)
	is.Equal(s.Do(t, "GET", "/api/audit/events", staff, nil).Status, 403)
	is.Equal(s.Do(t, "GET", "/api/audit/events/export", staff, nil).Status, 403)
	is.Equal(s.Do(t, "GET", "/api/audit/events", "", nil).Status, 401)

	all, count := events(t, s, admin.AccessToken, "")
	is.True(count >= int64(len(all)))
	for i := 1; i < len(all); i++ { // newest first
		is.True(all[i-1].At >= all[i].At)
	}
	want := []struct{ action, target string }{
		{audit.SignInFailed, ""}, {audit.AccountLocked, fmt.Sprint(lockedID)}, {audit.SignIn, fmt.Sprint(adminID)},
		{audit.RoleCreated, fmt.Sprint(role.ID)}, {audit.RolePermissionsChanged, fmt.Sprint(role.ID)}, {audit.RoleUpdated, fmt.Sprint(role.ID)},
		{audit.UserCreated, uid}, {audit.RoleAssigned, uid}, {audit.UserUpdated, uid}, {audit.RemunerationCreated, uid},
		{audit.PQEAdjustmentCreated, uid}, {audit.OfficeCreated, fmt.Sprint(office.ID)}, {audit.OfficeUpdated, fmt.Sprint(office.ID)},
		{audit.PasswordChanged, uid}, {audit.RefreshTokenReused, uid}, {audit.SignOut, uid}, {audit.TOTPEnabled, fmt.Sprint(totpUserID)},
		{audit.TOTPReset, fmt.Sprint(totpUserID)}, {audit.UserDeactivated, uid}, {audit.RoleRemoved, uid}, {audit.UserDeleted, uid},
		{audit.RoleDeleted, fmt.Sprint(role.ID)},
	}
	for _, w := range want {
		_, ok := find(all, w.action, w.target)
		if !ok {
			t.Errorf("no %s event on %q", w.action, w.target)
		}
	}
	_, ok := find(all, audit.TOTPDisabled, "")
	is.True(!ok) // refused: no event

	// What an event holds.
	e, _ := find(all, audit.RoleCreated, fmt.Sprint(role.ID))
	is.Equal(e.ActorKind, audit.ActorUser)
	is.Equal(*e.ActorUserID, adminID)
	is.Equal(e.ActorName, "Admin") // the bootstrap administrator's name
	is.Equal(e.TargetType, audit.TargetRole)
	is.Equal(e.IP, "127.0.0.1")
	is.Equal(e.UserAgent, "AuditTest/1.0")
	is.Equal(e.RequestID, "req-role")
	var updates []any
	for _, e := range all {
		if e.Action == audit.UserUpdated && e.TargetID == uid {
			updates = append(updates, e.Details["fields"])
		}
	}
	is.Equal(updates, []any{[]any{"active"}, []any{"lastName", "billingRate"}}) // names, not values; newest first
	e, _ = find(all, audit.SignIn, fmt.Sprint(adminID))
	is.Equal(e.Details["method"], account.MethodPassword)
	e, _ = find(all, audit.RolePermissionsChanged, fmt.Sprint(role.ID))
	is.Equal(e.Details["added"], []any{"UsersView", "AuditView"})
	reasons := map[any]bool{}
	for _, e := range all {
		if e.Action == audit.SignInFailed {
			reasons[e.Details["reason"]] = true
		}
	}
	is.True(reasons[audit.ReasonUnknownAccount] && reasons[audit.ReasonBadCredentials] && reasons[audit.ReasonLocked])
	cli, _ := events(t, s, admin.AccessToken, "Action=user.created&Action=password.changed,totp.reset&TargetType=user")
	kinds := map[string]int{}
	for _, e := range cli {
		kinds[e.ActorKind]++
		if e.ActorKind == audit.ActorCLI {
			is.True(strings.HasPrefix(e.ActorName, "counsel user "))
			is.Equal(e.ActorUserID, (*int64)(nil))
		}
	}
	is.Equal(kinds[audit.ActorCLI], 3) // create, set-password, reset-totp

	// Filters.
	byActor, _ := events(t, s, admin.AccessToken, fmt.Sprintf("ActorUserId=%d&Action=role.created", adminID))
	is.Equal(len(byActor), 2) // Auditors, and the empty role of s.User
	for _, e := range byActor {
		is.Equal(*e.ActorUserID, adminID)
	}
	onUser, n := events(t, s, admin.AccessToken, "targettype=user&TargetId="+uid)
	is.Equal(int(n), len(onUser))
	for _, e := range onUser {
		is.Equal(e.TargetID, uid)
	}
	future, n := events(t, s, admin.AccessToken, "From=2100-01-01T00:00:00Z") // the command line stamps real time, the service its fake clock
	is.Equal(n, int64(0))
	is.Equal(len(future), 0)
	past, _ := events(t, s, admin.AccessToken, "To=2000-01-01")
	is.Equal(len(past), 0)
	for _, q := range []string{"Action=nope", "From=soon", "ActorUserId=x", "Limit=-1", "From=2026-02-01&To=2026-01-01"} {
		is.Equal(s.Do(t, "GET", "/api/audit/events?"+q, admin.AccessToken, nil).Status, 400) // q
	}
	page, n := events(t, s, admin.AccessToken, "Limit=2&Offset=1")
	is.Equal(n, count)
	_ = page

	// The export: every match, as JSON lines or CSV.
	r := s.Do(t, "GET", "/api/audit/events/export?Action=role.created&Action=role.deleted", admin.AccessToken, nil).Expect(t, 200, "export")
	is.Equal(r.Header.Get("Content-Type"), "application/x-ndjson")
	is.True(strings.HasPrefix(r.Header.Get("Content-Disposition"), "attachment"))
	var lines []eventDTO
	sc := bufio.NewScanner(bytes.NewReader(r.Body))
	for sc.Scan() {
		var e eventDTO
		is.NoErr(json.Unmarshal(sc.Bytes(), &e))
		lines = append(lines, e)
	}
	is.Equal(len(lines), 3) // Auditors created and deleted, and the empty role of s.User
	is.Equal([]string{lines[0].Action, lines[1].Action, lines[2].Action}, []string{audit.RoleCreated, audit.RoleDeleted, audit.RoleCreated})
	r = s.Do(t, "GET", "/api/audit/events/export?format=csv", admin.AccessToken, nil).Expect(t, 200, "csv")
	is.True(strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv"))
	rows, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
	is.NoErr(err)
	is.Equal(rows[0][0], "id")
	is.True(len(rows) > len(all)/2)
	is.Equal(s.Do(t, "GET", "/api/audit/events/export?format=xml", admin.AccessToken, nil).Status, 400)
	is.Equal(s.Do(t, "GET", "/api/audit/events/export?Action=nope", admin.AccessToken, nil).Status, 400)

	// No secret anywhere: not in an event, not in any table.
	scanEverything(t, s, secrets)
	for _, e := range all {
		b, err := json.Marshal(e)
		is.NoErr(err)
		for _, v := range append(payFigures, otp.OTP) {
			if strings.Contains(string(b), v) {
				t.Errorf("event %s holds %q", e.Action, v)
			}
		}
	}
}

// scanEverything reads every column of every table as text and fails if
// any holds one of secrets.
func scanEverything(t *testing.T, s *apptest.Server, secrets []string) {
	t.Helper()
	ctx := context.Background()
	check := func(table string, row []any) {
		for _, v := range row {
			text := fmt.Sprint(v)
			if b, ok := v.([]byte); ok {
				text = string(b)
			}
			for _, sec := range secrets {
				if sec != "" && strings.Contains(text, sec) {
					t.Errorf("table %s holds a secret (%.6s…)", table, sec)
				}
			}
		}
	}
	if apptest.Engine() == "postgres" {
		conn, err := pgx.Connect(ctx, s.Config.DB)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		rows, err := conn.Query(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
		if err != nil {
			t.Fatal(err)
		}
		tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			rows, err := conn.Query(ctx, `SELECT * FROM "`+tb+`"`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				vals, err := rows.Values()
				if err != nil {
					t.Fatal(err)
				}
				check(tb, vals)
			}
			rows.Close()
		}
		return
	}
	db, err := sql.Open("sqlite", s.App.DB().Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	for _, tb := range tables {
		rows, err := db.QueryContext(ctx, `SELECT * FROM "`+tb+`"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			check(tb, vals)
		}
		rows.Close()
	}
}
