package app_test

// The holes of the outside security review, one test each,
// through HTTP against a real SQLite file; each asserts its hole stays closed.
// The wider attack suite, one table per area, is attacks_test.go.

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"counsel/adapters/oidc/oidctest"
	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/account"

	"github.com/matryer/is"
)

// roleID finds a role by name.
func roleID(t *testing.T, s *apptest.Server, admin, name string) int64 {
	t.Helper()
	var roles []struct {
		ID   int64
		Name string
	}
	s.Do(t, "GET", "/api/roles", admin, nil).JSON(t, &roles)
	for _, r := range roles {
		if r.Name == name {
			return r.ID
		}
	}
	t.Fatalf("no role %s", name)
	return 0
}

// newRole creates a role with perms as the administrator.
func newRole(t *testing.T, s *apptest.Server, admin, name string, perms ...account.Permission) int64 {
	t.Helper()
	r := s.Do(t, "POST", "/api/roles", admin, map[string]any{"name": name})
	if r.Status != 201 {
		t.Fatalf("create role %s: %d %s", name, r.Status, r.Body)
	}
	var created struct {
		ID int64
	}
	r.JSON(t, &created)
	names := []string{}
	for _, p := range perms {
		names = append(names, p.String())
	}
	if r := s.Do(t, "POST", fmt.Sprintf("/api/roles/%d/permissions", created.ID), admin, names); r.Status != 200 {
		t.Fatalf("set permissions of %s: %d %s", name, r.Status, r.Body)
	}
	return created.ID
}

// myPermissions lists what token's holder may do.
func myPermissions(t *testing.T, s *apptest.Server, token string) map[string]bool {
	t.Helper()
	var names []string
	s.Do(t, "GET", "/api/permissions/me", token, nil).JSON(t, &names)
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out
}

// TestSecurityRoleEscalation: hole 1. A holder of RolesEdit made the
// Administrator role the default role, so every user created afterwards
// was a system administrator; siblings widen permissions through every
// other path that hands them out.
func TestSecurityRoleEscalation(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	adminRole := roleID(t, s, admin, account.AdministratorRole)
	staff := roleID(t, s, admin, account.StaffRole)
	strong := newRole(t, s, admin, "Partners", account.ContractDelete, account.UsersDelete)
	plain := newRole(t, s, admin, "Clerks", account.RolesView)
	editorID, editor := s.User(t, account.RolesView, account.RolesCreate, account.RolesEdit, account.RolesDelete)
	managerID, manager := s.User(t, account.UsersView, account.UsersCreate, account.UsersEdit)

	ids := func(id ...int64) []int64 { return id }
	// A stronger account and an ordinary one, for the takeover cases.
	partner := usrCreate(t, s, admin, map[string]any{"email": "partner@example.com", "firstName": "P", "roleIds": ids(strong), "password": "partner-password"})
	ordinary := usrCreate(t, s, admin, map[string]any{"email": "ordinary@example.com", "firstName": "O", "password": "ordinary-password"})
	role := func(id int64) string { return fmt.Sprintf("/api/roles/%d", id) }
	tests := []struct {
		name, method, path, token string
		body                      any
		status                    int
	}{
		// Roles: the original hole and its siblings.
		{"make the administrator role the default", "PUT", role(adminRole), editor, map[string]any{"isDefaultRole": true}, 403},
		{"even an administrator cannot make it default", "PUT", role(adminRole), admin, map[string]any{"isDefaultRole": true}, 409},
		{"a new role that is both", "POST", "/api/roles", admin, map[string]any{"name": "Both", "isSystemAdmin": true, "isDefaultRole": true}, 409},
		{"make the default role system admin", "PUT", role(staff), admin, map[string]any{"isSystemAdmin": true}, 409},
		{"make the default role system admin, editor", "PUT", role(staff), editor, map[string]any{"isSystemAdmin": true}, 403},
		{"make a plain role default", "PUT", role(plain), editor, map[string]any{"isDefaultRole": true}, 403},
		{"create a default role", "POST", "/api/roles", editor, map[string]any{"name": "Everyone", "isDefaultRole": true}, 403},
		{"create a system-admin role", "POST", "/api/roles", editor, map[string]any{"name": "Root", "isSystemAdmin": true}, 403},
		{"rename the default role", "PUT", role(staff), editor, map[string]any{"name": "Renamed"}, 403},
		{"rename the administrator role", "PUT", role(adminRole), editor, map[string]any{"name": "Renamed"}, 403},
		{"delete the default role", "DELETE", role(staff), editor, nil, 403},
		{"delete the administrator role", "DELETE", role(adminRole), editor, nil, 403},
		{"give the default role a permission", "POST", role(staff) + "/permissions", editor, []string{"ContractView", "RolesView"}, 403},
		{"widen a role beyond one's own", "POST", role(plain) + "/permissions", editor, []string{"RolesView", "UsersDelete"}, 403},
		{"narrow a role", "POST", role(strong) + "/permissions", editor, []string{"ContractDelete"}, 200},
		{"widen a role within one's own", "POST", role(plain) + "/permissions", editor, []string{"RolesView", "RolesEdit"}, 200},
		// Users: assignment, creation and change with roleIds.
		{"give oneself the administrator role", "POST", fmt.Sprintf("/api/users/%d/roles/%d", managerID, adminRole), manager, nil, 403},
		{"give oneself a stronger role", "POST", fmt.Sprintf("/api/users/%d/roles/%d", managerID, strong), manager, nil, 403},
		{"give another a stronger role", "POST", fmt.Sprintf("/api/users/%d/roles/%d", ordinary.ID, strong), manager, nil, 403},
		{"give another the default role", "POST", fmt.Sprintf("/api/users/%d/roles/%d", editorID, staff), manager, nil, 403},
		{"create a user with a stronger role", "POST", "/api/users", manager, map[string]any{"email": "x1@example.com", "firstName": "X", "roleIds": ids(strong)}, 403},
		{"create a user with the administrator role", "POST", "/api/users", manager, map[string]any{"email": "x2@example.com", "firstName": "X", "roleIds": ids(adminRole)}, 403},
		{"create a user with the default role named", "POST", "/api/users", manager, map[string]any{"email": "x3@example.com", "firstName": "X", "roleIds": ids(staff)}, 403},
		{"give oneself a stronger role through roleIds", "PUT", fmt.Sprintf("/api/users/%d", managerID), manager, map[string]any{"roleIds": ids(strong)}, 403},
		// Takeover of a stronger account.
		{"set a stronger user's password", "POST", "/api/users/changepassword", manager, map[string]any{"id": partner.ID, "password": "taken-over-1"}, 403},
		{"set a stronger user's email", "PUT", fmt.Sprintf("/api/users/%d", partner.ID), manager, map[string]any{"email": "mine@example.com"}, 403},
		{"reset a stronger user's authenticator app", "DELETE", fmt.Sprintf("/api/users/%d/totp", partner.ID), manager, nil, 403},
		{"reset the administrator's authenticator app", "DELETE", "/api/users/1/totp", manager, nil, 403},
		{"set the administrator's password", "POST", "/api/users/changepassword", manager, map[string]any{"id": 1, "password": "taken-over-1"}, 403},
		// What stays allowed.
		{"create a user with the default roles", "POST", "/api/users", manager, map[string]any{"email": "x4@example.com", "firstName": "X"}, 201},
		{"reset an ordinary user's authenticator app", "DELETE", fmt.Sprintf("/api/users/%d/totp", ordinary.ID), manager, nil, 204},
		{"reset an ordinary user's password", "POST", "/api/users/changepassword", manager, map[string]any{"id": ordinary.ID, "password": "reset-password-1"}, 200},
		{"an administrator gives a stronger role", "POST", fmt.Sprintf("/api/users/%d/roles/%d", ordinary.ID, strong), admin, nil, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := s.Do(t, tt.method, tt.path, tt.token, tt.body)
			is.Equal(r.Status, tt.status) // the attack fails (or the allowed change works)
		})
	}
	is := is.New(t)
	perms := myPermissions(t, s, manager)
	is.True(!perms["UsersDelete"] && !perms["ContractDelete"]) // the manager gained nothing
	s.Login(t, "partner@example.com", "partner-password")      // the partner's password is unchanged
	var got struct{ IsDefaultRole bool }
	s.Do(t, "GET", role(adminRole), admin, nil).JSON(t, &got)
	is.True(!got.IsDefaultRole) // new users are not administrators
}

// TestSecurityAutoProvisionedUsersAreNotAdministrators: users an identity
// provider creates get the default roles, which a RolesEdit holder can no
// longer turn into administrator roles or widen.
func TestSecurityAutoProvisionedUsersAreNotAdministrators(t *testing.T) {
	t.Parallel()
	e := newIdPEnv(t, func(c *app.Config, _ *oidctest.Provider) {
		c.OIDCAutoProvision, c.OIDCAllowedDomains = true, []string{"example.com"}
	})
	is := is.New(t)
	admin := e.Admin(t)
	adminRole, staff := roleID(t, e.Server, admin, account.AdministratorRole), roleID(t, e.Server, admin, account.StaffRole)
	_, editor := e.User(t, account.RolesView, account.RolesEdit)
	is.Equal(e.Do(t, "PUT", fmt.Sprintf("/api/roles/%d", adminRole), editor, map[string]any{"isDefaultRole": true}).Status, 403)
	is.Equal(e.Do(t, "PUT", fmt.Sprintf("/api/roles/%d", staff), editor, map[string]any{"isSystemAdmin": true}).Status, 403)
	is.Equal(e.Do(t, "POST", fmt.Sprintf("/api/roles/%d/permissions", staff), editor, []string{"RolesEdit", "UsersDelete"}).Status, 403)
	tok := signedIn(t, e.login(t, e.idp.Mint("RS256", e.claims("new-1", "new@example.com")), ""), 0)
	perms := myPermissions(t, e.Server, tok.AccessToken)
	is.True(!perms["UsersDelete"] && !perms["RolesEdit"]) // the provisioned user got only the default role
}

// TestSecurityScriptURLs: hole 2. profilePictureUrl and an office's
// website took javascript: and other schemes that clients render as links.
func TestSecurityScriptURLs(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	admin := s.Admin(t)
	u := usrCreate(t, s, admin, map[string]any{"email": "url@example.com", "firstName": "U"})
	var office struct{ ID int64 }
	s.Do(t, "POST", "/api/offices", admin, map[string]any{"name": "Perth"}).JSON(t, &office)
	bad := []string{"javascript:alert(document.cookie)", " JAVASCRIPT:alert(1)", "data:text/html;base64,PHNjcmlwdD4=",
		"vbscript:msgbox(1)", "file:///etc/passwd", "//evil.example/x", "/local", "https://good.example@evil.example/"}
	for _, v := range bad {
		for _, tt := range []struct{ method, path, field string }{
			{"POST", "/api/users", "profilePictureUrl"},
			{"PUT", fmt.Sprintf("/api/users/%d", u.ID), "profilePictureUrl"},
			{"POST", "/api/offices", "website"},
			{"PUT", fmt.Sprintf("/api/offices/%d", office.ID), "website"},
		} {
			t.Run(tt.method+" "+tt.path+" "+v, func(t *testing.T) {
				is := is.New(t)
				r := s.Do(t, tt.method, tt.path, admin, map[string]any{"email": "n@example.com", "firstName": "N", "name": "N", tt.field: v})
				is.Equal(r.Status, 400)                   // refused
				is.True(usrErrors(t, r)[tt.field] != nil) // naming the field
			})
		}
	}
	is := is.New(t)
	r := s.Do(t, "PUT", fmt.Sprintf("/api/users/%d", u.ID), admin, map[string]any{"profilePictureUrl": "https://cdn.example/p.png"})
	is.Equal(r.Status, 200) // http(s) is fine
	r = s.Do(t, "PUT", fmt.Sprintf("/api/offices/%d", office.ID), admin, map[string]any{"website": ""})
	is.Equal(r.Status, 200) // and so is empty
}

// TestSecurityViewerCannotActAsSigner: hole 3. A ContractView-only user
// read a signer's embedSrc and could sign in the client's place; at
// DocuSeal the template slug opens a form anyone can sign, a sibling.
func TestSecurityViewerCannotActAsSigner(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"embedded", "docuseal"} {
		t.Run(provider, func(t *testing.T) {
			var s *apptest.Server
			if provider == "docuseal" {
				s, _ = docusealFixture(t)
			} else {
				s = apptest.New(t)
			}
			admin := s.Admin(t)
			id, doc := signingContract(t, s, admin, "Viewer test", 1)
			sub := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "", "client@client.example"))
			link := sub.Submitters[0].EmbedSrc
			if link == "" {
				t.Fatal("the submitting editor gets the signer's link")
			}
			_, viewer := s.User(t, account.ContractView)
			_, editor := s.User(t, account.ContractView, account.ContractEdit)
			for _, path := range []string{
				fmt.Sprintf("/api/contracts/%d/submissions", id),
				fmt.Sprintf("/api/contracts/%d/template", id),
				fmt.Sprintf("/api/contracts/%d", id),
				fmt.Sprintf("/api/contracts/%d/history", id),
				fmt.Sprintf("/api/contracts/%d/documents", id),
			} {
				t.Run(path, func(t *testing.T) {
					is := is.New(t)
					r := s.Do(t, "GET", path, viewer, nil)
					is.True(r.Status == 200 || r.Status == 404)                 // the viewer may read
					is.True(!strings.Contains(string(r.Body), link))            // but not the signer's link
					is.True(!strings.Contains(string(r.Body), `"embedSrc":"h`)) // nor any other
				})
			}
			is := is.New(t)
			var page struct{ Items []signingSubmission }
			s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/submissions", id), viewer, nil).JSON(t, &page)
			subs := page.Items
			is.Equal(len(subs), 1)                                           // the viewer sees the submission
			is.Equal(subs[0].Submitters[0].Status, sub.Submitters[0].Status) // and the submitters' statuses
			is.Equal(subs[0].Submitters[0].EmbedSrc, "")                     // without the link
			if provider == "embedded" {                                      // the fake DocuSeal lists submitters without their links
				var mine struct{ Items []signingSubmission }
				s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/submissions", id), editor, nil).JSON(t, &mine)
				is.Equal(mine.Items[0].Submitters[0].EmbedSrc, link) // ContractEdit does see it
			}
			var tpl struct{ Slug string }
			s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/template", id), viewer, nil).JSON(t, &tpl)
			is.Equal(tpl.Slug, "") // no template slug for a viewer
			s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/template", id), editor, nil).JSON(t, &tpl)
			is.True(tpl.Slug != "") // an editor has it
		})
	}
}

// framed asserts that r refuses framing by any site but allowed.
func framed(t *testing.T, r *apptest.Response, allowed string) {
	t.Helper()
	is := is.New(t)
	csp := r.Header.Get("Content-Security-Policy")
	is.True(strings.Contains(csp, "frame-ancestors "+allowed)) // frame-ancestors
	is.Equal(strings.Count(csp, "frame-ancestors"), 1)         // once
	xfo := r.Header.Get("X-Frame-Options")
	if allowed == "'none'" {
		is.Equal(xfo, "DENY") // X-Frame-Options
	} else {
		is.Equal(xfo, "SAMEORIGIN") // the fallback of browsers without frame-ancestors
	}
}

// TestSecurityFraming: hole 5. No HTML page refused framing. Every route
// the served document lists as answering text/html (so routes added
// later too), every error and JSON answer, and the signer's pages and
// documents with and without COUNSEL_FRAME_ANCESTORS.
func TestSecurityFraming(t *testing.T) {
	t.Parallel()
	for _, ancestors := range [][]string{nil, {"https://www.firm.example", "https://intranet.firm.example:8443"}} {
		t.Run(fmt.Sprint(len(ancestors), " origins"), func(t *testing.T) {
			s := apptest.New(t, func(c *app.Config) { c.FrameAncestors = ancestors })
			signer := "'none'"
			if ancestors != nil {
				signer = strings.Join(ancestors, " ")
			}
			admin := s.Admin(t)
			id, doc := signingContract(t, s, admin, "Framing", 1)
			sub := signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "", "client@client.example"))
			link := sub.Submitters[0].EmbedSrc
			slug := link[strings.LastIndex(link, "/")+1:]

			var spec struct {
				Paths map[string]map[string]struct {
					Responses map[string]struct{ Content map[string]any }
				}
			}
			s.Do(t, "GET", "/openapi.json", "", nil).JSON(t, &spec)
			pages := 0
			for p, methods := range spec.Paths {
				for m, op := range methods {
					html := false // a page answers HTML on success
					for code, resp := range op.Responses {
						_, ok := resp.Content["text/html"]
						html = html || (ok && strings.HasPrefix(code, "2"))
					}
					if !html {
						continue
					}
					pages++
					path := strings.ReplaceAll(p, "{slug}", slug)
					want := "'none'"
					if strings.HasPrefix(p, "/sign/") {
						want = signer
					}
					t.Run(strings.ToUpper(m)+" "+p, func(t *testing.T) {
						var r *apptest.Response
						if m == "post" {
							req, _ := http.NewRequest("POST", s.URL+path, strings.NewReader("token=x"))
							req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
							r = s.Send(t, req)
						} else {
							r = s.Do(t, "GET", path, "", nil)
						}
						is.New(t).True(strings.HasPrefix(r.Header.Get("Content-Type"), "text/html")) // a page
						framed(t, r, want)
					})
				}
			}
			is := is.New(t)
			is.True(pages >= 4) // /docs and the signer's pages
			others := []struct {
				path, want string
			}{
				{"/sign/unknown-slug", signer},                            // the not-found page
				{fmt.Sprintf("/sign/%s/documents/%d", slug, doc), signer}, // a signer's document
				{"/api/users", "'none'"},                                  // a JSON error
				{"/healthz", "'none'"},                                    // JSON
				{"/no/such/route", "'none'"},                              // unmatched
			}
			for _, o := range others {
				r := s.Do(t, "GET", o.path, "", nil)
				framed(t, r, o.want)
			}
		})
	}
}

// TestSecurityLinkTTL: the signed links to template documents last
// COUNSEL_LINK_TTL (default 1h, as before), and a changed or expired link
// is a 404.
func TestSecurityLinkTTL(t *testing.T) {
	t.Parallel()
	for _, ttl := range []time.Duration{0, 10 * time.Minute} {
		t.Run(fmt.Sprint(ttl), func(t *testing.T) {
			s := apptest.New(t, func(c *app.Config) {
				if ttl > 0 {
					c.LinkTTL = ttl
				}
			})
			if ttl == 0 {
				ttl = time.Hour
			}
			is := is.New(t)
			admin := s.Admin(t)
			id, doc := signingContract(t, s, admin, "Links", 1)
			signingSubmissionOf(t, signingSubmit(t, s, admin, id, []int64{doc}, "", "client@client.example"))
			var tpl struct{ Documents []struct{ URL string } }
			s.Do(t, "GET", fmt.Sprintf("/api/contracts/%d/template", id), admin, nil).JSON(t, &tpl)
			link := tpl.Documents[0].URL
			get := func(u string) int {
				req, _ := http.NewRequest("GET", u, nil)
				return s.Send(t, req).Status
			}
			is.Equal(get(link), 200)                                      // the link works
			is.Equal(get(strings.Replace(link, "sig=", "sig=A", 1)), 404) // a changed signature does not
			s.Clock.Advance(ttl - time.Second)
			is.Equal(get(link), 200) // until the end of its lifetime
			s.Clock.Advance(2 * time.Second)
			is.Equal(get(link), 404) // and not after
		})
	}
}

// TestSecurityDocsAccessible: hole 6. axe-core found the code samples of
// /docs, scrollable regions, unreachable by keyboard, and headings that
// skipped a level. Every <pre> is focusable and named, and headings go
// down one level at a time.
func TestSecurityDocsAccessible(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	is := is.New(t)
	r := s.Do(t, "GET", "/docs", "", nil)
	is.Equal(r.Status, 200)
	page := string(r.Body)
	pres := regexp.MustCompile(`<pre[^>]*>`).FindAllString(page, -1)
	is.True(len(pres) > 20) // the code samples
	labels := map[string]bool{}
	for _, p := range pres {
		is.True(strings.Contains(p, `tabindex="0"`)) // reachable by keyboard
		is.True(strings.Contains(p, `role="group"`)) // a named group
		m := regexp.MustCompile(`aria-label="([^"]+)"`).FindStringSubmatch(p)
		is.True(m != nil)      // with a name
		is.True(!labels[m[1]]) // of its own
		labels[m[1]] = true
	}
	level := 0
	for _, h := range regexp.MustCompile(`<h([1-6])[ >]`).FindAllStringSubmatch(page, -1) {
		n := int(h[1][0] - '0')
		if n > level+1 {
			t.Fatalf("heading h%d follows h%d", n, level)
		}
		level = n
	}
	is.True(level > 0) // headings were found
}
