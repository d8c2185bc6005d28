package http

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"counsel/domain"
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

// The API reference entries of the user routes (routes.go).
var (
	opMe          = op{summary: "The current user, with the latest remuneration's figures and post-qualification years", tag: "users", resp: ref("CurrentUserDto")}
	opMeFormatted = op{summary: "The current user as a formatted user", tag: "users", resp: ref("FormattedUserDto")}
	opUsers       = op{summary: "Users matching the filter, by last name, first name and id", tag: "users", params: userFilterParams,
		resp: ref("FormattedUserPageDto"), errs: []int{400}}
	opReviewers = op{summary: "Users permitted to review every listed offering (none listed: any offering)", tag: "users",
		params: append([]param{{"offeringIds", arrayOf(integer()), "repeated (or comma-separated) offering ids"}}, userFilterParams...),
		resp:   ref("FormattedUserPageDto"), errs: []int{400}}
	opUser       = op{summary: "One user with admission date, post-qualification years and roles", tag: "users", resp: ref("UserDto"), errs: []int{404}}
	opCreateUser = op{summary: "Create a user (409 for an email in use)", tag: "users", body: ref("CreateUserInput"), ok: 201, resp: ref("UserDto"), errs: []int{400, 404, 409}}
	opUpdateUser = op{summary: "Change a user; absent fields keep their value", tag: "users", body: ref("UpdateUserInput"), resp: ref("UserDto"), errs: []int{400, 404, 409}}
	opDeleteUser = op{summary: "Soft-delete a user: no sign-in, sessions revoked, hidden from lists; records kept (409 for yourself or the last system administrator)",
		tag: "users", ok: 204, errs: []int{404, 409}}
	opChangePassword = op{summary: "Change your password (with recent authentication or currentPassword: else 403 reauthentication-required; a wrong currentPassword is a 401), or another user's with UsersEdit; revokes that user's sessions", tag: "users",
		body: ref("ChangePasswordInput"), errs: []int{400, 401, 403, 404}}
	opResetTOTP = op{summary: "Remove another user's authenticator app and revoke the user's sessions (only a system administrator may reset another one; your own id is a 403: use DELETE /api/account/totp; 204 also when none was enrolled)",
		tag: "users", ok: 204, errs: []int{403, 404, 501}}
	opAdd = op{summary: "Permit users to review an offering (404 for an unknown user)", tag: "users", body: ref("ReviewersInput"),
		resp: ref("OfferingReviewersDto"), errs: []int{400, 404}}
	opRemove = op{summary: "Withdraw users' permission to review an offering", tag: "users", body: ref("ReviewersInput"),
		resp: ref("OfferingReviewersDto"), errs: []int{400, 404}}
)

// Output.

// Input.

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
		if err != nil {
			s.fail(w, r, err)
			return
		}
		d := toCurrentUser(p)
		writeMe(w, &d)
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

func (s *server) handleResetTOTP() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err == nil {
			err = s.svc.Users.ResetTOTP(r.Context(), id)
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
		err := s.svc.Users.ChangePassword(r.Context(), in.ID, in.Password, in.CurrentPassword)
		s.reply(w, r, http.StatusOK, nil, err)
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
