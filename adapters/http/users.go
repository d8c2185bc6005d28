package http

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"counsel/domain"
	"counsel/domain/account"
	"counsel/domain/decimal"
	"counsel/domain/remuneration"
	"counsel/domain/user"
)

// userFilterParams are the query parameters of the user filter.
var userFilterParams = append([]param{
	{"Active", boolean(), "only active (true) or inactive (false) users"},
	{"IsRequiredBillingRate", boolean(), "true: only users with a billing rate above 0 (also spelled IsRequireBillingRate)"},
	{"Search", str(), "case-insensitive substring of the first, last or full name or the email"},
	{"IsLegal", boolean(), ""},
	{"IsStaff", boolean(), ""},
	{"OfficeId", integer(), "only users of this office"},
}, pagingParams...)

func (s *server) userRoutes() []route {
	return []route{
		{method: "GET", path: "/api/me", access: authorized, handler: s.handleMe(),
			op: op{summary: "The current user, with the latest remuneration's figures and post-qualification years", tag: "users", resp: ref("CurrentUser")}},
		{method: "GET", path: "/api/me/formatted", access: authorized, handler: s.handleMeFormatted(),
			op: op{summary: "The current user as a formatted user", tag: "users", resp: ref("FormattedUser")}},
		{method: "GET", path: "/api/users", access: authorized, handler: s.handleUsers(false),
			op: op{summary: "Users matching the filter, by last name, first name and id", tag: "users", params: userFilterParams,
				resp: ref("FormattedUserPage"), errs: []int{400}}},
		{method: "GET", path: "/api/users/reviewers", access: authorized, handler: s.handleUsers(true),
			op: op{summary: "Users permitted to review every listed offering (none listed: any offering)", tag: "users",
				params: append([]param{{"offeringIds", arrayOf(integer()), "repeated (or comma-separated) offering ids"}}, userFilterParams...),
				resp:   ref("FormattedUserPage"), errs: []int{400}}},
		{method: "GET", path: "/api/users/{id:[0-9]+}", access: authorized, handler: s.handleUser(),
			op: op{summary: "One user with admission date, post-qualification years and roles", tag: "users", resp: ref("User"), errs: []int{404}}},
		{method: "POST", path: "/api/users", access: perm(account.UsersCreate), handler: s.handleCreateUser(),
			op: op{summary: "Create a user (409 for an email in use)", tag: "users", body: ref("UserCreateIn"), ok: 201, resp: ref("User"), errs: []int{400, 404, 409}}},
		{method: "PUT", path: "/api/users/{id:[0-9]+}", access: perm(account.UsersEdit), handler: s.handleUpdateUser(),
			op: op{summary: "Change a user; absent fields keep their value", tag: "users", body: ref("UserIn"), resp: ref("User"), errs: []int{400, 404, 409}}},
		{method: "DELETE", path: "/api/users/{id:[0-9]+}", access: perm(account.UsersDelete), handler: s.handleDeleteUser(),
			op: op{summary: "Soft-delete a user: no sign-in, sessions revoked, hidden from lists; records kept (409 for yourself or the last system administrator)",
				tag: "users", ok: 204, errs: []int{404, 409}}},
		{method: "POST", path: "/api/users/changepassword", access: authorized, handler: s.handleChangePassword(),
			op: op{summary: "Change your password, or another user's with UsersEdit; revokes that user's sessions", tag: "users",
				body: ref("ChangePasswordIn"), errs: []int{400, 403, 404}}},
		{method: "GET", path: "/api/offices", access: authorized, handler: s.handleOffices(),
			op: op{summary: "Every office, by name", tag: "offices", resp: arrayOf(ref("Office"))}},
		{method: "GET", path: "/api/offices/{id:[0-9]+}", access: authorized, handler: s.handleOffice(),
			op: op{summary: "One office", tag: "offices", resp: ref("Office"), errs: []int{404}}},
		{method: "POST", path: "/api/offices", access: perm(account.OfficesEdit), handler: s.handleCreateOffice(),
			op: op{summary: "Create an office", tag: "offices", body: ref("OfficeIn"), ok: 201, resp: ref("Office"), errs: []int{400}}},
		{method: "PUT", path: "/api/offices/{id:[0-9]+}", access: perm(account.OfficesEdit), handler: s.handleUpdateOffice(),
			op: op{summary: "Change an office; absent fields keep their value", tag: "offices", body: ref("OfficeIn"), resp: ref("Office"), errs: []int{400, 404}}},
		{method: "PUT", path: "/api/offerings/{id:[0-9]+}/reviewers/add", access: perm(account.OfferingsEdit), handler: s.handleReviewers(true),
			op: op{summary: "Permit users to review an offering (404 for an unknown user)", tag: "users", body: ref("ReviewersIn"),
				resp: ref("OfferingReviewers"), errs: []int{400, 404}}},
		{method: "PUT", path: "/api/offerings/{id:[0-9]+}/reviewers/remove", access: perm(account.OfferingsEdit), handler: s.handleReviewers(false),
			op: op{summary: "Withdraw users' permission to review an offering", tag: "users", body: ref("ReviewersIn"),
				resp: ref("OfferingReviewers"), errs: []int{400, 404}}},
	}
}

// Output.

// addressIn is an address of a request: absent parts are empty.
type addressIn struct {
	Address1 string `json:"address1"`
	Address2 string `json:"address2"`
	Suburb   string `json:"suburb"`
	State    string `json:"state"`
	Postcode string `json:"postcode"`
	Country  string `json:"country"`
}

type addressDTO struct {
	Address1 string `json:"address1"`
	Address2 string `json:"address2"`
	Suburb   string `json:"suburb"`
	State    string `json:"state"`
	Postcode string `json:"postcode"`
	Country  string `json:"country"`
}

func toAddress(a user.Address) addressDTO { return addressDTO(a) }

type officeDTO struct {
	ID      int64      `json:"id"`
	Name    string     `json:"name"`
	Phone   string     `json:"phone"`
	Website string     `json:"website"`
	Active  bool       `json:"active"`
	Address addressDTO `json:"address"`
}

func toOffice(o user.Office) officeDTO {
	return officeDTO{ID: o.ID, Name: o.Name, Phone: o.Phone, Website: o.Website, Active: o.Active, Address: toAddress(o.Address)}
}

func toOfficePtr(o *user.Office) *officeDTO {
	if o == nil {
		return nil
	}
	v := toOffice(*o)
	return &v
}

// money writes an amount with two places: 150000.00.
func money(d decimal.Decimal) json.Number {
	return json.Number(d.StringFixed(remuneration.MoneyPlaces))
}

// plain writes a ratio without trailing zeros: 0.75, 1, 85.5.
func plain(d decimal.Decimal) json.Number { return json.Number(d.String()) }

// years writes post-qualification years with two places, null when unknown.
func years(d *decimal.Decimal) *json.Number {
	if d == nil {
		return nil
	}
	v := json.Number(d.StringFixed(remuneration.PQYPlaces))
	return &v
}

type formattedUserDTO struct {
	ID                int64       `json:"id"`
	Email             string      `json:"email"`
	FirstName         string      `json:"firstName"`
	LastName          string      `json:"lastName"`
	FullName          string      `json:"fullName" doc:"first name joined with last name"`
	BillingRate       json.Number `json:"billingRate" doc:"hourly billing rate; set by the latest remuneration or by an edit"`
	ProfilePictureURL string      `json:"profilePictureUrl"`
	ContactNumber     string      `json:"contactNumber"`
	Active            bool        `json:"active"`
	Office            *officeDTO  `json:"office"`
	IsLegal           bool        `json:"isLegal"`
	IsStaff           bool        `json:"isStaff"`
	Address           addressDTO  `json:"address"`
}

func toFormattedUser(u user.User) formattedUserDTO {
	return formattedUserDTO{ID: u.ID, Email: u.Email, FirstName: u.FirstName, LastName: u.LastName, FullName: u.FullName(),
		BillingRate: money(u.BillingRate), ProfilePictureURL: u.ProfilePictureURL, ContactNumber: u.ContactNumber,
		Active: u.Active, Office: toOfficePtr(u.Office), IsLegal: u.IsLegal, IsStaff: u.IsStaff, Address: toAddress(u.Address)}
}

type userDTO struct {
	formattedUserDTO
	AdmissionDate *Time        `json:"admissionDate"`
	PQY           *json.Number `json:"pqy" doc:"post-qualification years now, less PQE adjustments; null without an admission date"`
	Roles         []roleDTO    `json:"roles"`
}

func toUser(p user.Profile) userDTO {
	return userDTO{formattedUserDTO: toFormattedUser(p.User), AdmissionDate: timePtr(p.AdmissionDate), PQY: years(p.PQY), Roles: toRoles(p.Roles)}
}

type currentUserDTO struct {
	ID                               int64       `json:"id"`
	Email                            string      `json:"email"`
	ContactNumber                    string      `json:"contactNumber"`
	FirstName                        string      `json:"firstName"`
	LastName                         string      `json:"lastName"`
	ProfilePictureURL                string      `json:"profilePictureUrl"`
	HasActiveTimer                   bool        `json:"hasActiveTimer"`
	HasNotifications                 bool        `json:"hasNotifications"`
	HasActiveDocument                bool        `json:"hasActiveDocument"`
	HasIncompleteReviewRequest       bool        `json:"hasIncompleteReviewRequest"`
	HasUnacknowledgedCompletedReview bool        `json:"hasUnacknowledgedCompletedReview"`
	InvoicesAwaitingApproval         int         `json:"invoicesAwaitingApproval"`
	InvoicesReadyForProcessing       int         `json:"invoicesReadyForProcessing"`
	FTELoad                          json.Number `json:"fteLoad" doc:"from the latest remuneration; 0 when none"`
	BillingRate                      json.Number `json:"billingRate" doc:"from the latest remuneration; 0 when none"`
	BillablePercentage               json.Number `json:"billablePercentage" doc:"from the latest remuneration; 0 when none"`
	PQY                              json.Number `json:"pqy" doc:"post-qualification years now, less PQE adjustments; 0 without an admission date"`
	RemunerationIncSuper             json.Number `json:"remunerationIncSuper" doc:"from the latest remuneration; 0 when none"`
	AdmissionDate                    *Time       `json:"admissionDate"`
	Office                           *officeDTO  `json:"office"`
	Address                          addressDTO  `json:"address"`
}

func toCurrentUser(p user.Profile) currentUserDTO {
	// The timer, notification, document, review and invoice fields belong
	// to modules outside this service: always false and 0 here.
	d := currentUserDTO{ID: p.ID, Email: p.Email, ContactNumber: p.ContactNumber, FirstName: p.FirstName, LastName: p.LastName,
		ProfilePictureURL: p.ProfilePictureURL, AdmissionDate: timePtr(p.AdmissionDate), Office: toOfficePtr(p.Office), Address: toAddress(p.Address),
		FTELoad: "0", BillingRate: "0.00", BillablePercentage: "0", RemunerationIncSuper: "0.00", PQY: "0.00"}
	if r := p.Latest; r != nil {
		d.FTELoad, d.BillingRate = plain(r.FTELoad), money(r.BillingRate)
		d.BillablePercentage, d.RemunerationIncSuper = plain(r.BillablePercentage), money(r.RemunerationIncSuper)
	}
	if y := years(p.PQY); y != nil {
		d.PQY = *y
	}
	return d
}

type offeringReviewersDTO struct {
	OfferingID int64   `json:"offeringId"`
	UserIDs    []int64 `json:"userIds" doc:"the offering's reviewers after the change"`
}

// Input.

// numberIn is a JSON number field kept as written and parsed afterwards,
// so that a wrong value is a 400 naming the field. A string holding a
// number ("150000.00") is accepted too.
type numberIn struct {
	set, null bool
	raw       string
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *numberIn) UnmarshalJSON(b []byte) error {
	n.set = true
	switch {
	case string(b) == "null":
		n.null = true
	case len(b) > 0 && b[0] == '"':
		if err := json.Unmarshal(b, &n.raw); err != nil {
			n.raw = string(b)
		}
	default:
		n.raw = string(b)
	}
	return nil
}

// value parses the number; on failure it records a field error.
func (n numberIn) value(field string, f domain.FieldErrors) (decimal.Decimal, bool) {
	d, err := decimal.Parse(strings.TrimSpace(n.raw))
	if err != nil {
		f.Add(field, field+" must be a number")
		return decimal.Decimal{}, false
	}
	return d, true
}

// optional returns the number when given, nil when absent; null is an
// error since these numbers have no "unknown" value.
func (n numberIn) optional(field string, f domain.FieldErrors) *decimal.Decimal {
	if !n.set {
		return nil
	}
	if n.null {
		f.Add(field, field+" must be a number, not null")
		return nil
	}
	if d, ok := n.value(field, f); ok {
		return &d
	}
	return nil
}

// required returns the number, recording "field is required" when it is
// absent or null.
func (n numberIn) required(field string, f domain.FieldErrors) decimal.Decimal {
	if !n.set || n.null {
		f.Add(field, field+" is required")
		return decimal.Decimal{}
	}
	d, _ := n.value(field, f)
	return d
}

// dateIn is a date-time field parsed afterwards so that a wrong value is a
// 400 naming the field.
type dateIn struct {
	set, null bool
	raw       string
	notString bool
}

// UnmarshalJSON implements json.Unmarshaler.
func (d *dateIn) UnmarshalJSON(b []byte) error {
	d.set = true
	switch {
	case string(b) == "null":
		d.null = true
	case len(b) > 0 && b[0] == '"' && json.Unmarshal(b, &d.raw) == nil:
	default:
		d.notString = true
	}
	return nil
}

// value parses the date-time: the zero time when absent or null.
func (d dateIn) value(field string, f domain.FieldErrors) time.Time {
	if !d.set || d.null {
		return time.Time{}
	}
	t, err := parseTime(d.raw)
	if d.notString || err != nil {
		f.Add(field, field+" must be an RFC 3339 date-time or a yyyy-mm-dd date")
		return time.Time{}
	}
	return t
}

// optional returns nil when absent, a pointer to the zero time when null
// (which removes the value), and the parsed time otherwise.
func (d dateIn) optional(field string, f domain.FieldErrors) *time.Time {
	if !d.set {
		return nil
	}
	t := d.value(field, f)
	return &t
}

func optString(o Opt[string]) *string {
	if !o.Set {
		return nil
	}
	return &o.V // null gives "": the field is cleared
}

func optBool(o Opt[bool], field string, f domain.FieldErrors) *bool {
	if !o.Set {
		return nil
	}
	if o.Null {
		f.Add(field, field+" must be true or false, not null")
		return nil
	}
	return &o.V
}

func optAddress(o Opt[addressIn]) *user.Address {
	if !o.Set {
		return nil
	}
	a := user.Address(o.V) // null gives an empty address
	return &a
}

type userIn struct {
	Email             Opt[string]    `json:"email" required:"create"`
	FirstName         Opt[string]    `json:"firstName"`
	LastName          Opt[string]    `json:"lastName"`
	ContactNumber     Opt[string]    `json:"contactNumber"`
	ProfilePictureURL Opt[string]    `json:"profilePictureUrl"`
	BillingRate       numberIn       `json:"billingRate"`
	Active            Opt[bool]      `json:"active"`
	IsLegal           Opt[bool]      `json:"isLegal"`
	IsStaff           Opt[bool]      `json:"isStaff"`
	OfficeID          Opt[int64]     `json:"officeId" doc:"null or 0 removes the office"`
	Address           Opt[addressIn] `json:"address" doc:"null empties the address"`
	AdmissionDate     dateIn         `json:"admissionDate" doc:"null removes it"`
	Password          Opt[string]    `json:"password" doc:"8 to 128 characters; creation only (PUT ignores it: use /api/users/changepassword)"`
	RoleIDs           Opt[[]int64]   `json:"roleIds" doc:"the roles held; absent: the default roles on creation, unchanged on edit"`
}

// input converts the body, reporting values of the wrong kind by field.
func (in userIn) input() (user.Input, error) {
	f := domain.FieldErrors{}
	var out user.Input
	p := &out.Patch
	p.Email, p.FirstName, p.LastName = optString(in.Email), optString(in.FirstName), optString(in.LastName)
	p.ContactNumber, p.ProfilePictureURL = optString(in.ContactNumber), optString(in.ProfilePictureURL)
	p.BillingRate = in.BillingRate.optional("billingRate", f)
	p.Active, p.IsLegal, p.IsStaff = optBool(in.Active, "active", f), optBool(in.IsLegal, "isLegal", f), optBool(in.IsStaff, "isStaff", f)
	if in.OfficeID.Set {
		p.OfficeID = &in.OfficeID.V // null gives 0: no office
	}
	p.Address = optAddress(in.Address)
	p.AdmissionDate = in.AdmissionDate.optional("admissionDate", f)
	if in.Password.Set && !in.Password.Null {
		out.Password = &in.Password.V
	}
	if in.RoleIDs.Set && !in.RoleIDs.Null {
		ids := in.RoleIDs.V
		if ids == nil {
			ids = []int64{}
		}
		out.RoleIDs = &ids
	}
	return out, f.Err()
}

// userFilter reads the user filter's query parameters.
func userFilter(q url.Values, f domain.FieldErrors) user.Filter {
	var uf user.Filter
	uf.Limit, uf.Offset = paging(q, f)
	uf.Active = queryBool(q, "Active", "Active", f)
	req := queryBool(q, "IsRequiredBillingRate", "IsRequiredBillingRate", f)
	if req == nil {
		req = queryBool(q, "IsRequireBillingRate", "IsRequireBillingRate", f)
	}
	uf.RequireBillingRate = req != nil && *req
	uf.Search = q.Get("search")
	uf.IsLegal = queryBool(q, "IsLegal", "IsLegal", f)
	uf.IsStaff = queryBool(q, "IsStaff", "IsStaff", f)
	uf.OfficeID = queryInt(q, "OfficeId", "OfficeId", f)
	return uf
}

// offeringIDs reads the repeated (or comma-separated) offeringIds.
func offeringIDs(q url.Values, f domain.FieldErrors) []int64 {
	var ids []int64
	for _, v := range q["offeringids"] {
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			n, err := strconv.ParseInt(part, 10, 64)
			if err != nil || n <= 0 {
				f.Add("offeringIds", "offeringIds must be positive integers")
				return nil
			}
			ids = append(ids, n)
		}
	}
	return ids
}

// Handlers.

func (s *server) handleMe() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := s.svc.Users.Me(r.Context())
		s.reply(w, r, http.StatusOK, toCurrentUser(p), err)
	}
}

func (s *server) handleMeFormatted() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u, err := s.svc.Users.MeFormatted(r.Context())
		s.reply(w, r, http.StatusOK, toFormattedUser(u), err)
	}
}

// handleUsers lists users, or reviewers when reviewers is true.
func (s *server) handleUsers(reviewers bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := query(r)
		f := domain.FieldErrors{}
		uf := userFilter(q, f)
		if reviewers {
			uf.Reviewers, uf.OfferingIDs = true, offeringIDs(q, f)
		}
		if err := f.Err(); err != nil {
			s.fail(w, r, err)
			return
		}
		us, count, err := s.svc.Users.Users(r.Context(), uf)
		items := make([]formattedUserDTO, len(us))
		for i, u := range us {
			items[i] = toFormattedUser(u)
		}
		s.reply(w, r, http.StatusOK, newPage(items, count, uf.Offset), err)
	}
}

func (s *server) handleUser() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		p, err := s.svc.Users.User(r.Context(), id)
		s.reply(w, r, http.StatusOK, toUser(p), err)
	}
}

func (s *server) handleCreateUser() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		in, err := decodeAs(r, userIn.input)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		p, err := s.svc.Users.CreateUser(r.Context(), in)
		if err == nil {
			w.Header().Set("Location", "/api/users/"+itoa(p.ID))
		}
		s.reply(w, r, http.StatusCreated, toUser(p), err)
	}
}

func (s *server) handleUpdateUser() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		var in user.Input
		if err == nil {
			in, err = decodeAs(r, userIn.input)
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		p, err := s.svc.Users.UpdateUser(r.Context(), id, in)
		s.reply(w, r, http.StatusOK, toUser(p), err)
	}
}

func (s *server) handleDeleteUser() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err == nil {
			err = s.svc.Users.DeleteUser(r.Context(), id)
		}
		s.reply(w, r, http.StatusNoContent, nil, err)
	}
}

func (s *server) handleChangePassword() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in changePasswordIn
		if err := decode(r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		err := s.svc.Users.ChangePassword(r.Context(), in.ID, in.Password)
		s.reply(w, r, http.StatusOK, nil, err)
	}
}

// changePasswordIn is the spec's input of a password change: only id and
// password are read; the other fields are ignored, whatever their type.
type changePasswordIn struct {
	ID        int64  `json:"id" doc:"the user; absent or 0: the caller"`
	Password  string `json:"password" required:"true" doc:"the new password, 8 to 128 characters"`
	Email     any    `json:"email" doc:"ignored"`
	FirstName any    `json:"firstName" doc:"ignored"`
	LastName  any    `json:"lastName" doc:"ignored"`
	OfficeID  any    `json:"officeId" doc:"ignored"`
	Address   any    `json:"address" doc:"ignored"`
}

// reviewersIn names the users whose permission to review changes.
type reviewersIn struct {
	UserIDs []int64 `json:"userIds" required:"true"`
}

type officeIn struct {
	Name    Opt[string]    `json:"name"`
	Phone   Opt[string]    `json:"phone"`
	Website Opt[string]    `json:"website"`
	Active  Opt[bool]      `json:"active" doc:"default true"`
	Address Opt[addressIn] `json:"address"`
}

func (in officeIn) patch() (user.OfficePatch, error) {
	f := domain.FieldErrors{}
	p := user.OfficePatch{Name: optString(in.Name), Phone: optString(in.Phone), Website: optString(in.Website),
		Active: optBool(in.Active, "active", f), Address: optAddress(in.Address)}
	return p, f.Err()
}

func (s *server) handleOffices() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		os, err := s.svc.Users.Offices(r.Context())
		out := make([]officeDTO, len(os))
		for i, o := range os {
			out[i] = toOffice(o)
		}
		s.reply(w, r, http.StatusOK, out, err)
	}
}

func (s *server) handleOffice() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		o, err := s.svc.Users.Office(r.Context(), id)
		s.reply(w, r, http.StatusOK, toOffice(o), err)
	}
}

func (s *server) handleCreateOffice() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := decodeAs(r, officeIn.patch)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		o, err := s.svc.Users.CreateOffice(r.Context(), p)
		if err == nil {
			w.Header().Set("Location", "/api/offices/"+itoa(o.ID))
		}
		s.reply(w, r, http.StatusCreated, toOffice(o), err)
	}
}

func (s *server) handleUpdateOffice() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		var p user.OfficePatch
		if err == nil {
			p, err = decodeAs(r, officeIn.patch)
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		o, err := s.svc.Users.UpdateOffice(r.Context(), id, p)
		s.reply(w, r, http.StatusOK, toOffice(o), err)
	}
}

// handleReviewers adds (add) or removes reviewers of an offering.
func (s *server) handleReviewers(add bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		var in reviewersIn
		if err := decode(r, &in); err != nil {
			s.fail(w, r, err)
			return
		}
		var ids []int64
		if add {
			ids, err = s.svc.Users.AddReviewers(r.Context(), id, in.UserIDs)
		} else {
			ids, err = s.svc.Users.RemoveReviewers(r.Context(), id, in.UserIDs)
		}
		s.reply(w, r, http.StatusOK, offeringReviewersDTO{OfferingID: id, UserIDs: ids}, err)
	}
}
