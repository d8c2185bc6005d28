package http

// The firm's offices: routes, handlers and the input (officeDTO is among
// the user DTOs, which embed it).

import (
	"net/http"

	"counsel/domain"
	"counsel/domain/user"
)

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

// The API reference entries of the office routes (routes.go).
var (
	opOffices      = op{summary: "Every office, by name", tag: "offices", resp: arrayOf(ref("OfficeDto"))}
	opOffice       = op{summary: "One office", tag: "offices", resp: ref("OfficeDto"), errs: []int{404}}
	opCreateOffice = op{summary: "Create an office", tag: "offices", body: ref("OfficeInput"), ok: 201, resp: ref("OfficeDto"), errs: []int{400}}
	opUpdateOffice = op{summary: "Change an office; absent fields keep their value", tag: "offices", body: ref("OfficeInput"), resp: ref("OfficeDto"), errs: []int{400, 404}}
)
